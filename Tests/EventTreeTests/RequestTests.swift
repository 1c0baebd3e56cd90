import EventTree
import EventTreeTesting
import Testing

@Suite struct RequestTests {
    @Test func theFirstAnswerStopsTheRouteAndIsReturned() {
        let f = Fixture()
        f.a.on(UserName.self, label: "a-shrug") { _, _ in .handled }
        f.app.on(UserName.self, label: "app-answer") { _, _ in .answered("ada") }
        f.app.on(UserName.self, label: "app-late") { _, _ in .answered("bob") }
        f.recorder.clear()
        let result = f.a1.request(UserName())
        #expect(result.answer == "ada")
        #expect(result.status.name == "answered")
        #expect(result.status.site?.label == "app-answer")
        #expect(f.take() == [
            "raise UserName at app/a/a1 bubble",
            "call app/a bubble a-shrug -> handled",
            "call app bubble app-answer -> answered (ada)",
            "end UserName answered by app-answer at app bubble",
        ])
    }

    @Test func noAnswerIsAnExplicitUnansweredResult() {
        let f = Fixture()
        f.a.on(UserName.self, label: "shrug") { _, _ in .handled }
        let result = f.a1.request(UserName())
        #expect(result.status == .unanswered)
        #expect(result.answer == nil)
        #expect(f.recorder.lines.suffix(1) == ["end UserName unanswered"])
    }

    @Test func aRequestNobodyActsOnIsUnansweredAndADeadLetter() {
        let f = Fixture()
        let letters = Collector()
        f.bus.onDeadLetter { letters.append($0.typeName) }
        let result = f.a1.request(UserName())
        #expect(result.status == .unanswered)
        #expect(letters.values == ["UserName"])
        #expect(f.recorder.lines.suffix(2) == ["end UserName unanswered", "dead letter UserName"])
    }

    @Test func answeringAnOrdinaryEventFailsTheCall() {
        let f = Fixture()
        f.a.on(Ping.self, label: "confused") { _, _ in .answered(1) }
        f.recorder.clear()
        let result = f.a.raise(Ping())
        guard case .failed(let failure) = result.status else {
            Issue.record("expected failed, got \(result.status)")
            return
        }
        #expect(failure.message == "a handler answered Ping, which is not an EventRequest; return .handled or make the event an EventRequest")
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target confused -> failed (a handler answered Ping, which is not an EventRequest; return .handled or make the event an EventRequest)",
            "raise DeliveryError at app/a bubble cause Ping",
            "end DeliveryError unhandled",
            "unhandled error DeliveryError",
            "end Ping failed by confused at app/a target: a handler answered Ping, which is not an EventRequest; return .handled or make the event an EventRequest",
        ])
    }

    @Test func anAnswerOfTheWrongTypeFailsTheCallAndTheRouteGoesOn() {
        let f = Fixture()
        f.a.on(Count.self, label: "wrong") { _, _ in .answered("seven") }
        f.app.on(Count.self, label: "right") { _, _ in .answered(7) }
        let result = f.a.request(Count())
        #expect(result.answer == 7)
        guard case .answered(let site) = result.status else {
            Issue.record("expected answered, got \(result.status)")
            return
        }
        // The right answer stops the route, so the result names it, not the failure.
        #expect(site.label == "right")
        #expect(f.recorder.calls.first == "app/a target wrong -> failed (a handler answered Count with a value of type String, which is not its Answer type)")
    }
}
