import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

@Suite struct NestingReplayTests {
    struct ShowBanner: Event { var text: String }

    @Test func aRefusedRaiseIsJournaledAndReplaysAsFailedWithNothingDiverged() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, maximumNestingDepth: 2)
            let app = EventNode("app", bus: bus)
            app.on(Ping.self, label: "again") { _, context in
                context.node?.raise(Ping())
                return .handled
            }
            app.raise(Ping())
            try journal.flush()
            let found = try findings(journal.path)
            #expect(found.map(\.classification) == [.delivered, .delivered, .failed])
            #expect(found.last?.summary
                == "failed: raising Ping was refused: it would nest 3 raises deep on this thread, past the bus's limit of 2; a handler's raise leads back to itself (its cause chain: eventtree explain JOURNAL \(found[1].event.id.rawValue))")
            #expect(found.last?.event.cause == found[1].event.id)
        }
    }

    @Test func theBannerLoopReplaysWithNothingDiverged() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
            app.on(ShowBanner.self, label: "show") { _, _ in throw Boom() }
            app.raise(Ping())
            app.report(Boom())
            try journal.flush()
            let found = try findings(journal.path)
            #expect(found.map { "\($0.event.typeName) \($0.classification)" } == [
                "Ping unhandled", "Boom consumed", "ShowBanner failed", "Boom failed",
            ])
        }
    }
}
