import EventTree
import EventTreeTesting
import Testing

@Suite struct DeliveryModeTests {
    @Test func bubbleGoesFromTheOriginUpToTheRoot() {
        let f = Fixture()
        f.everywhere()
        f.recorder.clear()
        f.a1.raise(Ping(), mode: .bubble)
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "call app/a/a1 target a1 -> handled",
            "call app/a bubble a -> handled",
            "call app bubble app -> handled",
            "end Ping delivered",
        ])
    }

    @Test func dispatchCapturesDownThenTargetsThenBubblesUp() {
        let f = Fixture()
        f.everywhere()
        f.recorder.clear()
        f.a1.raise(Ping(), mode: .dispatch)
        #expect(f.take() == [
            "raise Ping at app/a/a1 dispatch",
            "call app capture app -> handled",
            "call app/a capture a -> handled",
            "call app/a/a1 target a1 -> handled",
            "call app/a bubble a -> handled",
            "call app bubble app -> handled",
            "end Ping delivered",
        ])
    }

    @Test func broadcastBubblesThenPropagatesThroughEveryNodeInAttachOrder() {
        let f = Fixture()
        f.everywhere()
        f.recorder.clear()
        f.b1.raise(Ping(), mode: .broadcast)
        #expect(f.take() == [
            "raise Ping at app/b/b1 broadcast",
            "call app/b/b1 target b1 -> handled",
            "call app/b bubble b -> handled",
            "call app bubble app -> handled",
            "call app propagate app -> handled",
            "call app/a propagate a -> handled",
            "call app/a/a1 propagate a1 -> handled",
            "call app/a/a2 propagate a2 -> handled",
            "call app/b propagate b -> handled",
            "call app/b/b1 propagate b1 -> handled",
            "end Ping delivered",
        ])
    }

    @Test func descendVisitsTheOriginOnceThenItsDescendants() {
        let f = Fixture()
        f.everywhere()
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend)
        #expect(f.recorder.calls == [
            "app target app -> handled",
            "app/a propagate a -> handled",
            "app/a/a1 propagate a1 -> handled",
            "app/a/a2 propagate a2 -> handled",
            "app/b propagate b -> handled",
            "app/b/b1 propagate b1 -> handled",
        ])
    }

    @Test func descendFirstHandlerStopsEachBranchAtItsFirstHandler() {
        let f = Fixture()
        for node in [f.app, f.a, f.a1, f.b1] {
            node.on(Ping.self, label: node.name) { _, _ in .handled }
        }
        // A handler that does not listen in the propagate phase does not count.
        f.b.on(Ping.self, phases: .target, label: "b-target") { _, _ in .handled }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.firstHandler))
        #expect(f.recorder.calls == [
            "app target app -> handled",
            "app/a propagate a -> handled",
            "app/b/b1 propagate b1 -> handled",
        ])
    }

    @Test func descendFirstHandlerIgnoresHandlersOfOtherTypes() {
        let f = Fixture()
        f.a.on(Pong.self, label: "a-pong") { _, _ in .handled }
        f.a1.on(Ping.self, label: "a1") { _, _ in .handled }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.firstHandler))
        #expect(f.recorder.calls == ["app/a/a1 propagate a1 -> handled"])
    }

    @Test func descendDeepestLevelVisitsOnlyTheDeepestLevelWithAHandler() {
        let f = Fixture()
        for node in [f.app, f.a, f.a2, f.b, f.b1] {
            node.on(Ping.self, label: node.name) { _, _ in .handled }
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.deepestLevel))
        // Depth 2 holds a1, a2 and b1; a1 has no handler, so its step calls nothing.
        #expect(f.recorder.calls == [
            "app target app -> handled",
            "app/a/a2 propagate a2 -> handled",
            "app/b/b1 propagate b1 -> handled",
        ])
    }

    @Test func descendFiltersNeverApplyToTheOriginsTargetStep() {
        let f = Fixture()
        f.a.on(Ping.self, phases: .target, label: "a") { _, _ in .handled }
        f.recorder.clear()
        for filter in DescendFilter.allCases {
            f.a.raise(Ping(), mode: .descend(filter))
        }
        #expect(f.recorder.calls == Array(repeating: "app/a target a -> handled", count: 3))
    }

    // DESIGN A9: both descend filters are judged on the registrations at raise time.

    @Test func descendFirstHandlerKeepsABranchStoppedWhenItsHandlerIsRemovedDuringDelivery() {
        let f = Fixture()
        let token = f.a.on(Ping.self, label: "a") { _, _ in .handled }
        f.a1.on(Ping.self, label: "a1") { _, _ in .handled }
        f.app.on(Ping.self, phases: .target, label: "remove-a") { _, _ in
            token.remove()
            return .handled
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.firstHandler))
        // `a` had the branch's first handler when the event was raised: a1 is below it.
        #expect(f.recorder.calls == ["app target remove-a -> handled"])
    }

    @Test func descendFirstHandlerIgnoresAHandlerAddedAboveDuringDelivery() {
        let f = Fixture()
        f.a1.on(Ping.self, label: "a1") { _, _ in .handled }
        f.app.on(Ping.self, phases: .target, label: "add-a") { _, _ in
            f.a.on(Ping.self, label: "late-a") { _, _ in .handled }
            return .handled
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.firstHandler))
        #expect(f.recorder.calls == [
            "app target add-a -> handled",
            "app/a/a1 propagate a1 -> handled",
        ])
    }

    @Test func descendDeepestLevelIgnoresAHandlerAddedDeeperDuringDelivery() {
        let f = Fixture()
        f.a.on(Ping.self, label: "a") { _, _ in .handled }
        f.b.on(Ping.self, label: "b") { _, _ in .handled }
        f.app.on(Ping.self, phases: .target, label: "add-a1") { _, _ in
            f.a1.on(Ping.self, label: "late-a1") { _, _ in .handled }
            return .handled
        }
        f.a.on(Ping.self, label: "add-b1") { _, _ in
            f.b1.on(Ping.self, label: "late-b1") { _, _ in .handled }
            return .handled
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.deepestLevel))
        #expect(f.recorder.calls == [
            "app target add-a1 -> handled",
            "app/a propagate a -> handled",
            "app/a propagate add-b1 -> handled",
            "app/b propagate b -> handled",
        ])
    }

    @Test func descendDeepestLevelKeepsItsLevelWhenItsHandlersAreRemovedDuringDelivery() {
        let f = Fixture()
        f.a.on(Ping.self, label: "a") { _, _ in .handled }
        let deep = f.a1.on(Ping.self, label: "a1") { _, _ in .handled }
        f.b1.on(Ping.self, label: "b1") { _, _ in .handled }
        f.app.on(Ping.self, phases: .target, label: "remove-a1") { _, _ in
            deep.remove()
            return .handled
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend(.deepestLevel))
        #expect(f.recorder.calls == [
            "app target remove-a1 -> handled",
            "app/b/b1 propagate b1 -> handled",
        ])
    }

    @Test func siblingOrderIsTheAttachOrderIncludingExplicitPositions() throws {
        let f = Fixture()
        let a0 = EventNode("a0", bus: f.bus)
        try f.a.attach(a0, at: 0)
        try f.b1.move(to: f.a, at: 1)
        f.everywhere(phases: .propagate)
        a0.on(Ping.self, label: "a0") { _, _ in .handled }
        f.recorder.clear()
        f.a.raise(Ping(), mode: .descend)
        #expect(f.recorder.calls == [
            "app/a/a0 propagate a0 -> handled",
            "app/a/b1 propagate b1 -> handled",
            "app/a/a1 propagate a1 -> handled",
            "app/a/a2 propagate a2 -> handled",
        ])
    }

    @Test func aRaiseInADetachedSubtreeRoutesWithinThatSubtree() {
        let f = Fixture()
        f.everywhere()
        f.a.detach()
        f.recorder.clear()
        f.a1.raise(Ping(), mode: .broadcast)
        #expect(f.recorder.calls == [
            "a/a1 target a1 -> handled",
            "a bubble a -> handled",
            "a propagate a -> handled",
            "a/a1 propagate a1 -> handled",
            "a/a2 propagate a2 -> handled",
        ])
    }

    @Test func aStepWithNoMatchingHandlerCallsNothing() {
        let f = Fixture()
        f.app.on(Ping.self, label: "app") { _, _ in .handled }
        f.recorder.clear()
        f.a1.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "call app bubble app -> handled",
            "end Ping delivered",
        ])
    }
}
