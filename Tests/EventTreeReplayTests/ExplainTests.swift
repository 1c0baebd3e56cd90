import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

@Suite struct ExplainTests {
    /// Records the script, then hands a replayer and the script to `body`.
    func withScript(_ body: (Replayer, Script) throws -> Void) async throws {
        try await withTemporaryJournal { journal in
            let script = Script(recordingInto: journal)
            try journal.flush()
            try body(try Replayer(journal: journal.path), script)
        }
    }

    /// A raise at a node released before the nearest snapshot still names the path the
    /// node had (a tree rebuilt from a snapshot has not seen it released).
    @Test func aNodeReleasedBeforeTheSnapshotKeepsItsPathInExplain() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, process: "released")
            let app = EventNode("app", bus: bus)
            let screen = EventNode("screen", parent: app)
            let gone = EventNode("gone", parent: screen)
            gone.release()
            for index in 0..<1_100 { screen.rename(to: "screen\(index)") }
            gone.raise(Ping())
            try journal.flush()
            #expect(try JournalReader(path: journal.path).rows("SELECT count(*) FROM j_tree_snapshots").first?.first?.int == 1)
            let event = try #require(try JournalReader(path: journal.path).rows("SELECT event_id FROM j_events").first?.first?.int)
            let explanation = try Replayer(journal: journal.path).explain(event: EventID(rawValue: event))
            #expect(explanation.finding.originPath == "app/screen/gone")
            withExtendedLifetime([app, screen]) {}
        }
    }

    @Test func everyReasonANodeDidOrDidNotGetAnEvent() async throws {
        try await withScript { replayer, script in
            func why(_ event: String, _ node: String) throws -> NodeVerdict {
                try #require(try replayer.explain(event: script.events[event]!, node: node).node)
            }
            let stopLine = script.lines["a-stop"]!
            let stopped = try why("consumed", "app")
            #expect(stopped.reason == .stoppedEarlier)
            #expect(stopped.summary == "stopped earlier: a-stop (EventTreeReplayTests/ScriptedSessionTests.swift:\(stopLine)) at app/a in the bubble phase returned consumed, before step 3 (bubble) at app")

            let sibling = try why("consumed", "app/b")
            #expect(sibling.reason == .notOnRoute)
            #expect(sibling.summary == "not on this mode's route: a bubble route visits only the origin app/a/a1 and its ancestors, and app/b is not an ancestor of it")

            let received = try why("delivered", "app/a")
            #expect(received.reason == .received)
            #expect(received.received)
            #expect(received.summary == "received in the bubble phase (step 2 of 3): a-stop (EventTreeReplayTests/ScriptedSessionTests.swift:\(stopLine)) -> handled")

            let noHandler = try why("delivered", "app/a/a1")
            #expect(noHandler.reason == .noMatchingHandler)
            #expect(noHandler.summary == "reached in the target phase, but no handler was registered there")

            let wrongType = try why("answered", "app/a")
            #expect(wrongType.reason == .noMatchingHandler)
            #expect(wrongType.summary.hasPrefix("reached in the bubble phase, but no handler matched: a-stop ("))
            #expect(wrongType.summary.contains("it is registered for Ping, not Ask"))

            let threw = try why("failed", "app/b/b1")
            #expect(threw.reason == .handlerThrew)
            #expect(threw.summary.hasSuffix("threw: boom"))

            let released = try why("lost", "app/a/a2")
            #expect(released.reason == .releasedDuringDelivery)
            #expect(released.summary.hasPrefix("released during delivery at seq "))

            let moved = try why("dispatch", "app/b/b1")
            #expect(moved.reason == .notInTree)
            #expect(moved.summary.hasSuffix("(it was renamed or moved)"))

            let later = try why("consumed", "app/a/b1")
            #expect(later.reason == .notInTree)
            #expect(later.summary.contains("first appeared at seq"))

            let gone = try why("broadcast", "app/a/a2")
            #expect(gone.reason == .notInTree)
            #expect(gone.summary.contains("was released at seq"))

            #expect(throws: ReplayError.unknownNode(path: "app/nowhere", session: SessionID(rawValue: 1))) {
                try replayer.explain(event: script.events["consumed"]!, node: "app/nowhere")
            }
            #expect(throws: ReplayError.unknownEvent(EventID(rawValue: 999_999))) {
                try replayer.explain(event: EventID(rawValue: 999_999))
            }
        }
    }

    @Test func theRouteIsReportedStepByStep() async throws {
        try await withScript { replayer, script in
            let explanation = try replayer.explain(event: script.events["consumed"]!)
            #expect(explanation.steps.map { "\($0.number) \($0.nodePath) \($0.phase) \($0.reach) \($0.calls.map { "\($0.handler.label)=\($0.outcomeDescription)" })" } == [
                "1 app/a/a1 target reached []",
                "2 app/a bubble reached [\"a-stop=consumed\"]",
                "3 app bubble not reached []",
            ])
        }
    }

    @Test func whatIfShowsWhoWouldHaveReceivedIt() async throws {
        try await withScript { replayer, script in
            let handler = try #require(try replayer.topology(at: script.events["consumed"]!.rawValue).nodes
                .first { $0.path == "app/a" }).handlers.first
            #expect(handler == "a-stop")
            let stopID = try #require(replayer.handlerIDs(labelled: "a-stop").first)
            let without = try replayer.explain(event: script.events["consumed"]!, withoutHandler: stopID)
            #expect(without.variation?.hasPrefix("without a-stop (") == true)
            #expect(without.steps.flatMap { $0.calls }.map { "\($0.handler.label)@\($0.handler.nodePath)=\($0.outcomeDescription)" } == [
                "root@app=would be called",
            ])
            let ignoring = try replayer.explain(event: script.events["consumed"]!, ignoringConsumption: true)
            #expect(ignoring.steps.flatMap { $0.calls }.map { "\($0.handler.label)=\($0.outcomeDescription)" } == [
                "a-stop=consumed", "root=would be called",
            ])
            #expect(throws: ReplayError.unknownHandler(HandlerID(rawValue: 999_999))) {
                try replayer.explain(event: script.events["consumed"]!, withoutHandler: HandlerID(rawValue: 999_999))
            }
        }
    }

    /// Each handler a route step passed over says why, as a kind and in words.
    @Test func aPassedOverHandlerSaysWhyAsAKind() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let child = EventNode("child", parent: app)
            app.on(Ping.self, phases: .capture, label: "capture-only") { _, _ in .handled }
            app.on(Pong.self, label: "pongs") { _, _ in .handled }
            app.onError(label: "errors") { _, _ in .handled }
            app.on(Ping.self, label: "counts") { _, _ in .handled }
            let event = child.raise(Ping()).eventID
            try journal.flush()
            let explanation = try Replayer(journal: journal.path).explain(event: event)
            let step = try #require(explanation.steps.first { $0.nodePath == "app" })
            #expect(step.skipped.map(\.label) == ["capture-only", "pongs", "errors"])
            #expect(step.skipped.map(\.cause) == [.otherPhase, .otherType, .otherChannel])
            #expect(step.skipped[0].reason == "it does not listen in the bubble phase")
            withExtendedLifetime((app, child)) {}
        }
    }

    /// An event each handler call raises again, one level deeper, until `n` reaches its end.
    struct Relay: Event { var n: Int }

    @Test func aLongCauseChainIsToldByItsEndsAndItsLength() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, maximumNestingDepth: 200)
            let node = EventNode("relay", bus: bus)
            node.on(Relay.self, label: "relay") { event, context in
                if event.n < 150 { context.node?.raise(Relay(n: event.n + 1)) }
                return .handled
            }
            node.raise(Relay(n: 1))
            try journal.flush()
            let replayer = try Replayer(journal: journal.path)
            let events = try JournalReader(path: journal.path).rows("SELECT event_id FROM j_events ORDER BY event_id")
                .map { EventID(rawValue: Int($0[0].description)!) }
            #expect(events.count == 150)
            let explanation = try replayer.explain(event: events[149])
            // The outermost raise, the 50 nearest causes, the event: 98 causes between.
            #expect(explanation.causes.map(\.event) == [events[0]] + events[99...149])
            #expect(explanation.omittedCauses == 98)
            #expect(explanation.causes[1].from == events[98])
            #expect(explanation.causes[0].relation == .raisedByApp)

            let short = try replayer.explain(event: events[9])
            #expect(short.causes.map(\.event) == Array(events[...9]))
            #expect(short.omittedCauses == 0)
        }
    }
}
