import EventTree
import EventTreeTesting
import Testing

@Suite struct TreeTests {
    @Test func nodesKnowTheirNamePathParentAndChildren() {
        let f = Fixture()
        #expect(f.a1.path == "app/a/a1")
        #expect(f.a1.parent === f.a)
        #expect(f.a.children.map(\.name) == ["a1", "a2"])
        #expect(f.app.parent == nil)
        f.a.rename(to: "alpha")
        #expect(f.a1.path == "app/alpha/a1")
    }

    @Test func everyTreeChangeIsRecordedWithThePathsOfTheMoment() throws {
        let f = Fixture()
        f.recorder.clear()
        let c = EventNode("c", bus: f.bus)
        try f.b.attach(c)
        try c.move(to: f.a, at: 0)
        c.rename(to: "c2")
        c.detach()
        c.release()
        #expect(f.take() == [
            "create c", "attach app/b/c", "move app/a/c", "rename app/a/c -> c2", "detach app/a/c2", "release c2",
        ])
    }

    @Test func refusedChangesLeaveTheTreeUnchanged() {
        let f = Fixture()
        let other = EventNode("other", bus: EventBus())
        #expect(throws: TreeError.wouldCreateCycle(node: f.a.id, parent: f.a1.id)) { try f.a1.attach(f.a) }
        #expect(throws: TreeError.wouldCreateCycle(node: f.a.id, parent: f.a.id)) { try f.a.attach(f.a) }
        #expect(throws: TreeError.differentBus(node: other.id, parent: f.a.id)) { try f.a.attach(other) }
        f.b1.release()
        #expect(throws: TreeError.released(f.b1.id)) { try f.a.attach(f.b1) }
        #expect(f.a.children.map(\.name) == ["a1", "a2"])
        #expect(TreeError.wouldCreateCycle(node: f.a.id, parent: f.a1.id).description
            == "cannot attach node \(f.a.id) under \(f.a1.id): \(f.a1.id) is \(f.a.id) itself or one of its descendants; detach it first")
    }

    @Test func releasingANodeDetachesEachChildIntoItsOwnSubtree() {
        let f = Fixture()
        f.recorder.clear()
        f.a.release()
        #expect(f.take() == ["detach app/a/a1", "detach app/a/a2", "release app/a"])
        #expect(f.a1.parent == nil)
        #expect(f.a1.path == "a1")
        #expect(f.app.children.map(\.name) == ["b"])
        #expect(f.a.isReleased)
    }

    @Test func theTreeKeepsNoNodeAliveAndAReleasedNodeFreesItsHandlers() {
        let bus = EventBus()
        let app = EventNode("app", bus: bus)
        final class Owner: Sendable {}
        weak var weakNode: EventNode?
        weak var weakCaptured: Owner?
        do {
            let node = EventNode("screen", parent: app)
            let captured = Owner()
            node.on(Ping.self) { _, _ in
                _ = captured
                return .handled
            }
            weakNode = node
            weakCaptured = captured
            app.raise(Ping(), mode: .broadcast)
        }
        #expect(weakNode == nil)
        #expect(weakCaptured == nil)
        #expect(app.children.isEmpty)
    }

    @Test func aHandlerCapturingItsOwnNodeWeaklyMakesNoCycle() {
        let bus = EventBus()
        weak var weakNode: EventNode?
        do {
            let node = EventNode("screen", bus: bus)
            node.on(Ping.self) { [weak node] _, _ in
                _ = node?.name
                return .handled
            }
            weakNode = node
        }
        #expect(weakNode == nil)
    }

    @Test func aRaiseAtAReleasedNodeReachesNobodyAndIsADeadLetter() {
        let f = Fixture()
        f.everywhere()
        f.a1.release()
        f.recorder.clear()
        let result = f.a1.raise(Ping())
        #expect(result.status == .unhandled)
        #expect(f.take() == [
            "raise Ping at app/a/a1 bubble",
            "undelivered app/a/a1 target",
            "end Ping unhandled",
            "dead letter Ping",
        ])
    }

    @Test func theBusEndsItsSessionWhenReleased() {
        let recorder = TraceRecorder()
        do {
            let bus = EventBus(recorder: recorder)
            _ = EventNode("app", bus: bus)
        }
        let facts = recorder.records.map(\.fact)
        guard case .sessionStarted = facts.first, case .sessionEnded = facts.last else {
            Issue.record("expected a session start and end, got \(facts)")
            return
        }
    }

    @Test func idsAreSequenceNumbersInTheOrderThingsHappened() {
        let f = Fixture()
        let token = f.a.on(Ping.self) { _, _ in .handled }
        let result = f.a.raise(Ping())
        #expect(f.app.id < f.a.id)
        #expect(f.b1.id.rawValue < token.id.rawValue)
        #expect(token.id.rawValue < result.eventID.rawValue)
        let seqs = f.recorder.records.map(\.seq)
        #expect(seqs == Array(seqs.first!...seqs.last!))
    }
}

@Suite struct MemoryTests {
    @Test func aBusAndItsNodesAreFreedWhenTheAppLetsGoOfThem() {
        weak var weakBus: EventBus?
        weak var weakNode: EventNode?
        do {
            let fixture = Fixture()
            fixture.everywhere()
            fixture.a1.raise(Ping())
            weakBus = fixture.bus
            weakNode = fixture.a1
        }
        #expect(weakNode == nil)
        #expect(weakBus == nil)
    }

    /// Something a handler's closure holds.
    final class Held: Sendable {}

    @Test func aHandlersClosureIsFreedWhenItsTokenIsRemovedOrItsNodeReleased() {
        let fixture = Fixture()
        weak var removed: Held?
        weak var released: Held?
        do {
            let one = Held()
            let two = Held()
            removed = one
            released = two
            let token = fixture.a.on(Ping.self, label: "one") { _, _ in withExtendedLifetime(one) { .handled } }
            fixture.b1.on(Ping.self, label: "two") { _, _ in withExtendedLifetime(two) { .handled } }
            fixture.a1.raise(Ping())
            token.remove()
        }
        #expect(removed == nil)
        #expect(released != nil)
        fixture.b1.release()
        #expect(released == nil)
    }

    @Test func aJournaledBusIsFreedToo() async throws {
        weak var weakBus: EventBus?
        try await withTemporaryJournal { journal in
            do {
                let bus = EventBus(recorder: journal)
                let app = EventNode("app", bus: bus)
                app.on(Ping.self, label: "h") { _, _ in .handled }
                app.raise(Ping())
                bus.end()
                weakBus = bus
            }
            try journal.flush()
        }
        #expect(weakBus == nil)
    }
}
