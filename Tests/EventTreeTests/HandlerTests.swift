import EventTree
import EventTreeTesting
import Testing

@Suite struct HandlerTests {
    @Test func handlersOnOneNodeRunInRegistrationOrder() {
        let f = Fixture()
        for label in ["first", "second", "third"] {
            f.a.on(Ping.self, label: label) { _, _ in .handled }
        }
        f.recorder.clear()
        f.a.raise(Ping())
        #expect(f.recorder.calls == [
            "app/a target first -> handled", "app/a target second -> handled", "app/a target third -> handled",
        ])
    }

    @Test func aProtocolTypedHandlerReceivesEveryConformingEvent() {
        let f = Fixture()
        f.app.on((any Audited).self, label: "audit") { _, _ in .handled }
        f.app.on(Login.self, label: "login") { _, _ in .handled }
        f.recorder.clear()
        f.a.raise(Login())
        f.a.raise(Logout())
        f.a.raise(Ping())
        #expect(f.take() == [
            "raise Login at app/a bubble",
            "call app bubble audit -> handled",
            "call app bubble login -> handled",
            "end Login delivered",
            "raise Logout at app/a bubble",
            "call app bubble audit -> handled",
            "end Logout delivered",
            "raise Ping at app/a bubble",
            "end Ping unhandled",
            "dead letter Ping",
        ])
    }

    @Test func anEveryEventHandlerSeesEventsAndRequests() {
        let f = Fixture()
        let seen = Collector()
        f.app.onAny(label: "all") { event, _ in
            seen.append(String(describing: type(of: event)))
            return .ignored
        }
        f.a.raise(Ping())
        _ = f.a.request(UserName())
        #expect(seen.values == ["Ping", "UserName"])
    }

    @Test func handlersListenOnlyInTheirPhases() {
        let f = Fixture()
        f.app.on(Ping.self, phases: .capture, label: "capture-only") { _, _ in .handled }
        f.app.on(Ping.self, label: "standard") { _, _ in .handled }
        f.recorder.clear()
        f.a.raise(Ping(), mode: .dispatch)
        #expect(f.recorder.calls == ["app capture capture-only -> handled", "app bubble standard -> handled"])
    }

    @Test func aTokenRemovesExactlyItsHandler() {
        let f = Fixture()
        let first = f.a.on(Ping.self, label: "first") { _, _ in .handled }
        f.a.on(Ping.self, label: "second") { _, _ in .handled }
        first.remove()
        first.remove()
        f.recorder.clear()
        f.a.raise(Ping())
        #expect(f.recorder.calls == ["app/a target second -> handled"])
    }

    @Test func registrationRecordsLabelTypePhasesAndSourceLocation() throws {
        let f = Fixture()
        let line = #line + 1
        let token = f.a.on(Login.self, phases: [.capture, .bubble], label: "audit") { _, _ in .handled }
        let added = f.recorder.records.compactMap { record -> HandlerRegistration? in
            if case .handlerAdded(let registration) = record.fact { return registration }
            return nil
        }
        let registration = try #require(added.last)
        #expect(registration.id == token.id)
        #expect(registration.node == f.a.id)
        #expect(registration.label == "audit")
        #expect(registration.eventType == "Login")
        #expect(registration.phases == [.capture, .bubble])
        #expect(registration.location == "EventTreeTests/HandlerTests.swift:\(line)")
    }

    @Test func aHandlerWithoutALabelIsNamedAfterItsType() {
        let f = Fixture()
        f.a.on(Ping.self) { _, _ in .handled }
        f.a.onAny { _, _ in .handled }
        f.a.onError { _, _ in .handled }
        #expect(f.take().suffix(3) == ["add Ping handler on app/a", "add any handler on app/a", "add error handler on app/a"])
    }

    @Test func theContextNamesEventOriginNodePhaseAndCause() throws {
        let f = Fixture()
        let contexts = ContextBox()
        f.a.on(Ping.self, label: "record") { _, context in
            contexts.append(context)
            return .handled
        }
        f.b.on(Pong.self, label: "raise-ping") { _, _ in
            f.a1.raise(Ping())
            return .handled
        }
        let outer = f.b.raise(Pong())
        let seen = contexts.values
        try #require(seen.count == 1)
        let context = seen[0]
        #expect(context.origin == f.a1.id)
        #expect(context.nodeID == f.a.id)
        #expect(context.node === f.a)
        #expect(context.path == "app/a")
        #expect(context.phase == .bubble)
        #expect(context.cause == outer.eventID)
        #expect(context.eventID > outer.eventID)
    }

    @Test func ignoringCountsAsNotActing() {
        let f = Fixture()
        f.a.on(Ping.self, label: "shrug") { _, _ in .ignored }
        f.recorder.clear()
        let result = f.a.raise(Ping())
        #expect(result.status == .unhandled)
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target shrug -> ignored",
            "end Ping unhandled",
            "dead letter Ping",
        ])
    }
}

final class ContextBox: @unchecked Sendable {
    private let lock = NSLockLike()
    private var stored: [HandlerContext] = []
    func append(_ context: HandlerContext) { lock.run { stored.append(context) } }
    var values: [HandlerContext] { lock.run { stored } }
}

/// A handler for a type that can never be delivered is stopped at registration (Swift
/// cannot refuse it at compile time: `on(_:)` also takes protocol types).
@Suite struct UnmatchableHandlerTests {
    @Test func aHandlerForATypeThatIsNotAnEventStopsTheProgramWithTheReason() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = EventNode("app", bus: EventBus())
            app.on(Int.self, label: "never") { _, _ in .handled }
        }
        let message = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("on(Int.self) registers a handler that could never be called: Int is not an Event; make it conform, or register for a protocol the events adopt"))
    }

    @Test func anErrorHandlerForATypeThatIsNotAnErrorStopsTooButProtocolTypesPass() async {
        await #expect(processExitsWith: .failure) {
            EventNode("app", bus: EventBus()).onError(String.self) { _, _ in .handled }
        }
        let passed = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let app = EventNode("app", bus: EventBus())
            app.on((any Event).self) { _, _ in .handled }
            app.onError((any CustomStringConvertible & Sendable).self) { _, _ in .handled }
            app.on(Ping.self) { _, _ in .handled }
        }
        #expect(passed?.standardErrorContent == [])
    }
}
