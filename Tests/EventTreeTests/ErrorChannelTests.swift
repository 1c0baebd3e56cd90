import EventTree
import EventTreeTesting
import Testing

@Suite struct ErrorChannelTests {
    @Test func aThrowingHandlerRaisesItsErrorAtOnceBeforeTheNodesLaterHandlers() {
        let f = Fixture()
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.a.on(Ping.self, label: "after") { _, _ in .handled }
        f.app.onError(label: "catcher") { _, _ in .handled }
        f.app.on(Ping.self, label: "app-ping") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target thrower -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "call app bubble catcher -> handled",
            "end Boom delivered",
            "call app/a target after -> handled",
            "call app bubble app-ping -> handled",
            "end Ping failed by thrower at app/a target: boom",
        ])
        #expect(result.status == .failed(HandlerFailure(
            site: result.status.site!, message: "boom")))
    }

    @Test func onlyErrorHandlersSeeErrorsNeverEveryEventHandlers() {
        let f = Fixture()
        let seen = Collector()
        f.app.onAny(label: "all") { event, _ in
            seen.append("\(type(of: event))")
            return .handled
        }
        f.app.onError(label: "errors") { error, _ in
            seen.append("error \(error)")
            return .handled
        }
        f.a.report(Boom())
        #expect(seen.values == ["error boom"])
    }

    @Test func typedErrorHandlersMatchByDynamicCast() {
        let f = Fixture()
        f.a.onError(OtherError.self, label: "other") { _, _ in .handled }
        f.app.onError(Boom.self, label: "boom") { _, _ in .handled }
        f.recorder.clear()
        f.a1.report(Boom())
        #expect(f.recorder.calls == ["app bubble boom -> handled"])
    }

    @Test func anErrorsOriginStepIsTargetAndErrorHandlersHavePhases() {
        let f = Fixture()
        f.a.onError(phases: .target, label: "target-only") { _, _ in .handled }
        f.app.onError(phases: .target, label: "root-target-only") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a.report(Boom())
        #expect(result.status == .delivered)
        #expect(f.recorder.calls == ["app/a target target-only -> handled"])
    }

    @Test func anUncaughtErrorGoesToTheHookOnceAndIsJournaled() {
        let f = Fixture()
        let errors = Collector()
        f.bus.onUnhandledError { raised in
            if case .error(let error) = raised.payload { errors.append("\(error) at \(raised.origin == f.a1.id)") }
        }
        f.a1.report(Boom())
        #expect(errors.values == ["boom at true"])
        #expect(f.recorder.lines.suffix(3) == ["raise Boom at app/a/a1 bubble", "end Boom unhandled", "unhandled error Boom"])
    }

    @Test func anEventWhoseOnlyHandlerThrewIsNoDeadLetter() {
        let f = Fixture()
        let letters = Collector()
        f.bus.onDeadLetter { letters.append($0.typeName) }
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        let result = f.a.raise(Ping())
        #expect(result.status.name == "failed")
        #expect(letters.values.isEmpty)
        #expect(!f.recorder.lines.contains("dead letter Ping"))
    }

    @Test func policyStopStopsAtOnceAndStillRaisesTheError() {
        let f = Fixture()
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.a.on(Ping.self, label: "after") { _, _ in .handled }
        f.app.on(Ping.self, label: "app") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a.raise(Ping(), onFailure: .stop)
        #expect(result.status.name == "failed")
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target thrower -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "end Boom unhandled",
            "unhandled error Boom",
            "end Ping failed by thrower at app/a target: boom",
        ])
    }

    @Test func theFirstFailureIsNamedAndEveryFailureIsJournaled() {
        let f = Fixture()
        f.a.on(Ping.self, label: "first") { _, _ in throw Boom(text: "one") }
        f.app.on(Ping.self, label: "second") { _, _ in throw Boom(text: "two") }
        let result = f.a.raise(Ping())
        #expect(result.status.site?.label == "first")
        #expect(f.recorder.calls.filter { $0.contains("failed") } == [
            "app/a target first -> failed (one)", "app bubble second -> failed (two)",
        ])
    }

    @Test func aConsumerStillWinsOverAnEarlierFailure() {
        let f = Fixture()
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.app.on(Ping.self, label: "stopper") { _, _ in .consumed }
        #expect(f.a.raise(Ping()).status.name == "consumed")
    }

    @Test func convertingAnErrorStopsItAndRaisesTheEventFromTheConvertingNode() throws {
        let f = Fixture()
        f.a.onError(label: "convert") { error, _ in .transformed(NamedEvent("failed", ["why": "\(error)"])) }
        f.app.onError(label: "app-errors") { _, _ in .handled }
        let seen = Collector()
        f.app.on(NamedEvent.self, label: "app-named") { event, context in
            seen.append("\(event.name) \(event.parameters["why"] ?? "") from \(context.origin == f.a.id)")
            return .handled
        }
        f.recorder.clear()
        let result = f.a1.report(Boom())
        #expect(f.take() == [
            "raise Boom at app/a/a1 bubble",
            "call app/a bubble convert -> transformed",
            "raise NamedEvent at app/a bubble cause Boom",
            "call app bubble app-named -> handled",
            "end NamedEvent delivered",
            "end Boom consumed by convert at app/a bubble",
        ])
        #expect(seen.values == ["failed boom from true"])
        #expect(result.status.name == "consumed")
        let raises = f.recorder.records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        try #require(raises.count == 2)
        #expect(raises[1].cause == raises[0].id)
        #expect(raises[1].transformedFrom == nil)
    }

    @Test func aThrowingErrorHandlerDoesNotCatchAndRaisesNothingMore() {
        let f = Fixture()
        let errors = Collector()
        f.bus.onUnhandledError { _ in errors.append("unhandled") }
        f.a.onError(label: "bad-catcher") { _, _ in throw OtherError() }
        f.recorder.clear()
        let result = f.a.report(Boom())
        #expect(result.status.name == "failed")
        #expect(errors.values == ["unhandled"])
        #expect(f.take() == [
            "raise Boom at app/a bubble",
            "call app/a target bad-catcher -> failed (OtherError())",
            "end Boom failed by bad-catcher at app/a target: OtherError()",
            "unhandled error Boom",
        ])
    }

    @Test func anErrorRaisedWhileHandlingAnErrorKeepsItsCause() throws {
        let f = Fixture()
        f.a.onError(label: "report-again") { _, context in
            context.node?.parent?.report(OtherError())
            return .handled
        }
        f.app.onError(label: "root") { _, _ in .handled }
        let first = f.a.report(Boom())
        let raises = f.recorder.records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        try #require(raises.count == 2)
        #expect(raises[1].cause == first.eventID)
        #expect(raises[1].typeName == "OtherError")
    }
}
