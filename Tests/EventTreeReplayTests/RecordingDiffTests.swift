import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Foundation
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

/// A call enqueued by a raise nested in another one runs on the main actor while the outer
/// raise may still be delivering: its steps come after the outer raise's, however the two
/// interleaved, so two recordings of the same program do not differ.
@Suite struct LateStepOrderTests {
    struct Sync: Event {}
    struct Saved: Event {}

    static func record(_ path: String, slowOuter: Bool) async throws {
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal)
        let app = EventNode("app", bus: bus)
        let store = EventNode("store", parent: app)
        store.on(Sync.self, label: "sync") { _, context in
            context.node?.raise(Saved())
            // The outer raise goes on while the main actor runs "show-saved" (or not yet).
            if slowOuter { Thread.sleep(forTimeInterval: 0.05) }
            return .handled
        }
        app.on(Sync.self, label: "log-sync") { _, _ in .handled }
        app.onMainActor(Saved.self, label: "show-saved", whenRaisedElsewhere: .enqueue) { _, _ in .handled }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                store.raise(Sync())
                done.resume()
            }.start()
        }
        await bus.waitForEnqueuedCalls()
        bus.end()
        try journal.close()
    }

    @Test func lateStepsFollowTheirRaisesOtherSteps() async throws {
        try await withTemporaryDirectory { directory in
            try await Self.record(directory + "/fast.eventtree", slowOuter: false)
            try await Self.record(directory + "/slow.eventtree", slowOuter: true)
            let raises = try Replayer(journal: directory + "/slow.eventtree").appRaises()
            #expect(raises.map(\.typeName) == ["Sync"])
            #expect(raises.first?.steps.map(\.description) == [
                "2. Saved at app bubble: show-saved -> enqueued",
                "1. Sync at app/store target: sync -> handled",
                "2. Sync at app bubble: log-sync -> handled",
                "2. Saved at app bubble: show-saved -> handled",
            ])
            #expect(try RecordingDiff(old: directory + "/fast.eventtree", new: directory + "/slow.eventtree").isSame)
        }
    }
}
