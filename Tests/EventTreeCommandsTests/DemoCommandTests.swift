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
            #expect(result.stdout.hasPrefix("Recorded the demo session into eventtree-demo.eventtree: 14 raises (13 events, 1 produced by a transform).\n"))
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
                "CloseScreen lost", "NamedEvent unhandled",
            ])
        }
    }

    @Test func theVersionIsPrinted() throws {
        let result = try Tool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "eventtree 0.3.0 (journal schema version 2)\n")
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
