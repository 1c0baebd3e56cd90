import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// A small app, built the same way in the recording and in the replay; `strictGate`
/// changes its behaviour the way a code change would.
struct SmallApp {
    let nodes: [EventNode]

    init(bus: EventBus, strictGate: Bool = false) {
        let app = EventNode("app", bus: bus)
        let settings = EventNode("settings", parent: app)
        let profile = EventNode("profile", parent: settings)
        app.on(Ping.self, label: "log") { _, _ in .handled }
        settings.on(Ping.self, label: "gate") { event, _ in strictGate || event.n > 5 ? .consumed : .handled }
        profile.on(Pong.self, label: "pong-to-ping") { _, _ in .transformed(Ping(n: 1)) }
        app.on(Ask.self, label: "answer") { _, _ in .answered(7) }
        nodes = [app, settings, profile]
    }

    static func record(into journal: Journal) {
        let bus = EventBus(recorder: journal)
        let app = SmallApp(bus: bus)
        app.nodes[2].raise(Ping(n: 1))
        app.nodes[2].raise(Ping(n: 9))
        app.nodes[2].raise(Pong())
        _ = app.nodes[2].request(Ask())
        app.nodes[0].raise(Tagged(), mode: .descend)
    }
}

@Suite struct LiveReplayTests {
    static var types: EventTypes {
        var types = EventTypes()
        types.register(Ping.self)
        types.register(Pong.self)
        types.register(Ask.self)
        return types
    }

    @Test func theSameCodeReplaysWithoutDifference() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in SmallApp(bus: bus).nodes }
            #expect(report.difference == nil, "\(report)")
            #expect(report.replayed == 4)
            #expect(report.skipped.map(\.eventType) == ["Tagged"])
            #expect(report.description == "replayed 4 raises, skipped 1: no difference")
        }
    }

    @Test func changedCodeIsReportedAtTheFirstDifferingStepWithADiff() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in
                SmallApp(bus: bus, strictGate: true).nodes
            }
            let difference = try #require(report.difference)
            #expect(difference.eventType == "Ping")
            #expect(difference.stepIndex == 0)
            #expect(difference.diff == """
                - Ping at app/settings bubble: gate -> handled
                - Ping at app bubble: log -> handled
                + Ping at app/settings bubble: gate -> consumed
                """)
            #expect(report.description.hasPrefix("replayed 1 raise; event "))
        }
    }

    @Test func aMissingNodeIsTheDifference() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in
                [EventNode("app", bus: bus)]
            }
            #expect(report.difference?.actual == ["no node at app/settings/profile in the new tree"])
        }
    }
}
