import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

@Suite struct DemoCommandTests {
    @Test func aCopiedBinaryCreatesTheDemoJournalWithNoFilesBesideIt() async throws {
        try await withTemporaryDirectory { directory in
            let copy = URL(fileURLWithPath: directory).appendingPathComponent("eventtree")
            try FileManager.default.copyItem(at: Tool.builtExecutable, to: copy)
            let result = try Tool.run(["demo"], in: directory, executable: copy)
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout.hasPrefix("Recorded the demo session into eventtree-demo.eventtree: 15 raises (14 events, 1 produced by a transform).\n"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "eventtree", "eventtree-demo.eventtree",
            ])
            let reader = try JournalReader(path: directory + "/eventtree-demo.eventtree")
            let results = try reader.rows("SELECT event_type, result FROM event_history ORDER BY event_id")
                .map { "\($0[0]) \($0[1])" }
            #expect(results == [
                "PostLiked delivered", "OpenURL consumed", "CurrentUser answered", "UnreadCount unanswered",
                "ThemeChanged failed", "RenderError delivered", "SyncFailed consumed", "ShowBanner delivered",
                "ButtonTapped delivered", "PostLiked delivered", "Refresh delivered", "Refresh delivered",
                "CloseScreen lost", "NamedEvent unhandled", "SignIn consumed",
            ])
        }
    }

    /// The demo's sign-in event carries a password and a token: the journal's default
    /// deny-list keeps both out of every byte the tool writes, and `explain` says so.
    @Test func theDemosSecretsAreInNoByteItWrites() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            // A reader keeps the write-ahead log in place while the commands below run.
            let reader = try JournalReader(path: journal)
            let signIn = try #require(reader.rows("SELECT event_id, payload FROM event_history WHERE event_type = 'SignIn'").first)
            #expect(signIn[1] == .text(#"{"password":"[redacted]","token":"[redacted]","user":"ada"}"#))
            #expect(try Tool.run(["report", journal, "-o", directory + "/report.html"]).status == 0)
            #expect(try Tool.run(["export", journal, "--format", "jsonl", "-o", directory + "/export.jsonl"]).status == 0)
            #expect(try Tool.run(["export", journal, "--format", "chrome-trace", "-o", directory + "/trace.json"]).status == 0)
            let explained = try Tool.run(["explain", journal, String(try #require(signIn[0].int))])
            #expect(explained.stdout.contains("\nRedacted before it was stored: password, token\n"))
            var written = Data()
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
                written += FileManager.default.contents(atPath: directory + "/" + file) ?? Data()
            }
            written += Data(explained.stdout.utf8)
            #expect(written.count > 10_000)
            for secret in ["hunter2", "tok-demo-secret"] {
                #expect(written.range(of: Data(secret.utf8)) == nil, "\(secret) was written")
            }
            withExtendedLifetime(reader) {}
        }
    }

    /// What the copied binary above met once in CI: another test's process, started while the
    /// copy was being written, held it open for writing, and the start failed with "Text file
    /// busy". The runner waits for such a holder to let go.
    @Test func aProgramFileHeldOpenForWritingStartsOnceItIsClosed() async throws {
        try await withTemporaryDirectory { directory in
            let copy = URL(fileURLWithPath: directory).appendingPathComponent("eventtree")
            try FileManager.default.copyItem(at: Tool.builtExecutable, to: copy)
            let holder = open(copy.path, O_WRONLY)
            #expect(holder >= 0)
            let letGo = DispatchWorkItem { close(holder) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2, execute: letGo)
            let result = try Tool.run(["--version"], executable: copy)
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("eventtree "))
        }
    }

    /// Bash completion offers files for journals and the words each option takes.
    @Test func bashCompletionOffersJournalFilesAndEachOptionsWords() throws {
        // (The words are listed one per line, each quoted: read as one line of words.)
        let script = try Tool.run(["--generate-completion-script", "bash"]).stdout.replacingOccurrences(of: "'$'\\n''", with: " ")
        // `replay JOURNAL`: files (not just the subcommands' names).
        let replay = try #require(script.range(of: "_eventtree_replay()").map { String(script[$0.lowerBound...].prefix(3_000)) })
        #expect(replay.contains("__eventtree_add_completions -f"), "\(replay)")
        #expect(replay.contains("-W 'delivered consumed unhandled lost diverged failed'"), "\(replay)")
        let query = try #require(script.range(of: "_eventtree_query()").map { String(script[$0.lowerBound...].prefix(4_000)) })
        #expect(query.contains("-W 'capture target bubble propagate'"), "\(query)")
        #expect(query.contains("-W 'ignored handled consumed consumedImmediately"), "\(query)")
    }

    @Test func theVersionIsPrinted() throws {
        let result = try Tool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "eventtree 0.1.0 (journal schema version \(Journal.schemaVersion))\n")
    }

    @Test func upgradeLeavesACurrentJournalAsItIs() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/current.eventtree"
            try Journal(path: path).close()
            let original = FileManager.default.contents(atPath: path)
            let upgraded = try Tool.run(["upgrade", path])
            #expect(upgraded.status == 0)
            #expect(upgraded.stdout == "\(path) already has schema version \(Journal.schemaVersion); nothing to do.\n")
            #expect(FileManager.default.contents(atPath: path) == original)
        }
    }

    @Test func sessionsRecordsThatManyDemoSessionsIntoOneJournal() async throws {
        try await withTemporaryDirectory { directory in
            let result = try Tool.run(["demo", "--sessions", "3", "--format", "csv"], in: directory)
            #expect(result.status == 0)
            let rows = result.stdout.split(separator: "\n")
            #expect(rows.first == "session_id,event_id,event_type,kind,mode,origin_path,result")
            #expect(rows.count == 1 + 3 * 15)
            let reader = try JournalReader(path: directory + "/eventtree-demo.eventtree")
            #expect(try reader.rows("SELECT count(*), sum(events), count(ended_at) FROM sessions") == [[.integer(3), .integer(45), .integer(3)]])
            #expect(try Tool.run(["demo", "--sessions", "0"], in: directory).stderr.contains("--sessions takes a positive number"))
        }
    }

    @Test func runningTheDemoTwiceReplacesItsJournal() async throws {
        try await withTemporaryDirectory { directory in
            _ = try Tool.run(["demo"], in: directory)
            let again = try Tool.run(["demo", "--format", "csv"], in: directory)
            #expect(again.status == 0)
            #expect(again.stdout.hasPrefix("event_id,event_type,kind,mode,origin_path,result\n"))
            let reader = try JournalReader(path: directory + "/eventtree-demo.eventtree")
            #expect(try reader.rows("SELECT count(*) FROM sessions") == [[.integer(1)]])
        }
    }

    @Test func theDemoRefusesToOverwriteAFileThatIsNotAJournal() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/notes.txt"
            try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: path))
            let result = try Tool.run(["demo", "--journal", path], in: directory)
            #expect(result.status == 2)
            #expect(result.stderr == "error: \(path) exists and is not an EventTree journal (\(path) is not an SQLite database); choose another path with --journal\n")
            #expect(FileManager.default.contents(atPath: path) == Data("my notes\n".utf8))
        }
    }
}
