import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

@Suite struct RecordingDiffTests {
    /// Records SmallApp's scenario into a journal at `path`, optionally with an extra raise.
    static func record(_ path: String, strictGate: Bool = false, extraPong: Bool = false) throws {
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal)
        let small = SmallApp(bus: bus, strictGate: strictGate)
        small.profile.raise(Ping(n: 1))
        if extraPong { small.app.raise(Pong()) }
        small.profile.raise(Ping(n: 9))
        small.profile.raise(Pong())
        bus.end()
        try journal.close()
    }

    @Test func twoRecordingsOfTheSameProgramDoNotDiffer() async throws {
        try await withTemporaryDirectory { directory in
            try Self.record(directory + "/a.eventtree")
            try Self.record(directory + "/b.eventtree")
            let diff = try RecordingDiff(old: directory + "/a.eventtree", new: directory + "/b.eventtree")
            #expect(diff.isSame)
            #expect(diff.summary == "paired 3 raises: 0 changed fate, 0 removed, 0 added")
        }
    }

    @Test func aChangedHandlerNamesTheEventsWhoseFateChangedAndTheirFirstDifferingStep() async throws {
        try await withTemporaryDirectory { directory in
            try Self.record(directory + "/a.eventtree")
            try Self.record(directory + "/b.eventtree", strictGate: true)
            let diff = try RecordingDiff(old: directory + "/a.eventtree", new: directory + "/b.eventtree")
            #expect(!diff.isSame)
            #expect(diff.changed.map(\.old.typeName) == ["Ping", "Pong"])
            let ping = try #require(diff.changed.first)
            // Numbered as explain numbers Ping's route: 1 is the profile (no handler).
            #expect(ping.firstDifferingStep == "step 2")
            #expect("\(ping)" == """
                event \(ping.old.id.rawValue) -> \(ping.new.id.rawValue) (Ping at app/settings/profile): delivered -> consumed by gate, from step 2
                - 2. Ping at app/settings bubble: gate -> handled
                - 3. Ping at app bubble: log -> handled
                + 2. Ping at app/settings bubble: gate -> consumed
                """)
            let explained = try Replayer(journal: directory + "/a.eventtree").explain(event: ping.old.id)
            #expect(explained.steps.filter { !$0.calls.isEmpty }.map(\.number) == ping.old.steps.compactMap(\.number))
            let pong = diff.changed[1]
            #expect(pong.old.fate == "delivered" && pong.new.fate == "consumed by gate")
            // Pong is transformed into a Ping at step 1: the step that differs is the Ping's.
            #expect(pong.firstDifferingStep == "step 2 of Ping")
        }
    }

    @Test func anAddedRaiseLeavesTheOthersPaired() async throws {
        try await withTemporaryDirectory { directory in
            try Self.record(directory + "/a.eventtree")
            try Self.record(directory + "/b.eventtree", extraPong: true)
            let diff = try RecordingDiff(old: directory + "/a.eventtree", new: directory + "/b.eventtree")
            #expect(diff.paired == 3)
            #expect(diff.changed.isEmpty)
            #expect(diff.removed.isEmpty)
            #expect(diff.added.map(\.description) == ["event \(diff.added[0].id.rawValue) (Pong at app): unhandled"])
            let reversed = try RecordingDiff(old: directory + "/b.eventtree", new: directory + "/a.eventtree")
            #expect(reversed.removed.count == 1 && reversed.added.isEmpty && reversed.changed.isEmpty)
        }
    }
}
