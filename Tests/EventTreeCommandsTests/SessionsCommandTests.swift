import EventTree
@testable import EventTreeCommands
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// `eventtree sessions` says when a session was cut short, instead of letting a short or empty
/// table pass for the whole story.
@Suite struct SessionsCommandTests {
    @Test func aSessionWhoseProcessStoppedIsNamedAndALiveOneIsNot() async throws {
        try await withTemporaryDirectory { directory throws in
            let live = directory + "/live.eventtree"
            let journal = try Journal(path: live)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            for index in 0..<5 { app.raise(NamedEvent("e\(index)")) }
            try journal.flush()
            // What a process killed now leaves: the file and its -wal, and no writer.
            let left = directory + "/left.eventtree"
            try FileManager.default.copyItem(atPath: live, toPath: left)
            try FileManager.default.copyItem(atPath: live + "-wal", toPath: left + "-wal")
            let cut = runCommand(["sessions", left])
            #expect(cut.status == 0)
            #expect(cut.stdout.hasSuffix("\n(session 1 did not end: the process that recorded it stopped without closing the "
                + "journal (a crash, or the process was killed), and records it had not written yet are lost)\n"))
            // The data formats stay data: ended_at null says it.
            #expect(runCommand(["sessions", left, "--format", "jsonl"]).stdout.contains("\"ended_at\":null"))
            #expect(!runCommand(["sessions", left, "--format", "jsonl"]).stdout.contains("did not end"))
            // The journal still being written: its session is under way, not cut short.
            #expect(!runCommand(["sessions", live]).stdout.contains("did not end"))
            bus.end()
            try journal.close()
            _ = app
            #expect(!runCommand(["sessions", live]).stdout.contains("("))
        }
    }

    @Test func aJournalWithoutSessionsSaysSo() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory + "/empty.eventtree"
            try Journal(path: path).close()
            let result = runCommand(["sessions", path])
            #expect(result.status == 0)
            #expect(result.stdout.hasSuffix(
                "\n(no sessions: nothing was recorded, or the process that opened the journal stopped before its first write)\n"))
        }
    }

    @Test func severalCutSessionsAreNamedTogether() {
        #expect(Sessions.unendedNote([2, 5], total: 6)
            == "(sessions 2, 5 did not end: the process that recorded them stopped without closing the journal "
            + "(a crash, or the process was killed), and records it had not written yet are lost)\n")
        #expect(Sessions.unendedNote([], total: 6) == "")
        // Every session pruned: the table's prune line says what happened to them.
        #expect(Sessions.unendedNote([], total: 0, pruned: true) == "")
    }
}
