import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

protocol Alertable: Error {}
struct RenderError: Alertable, Equatable, CustomStringConvertible {
    var description: String { "render failed" }
}
struct NetworkError: Alertable, Equatable, CustomStringConvertible {
    var description: String { "offline" }
}

@Suite struct ErrorTransformTests {
    @Test func anErrorHandlerTransformsAnErrorIntoAnotherThatLaterErrorHandlersSeeByType() {
        let f = Fixture()
        f.a.onError(Boom.self, label: "to-render") { _, _ in .transformedError(RenderError()) }
        f.a.onError(Boom.self, label: "late-boom") { _, _ in .handled }
        f.a.onError(RenderError.self, label: "same-node-render") { _, _ in .ignored }
        f.app.onError(RenderError.self, label: "app-render") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a1.report(Boom())
        #expect(f.take() == [
            "raise Boom at app/a/a1 bubble",
            "call app/a bubble to-render -> transformedError",
            "raise RenderError at app/a/a1 bubble from Boom",
            "call app/a bubble same-node-render -> ignored",
            "call app bubble app-render -> handled",
            "end Boom delivered",
            "end RenderError delivered",
        ])
        #expect(result.finalEventID > result.eventID)
    }

    @Test func aProtocolTypedErrorHandlerCatchesEveryConformingError() {
        let f = Fixture()
        let seen = Collector()
        f.app.onError((any Alertable).self, label: "alerts") { error, _ in
            seen.append("\(error)")
            return .handled
        }
        f.a.report(RenderError())
        f.a.report(NetworkError())
        let uncaught = f.a.report(Boom())
        #expect(seen.values == ["render failed", "offline"])
        #expect(uncaught.status == .unhandled)
    }

    @Test func anEventHandlerCannotTransformAnEventIntoAnError() {
        let f = Fixture()
        f.a.on(Ping.self, label: "wrong") { _, _ in .transformedError(Boom()) }
        let result = f.a.raise(Ping())
        #expect(result.status.name == "failed")
        #expect(result.status.description.hasPrefix("failed: handler 'wrong' transformed an event into an error; only error handlers transform errors"))
    }

    @Test func aTransformedErrorIsJournaledLinkedToTheOldOneAndReplaysExactly() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let screen = EventNode("screen", parent: app)
            screen.onError(Boom.self, label: "to-render") { _, _ in .transformedError(RenderError()) }
            app.onError((any Alertable).self, label: "alerts") { _, _ in .handled }
            screen.report(Boom())
            try journal.flush()
            let reader = try JournalReader(path: journal.path)
            let rows = try reader.rows("SELECT event_type, kind, transformed_from_event_id IS NOT NULL, result FROM event_history ORDER BY seq")
            #expect(rows.map { $0.map(\.description).joined(separator: "|") } == ["Boom|error|0|delivered", "RenderError|error|1|delivered"])
            let outcomes = try reader.rows("SELECT handler_label, outcome FROM delivery_history ORDER BY seq")
            #expect(outcomes.map { $0.map(\.description).joined(separator: "|") } == ["to-render|transformedError", "alerts|handled"])
            var findings: [ReplayFinding] = []
            try Replayer(journal: journal.path).replay { findings.append($0) }
            #expect(findings.map(\.classification) == [.delivered])
            #expect(findings.first?.transforms.count == 1)
        }
    }
}

@Suite struct HookTests {
    @Test func deadLetterHooksAddUpAndEachTokenRemovesItsOwn() {
        let f = Fixture()
        let seen = Collector()
        let first = f.bus.onDeadLetter { _ in seen.append("first") }
        f.bus.onDeadLetter { _ in seen.append("second") }
        f.a.raise(Ping())
        first.remove()
        f.a.raise(Ping())
        #expect(seen.values == ["first", "second", "second"])
    }

    @Test func aNodeIdTurnsIntoItsPathWhileTheNodeIsInTheTree() {
        let f = Fixture()
        #expect(f.bus.path(of: f.a1.id) == "app/a/a1")
        let gone = EventNode("gone", parent: f.b)
        let id = gone.id
        gone.release()
        #expect(f.bus.path(of: id) == nil)
    }
}
