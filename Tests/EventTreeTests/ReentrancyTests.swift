import EventTree
import EventTreeTesting
import Testing

@Suite struct ReentrancyTests {
    @Test func aNestedRaiseRunsToCompletionBeforeTheOuterOneContinues() {
        let f = Fixture()
        f.a.on(Ping.self, label: "raise-pong") { _, _ in
            f.b.raise(Pong())
            return .handled
        }
        f.app.on(Pong.self, label: "app-pong") { _, _ in .handled }
        f.app.on(Ping.self, label: "app-ping") { _, _ in .handled }
        f.recorder.clear()
        f.a1.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "raise Pong at app/b bubble cause Ping",
            "call app bubble app-pong -> handled",
            "end Pong delivered",
            "call app/a bubble raise-pong -> handled",
            "call app bubble app-ping -> handled",
            "end Ping delivered",
        ])
    }

    @Test func aNodeAttachedDuringDeliveryIsNotOnTheRoute() {
        let f = Fixture()
        let late = Box<EventNode>()
        f.app.on(Ping.self, phases: .bubble, label: "adopt") { _, _ in
            guard late.value == nil else { return .ignored }
            let node = EventNode("late", parent: f.app)
            node.on(Ping.self, label: "late") { _, _ in .handled }
            late.value = node
            return .handled
        }
        f.recorder.clear()
        f.a.raise(Ping(), mode: .broadcast)
        #expect(f.take() == [
            "raise Ping at app/a broadcast",
            "create late",
            "attach app/late",
            "add late on app/late",
            "call app bubble adopt -> handled",
            "end Ping delivered",
        ])
        f.a.raise(Ping(), mode: .broadcast)
        #expect(f.recorder.calls == [
            "app bubble adopt -> ignored",
            "app/late propagate late -> handled",
        ])
    }

    @Test func aNodeDetachedDuringDeliveryButAliveKeepsItsSteps() {
        let f = Fixture()
        f.everywhere(phases: .propagate)
        f.app.on(Ping.self, phases: .target, label: "detach-b") { _, _ in
            f.b.detach()
            return .handled
        }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .descend)
        #expect(f.take() == [
            "raise Ping at app descend",
            "detach app/b",
            "call app target detach-b -> handled",
            "call app/a propagate a -> handled",
            "call app/a/a1 propagate a1 -> handled",
            "call app/a/a2 propagate a2 -> handled",
            "call b propagate b -> handled",
            "call b/b1 propagate b1 -> handled",
            "end Ping delivered",
        ])
    }

    @Test func aNodeReleasedDuringDeliveryIsFreedAndItsStepsAreNotDelivered() {
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        let owner = Box<EventNode>()
        owner.value = EventNode("screen", parent: app)
        let leaf = EventNode("leaf", parent: owner.value!)
        weak let weakScreen = owner.value
        let seenFreed = Collector()
        app.on(Ping.self, phases: .target, label: "close-screen") { _, _ in
            owner.value = nil
            seenFreed.append("freed: \(weakScreen == nil)")
            return .handled
        }
        owner.value!.on(Ping.self, label: "screen") { _, _ in .handled }
        leaf.on(Ping.self, label: "leaf") { _, _ in .handled }
        recorder.clear()
        app.raise(Ping(), mode: .descend)
        #expect(seenFreed.values == ["freed: true"])
        #expect(recorder.lines == [
            "raise Ping at app descend",
            "detach app/screen/leaf",
            "remove screen on app/screen",
            "release app/screen",
            "call app target close-screen -> handled",
            "undelivered app/screen propagate (1 lost)",
            "call leaf propagate leaf -> handled",
            "end Ping delivered",
        ])
    }

    @Test func aNodeReleasedDuringItsOwnStepGetsNoneOfItsRemainingCalls() {
        let f = Fixture()
        let owner = Box<EventNode>()
        owner.value = EventNode("temp", parent: f.app)
        owner.value!.on(Ping.self, label: "release-self") { _, _ in
            owner.value = nil
            return .handled
        }
        owner.value!.on(Ping.self, label: "never") { _, _ in .handled }
        f.app.on(Ping.self, label: "app") { _, _ in .handled }
        f.recorder.clear()
        f.app.raise(Ping(), mode: .broadcast)
        #expect(f.take() == [
            "raise Ping at app broadcast",
            "call app target app -> handled",
            "call app propagate app -> handled",
            "remove release-self on app/temp",
            "remove never on app/temp",
            "release app/temp",
            "call app/temp propagate release-self -> handled",
            "undelivered app/temp propagate (1 lost)",
            "end Ping delivered",
        ])
    }

    @Test func aHandlerAddedDuringDeliveryRunsFromTheNextStepOnIncludingTheSameNode() {
        let f = Fixture()
        f.app.on(Ping.self, phases: .bubble, label: "add") { _, _ in
            f.app.on(Ping.self, label: "added") { _, _ in .handled }
            return .handled
        }
        f.recorder.clear()
        f.a.raise(Ping(), mode: .broadcast)
        #expect(f.recorder.calls == [
            "app bubble add -> handled",
            "app propagate added -> handled",
        ])
    }

    @Test func aHandlerRemovedDuringDeliveryIsNeverCalledNotEvenInTheCurrentStep() {
        let f = Fixture()
        let later = Box<HandlerToken>()
        f.a.on(Ping.self, label: "remover") { _, _ in
            later.value?.remove()
            return .handled
        }
        later.value = f.a.on(Ping.self, label: "removed") { _, _ in .handled }
        let elsewhere = f.app.on(Ping.self, label: "removed-too") { _, _ in .handled }
        f.a.on(Ping.self, label: "remove-elsewhere") { _, _ in
            elsewhere.remove()
            return .handled
        }
        f.recorder.clear()
        f.a.raise(Ping())
        #expect(f.recorder.calls == ["app/a target remover -> handled", "app/a target remove-elsewhere -> handled"])
    }

    @Test func aHandlerRegisteredOnAnotherThreadDoesNotDisturbASnapshotInUse() {
        let f = Fixture()
        f.everywhere()
        f.recorder.clear()
        f.a1.raise(Ping())
        #expect(f.recorder.calls.count == 3)
    }
}

/// A mutable reference for tests, guarded by a lock.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLockLike()
    private var stored: T?
    var value: T? {
        get { lock.run { stored } }
        set { lock.run { stored = newValue } }
    }
}
