import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

@Suite struct ReplayOrderTests {
    @Test func findingsComeInRaiseOrderEvenWhenAnOuterRaiseEndsAfterAThousandNestedOnes() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Pong.self, label: "fan-out") { _, context in
                for index in 0..<1_000 { context.node?.raise(Ping(n: index)) }
                return .handled
            }
            app.on(Ping.self, label: "count") { _, _ in .handled }
            let outer = app.raise(Pong())
            let after = app.raise(Ping(n: -1))
            try journal.flush()
            let ids = try findings(journal.path).map(\.event.id)
            #expect(ids.count == 1_002)
            #expect(ids.first == outer.eventID)
            #expect(ids.last == after.eventID)
            let outOfOrder = zip(ids, ids.dropFirst()).first { $0 >= $1 }
            #expect(outOfOrder == nil, "event \(outOfOrder.map { "\($0.1) after \($0.0)" } ?? "")")
        }
    }
}
