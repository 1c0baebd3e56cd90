import EventTree
import EventTreeTesting
import Testing

@Suite struct OutcomeTests {
    @Test func consumedLetsTheStepFinishButStopsEveryLaterStep() {
        let f = Fixture()
        f.everywhere()
        f.a.on(Ping.self, label: "stop") { _, _ in .consumed }
        f.a.on(Ping.self, label: "after") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a1.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "call app/a/a1 target a1 -> handled",
            "call app/a bubble a -> handled",
            "call app/a bubble stop -> consumed",
            "call app/a bubble after -> handled",
            "end Ping consumed by stop at app/a bubble",
        ])
        #expect(result.status.site?.label == "stop")
        #expect(result.status.site?.node == f.a.id)
    }

    @Test func consumedImmediatelyStopsEvenTheNodesRemainingHandlers() {
        let f = Fixture()
        f.everywhere()
        f.a.on(Ping.self, label: "stop") { _, _ in .consumedImmediately }
        f.a.on(Ping.self, label: "after") { _, _ in .handled }
        f.recorder.clear()
        f.a1.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "call app/a/a1 target a1 -> handled",
            "call app/a bubble a -> handled",
            "call app/a bubble stop -> consumedImmediately",
            "end Ping consumed by stop at app/a bubble",
        ])
    }

    @Test func consumingAtTheRootsBubbleStepCancelsItsPropagateStep() {
        let f = Fixture()
        f.everywhere()
        f.app.on(Ping.self, phases: .bubble, label: "root-stop") { _, _ in .consumed }
        f.recorder.clear()
        f.a.raise(Ping(), mode: .broadcast)
        #expect(f.recorder.calls == [
            "app/a target a -> handled",
            "app bubble app -> handled",
            "app bubble root-stop -> consumed",
        ])
    }

    @Test func theFirstOfTwoConsumersInAStepIsTheOneNamed() {
        let f = Fixture()
        f.a.on(Ping.self, label: "one") { _, _ in .consumed }
        f.a.on(Ping.self, label: "two") { _, _ in .consumedImmediately }
        let result = f.a.raise(Ping())
        #expect(result.status.site?.label == "one")
    }

    @Test func aTransformCarriesTheNewEventFromTheNextHandlerOn() {
        let f = Fixture()
        f.a.on(Ping.self, label: "to-pong") { _, _ in .transformed(Pong()) }
        f.a.on(Ping.self, label: "late-ping") { _, _ in .handled }
        f.a.on(Pong.self, label: "same-node-pong") { _, _ in .handled }
        f.app.on(Ping.self, label: "app-ping") { _, _ in .handled }
        f.app.on(Pong.self, label: "app-pong") { _, _ in .handled }
        f.recorder.clear()
        let result = f.a1.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "call app/a bubble to-pong -> transformed",
            "raise Pong at app/a/a1 bubble from Ping",
            "call app/a bubble same-node-pong -> handled",
            "call app bubble app-pong -> handled",
            "end Ping delivered",
            "end Pong delivered",
        ])
        #expect(result.finalEventID > result.eventID)
    }

    @Test func transformsChainAndEachNewEventIsLinkedToTheOld() throws {
        let f = Fixture()
        f.a1.on(Ping.self, label: "1") { _, _ in .transformed(Pong()) }
        f.a.on(Pong.self, label: "2") { _, _ in .transformed(Greeting(text: "hello")) }
        let greeting = Collector()
        f.app.on(Greeting.self, label: "3") { event, _ in
            greeting.append(event.text)
            return .handled
        }
        let result = f.a1.raise(Ping())
        #expect(greeting.values == ["hello"])
        let raises = f.recorder.records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        try #require(raises.count == 3)
        #expect(raises.map(\.typeName) == ["Ping", "Pong", "Greeting"])
        #expect(raises[1].transformedFrom == raises[0].id)
        #expect(raises[2].transformedFrom == raises[1].id)
        #expect(raises.allSatisfy { $0.cause == nil && $0.origin == f.a1.id })
        #expect(result.eventID == raises[0].id)
        #expect(result.finalEventID == raises[2].id)
    }

    @Test func aTransformedEventKeepsTheCauseOfTheOldOne() throws {
        let f = Fixture()
        f.b.on(Pong.self, label: "raise") { _, _ in
            f.a.raise(Ping())
            return .handled
        }
        f.a.on(Ping.self, label: "to-greeting") { _, _ in .transformed(Greeting()) }
        let outer = f.b.raise(Pong())
        let raises = f.recorder.records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        try #require(raises.count == 3)
        #expect(raises[1].cause == outer.eventID)
        #expect(raises[2].cause == outer.eventID)
        #expect(raises[2].transformedFrom == raises[1].id)
    }
}
