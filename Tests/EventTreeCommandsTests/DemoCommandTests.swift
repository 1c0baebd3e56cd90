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

    @Test func theVersionIsPrinted() throws {
        let result = try Tool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "eventtree 0.1.0 (journal schema version \(Journal.schemaVersion))\n")
    }

    @Test func anOlderJournalIsRefusedWithTheWayOutAndUpgradedInPlace() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../EventTreeJournalTests/Fixtures/version1-demo.eventtree").standardizedFileURL.path
        try await withTemporaryDirectory { directory in
            let path = directory + "/old.eventtree"
            try FileManager.default.copyItem(atPath: fixture, toPath: path)
            let original = FileManager.default.contents(atPath: path)
            let refused = try Tool.run(["replay", path])
            #expect(refused.status == 2)
            #expect(refused.stderr == "error: \(path) has journal schema version 1, older than this eventtree's \(Journal.schemaVersion): upgrade it with 'eventtree upgrade \(path)' (it migrates the file in place and keeps every row)\n")
            #expect(FileManager.default.contents(atPath: path) == original)
            let upgraded = try Tool.run(["upgrade", path])
            #expect(upgraded.status == 0)
            #expect(upgraded.stdout == "Upgraded \(path) from schema version 1 to \(Journal.schemaVersion).\n")
            let replay = try Tool.run(["replay", path])
            #expect(replay.status == 0)
            #expect(replay.stdout.hasSuffix("13 events (14 raises: 1 produced by a transform): 7 delivered, 2 consumed, 2 unhandled, 1 lost, 0 diverged, 1 failed\n"))
            #expect(try Tool.run(["upgrade", path]).stdout == "\(path) already has schema version \(Journal.schemaVersion); nothing to do.\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["old.eventtree"])
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
