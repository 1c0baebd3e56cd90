import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// A session cut short during a raise (its process crashed), then a session of a later run:
/// the raise that never ended is read from its own records, which end at its last call,
/// not followed to the journal's end (which held every later finding back with it).
@Suite struct UnendedRaiseTests {
    /// A session numbered by hand in `journal`: its start, a node `app` and a handler on it
    /// per (label, event type), with their first meetings.
    struct HandMade {
        let journal: Journal
        let session: SessionID
        let app: NodeID
        let handlers: [HandlerID]

        init(_ journal: Journal, handlers: [(label: String, type: String)]) {
            let numbers = journal.sequence
            self.journal = journal
            session = SessionID(rawValue: numbers.open())
            app = NodeID(rawValue: numbers.advance())
            self.handlers = handlers.map { _ in HandlerID(rawValue: numbers.advance()) }
            var changes = [
                FactRecord(seq: session.rawValue, fact: .sessionStarted(SessionInfo(
                    id: session, process: "crashes", host: "", appVersion: nil, startedAt: 1_800_000_000))),
                FactRecord(seq: app.rawValue, fact: .nodeCreated(app, name: "app")),
            ]
            for (handler, (label, type)) in zip(self.handlers, handlers) {
                changes.append(FactRecord(seq: handler.rawValue, fact: .handlerAdded(HandlerRegistration(
                    id: handler, node: app, label: label, eventType: type, channel: .events, phases: .standard,
                    fileID: "App/App.swift", line: 3))))
                changes.append(FactRecord(seq: numbers.advance(), fact: .handlerMatched(handler, eventType: type)))
            }
            journal.recordChange(changes, session: session)
        }

        /// The raise of a `type` (Ping or Pong) at `app`.
        func raised(_ id: EventID, _ type: String, cause: EventID? = nil, from: EventID? = nil) -> FactRecord {
            let payload: RaisedEvent.Payload = type == "Ping" ? .event(Ping()) : .event(Pong())
            return FactRecord(seq: id.rawValue, fact: .raised(RaisedEvent(
                id: id, typeName: type, payload: payload, origin: app, mode: .bubble, cause: cause,
                transformedFrom: from, raisedAt: 1_000)))
        }

        /// A call of `handler` at `app` for `event`.
        func call(_ seq: Int, _ event: EventID, _ handler: HandlerID, _ outcome: Outcome.Kind = .handled) -> FactRecord {
            FactRecord(seq: seq, fact: .handlerCalled(HandlerCall(
                event: event, node: app, phase: .target, handler: handler, outcome: outcome, startedAt: 2_000,
                nanoseconds: 1_000), detail: nil))
        }
    }

    @Test func aRaiseThatNeverEndedEndsAtItsLastRecord() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/cut-short.eventtree"
            // The first run, numbered by hand: its raise of Ping never ends.
            let first = try Journal(path: path)
            let made = HandMade(first, handlers: [("count", "Ping"), ("log", "Ping")])
            // Both handlers are called at the origin; the process dies before the raise ends.
            let event = EventID(rawValue: first.sequence.open())
            let calls = [first.sequence.advance(), first.sequence.advance()]
            _ = first.record(
                [made.raised(event, "Ping")] + zip(calls, made.handlers).map { made.call($0, event, $1) },
                session: made.session)
            try first.close()

            // The next run: three raises that end.
            let second = try Journal(path: path)
            let bus = EventBus(recorder: second)
            let root = EventNode("app", bus: bus)
            root.on(Ping.self, label: "count") { _, _ in .handled }
            root.on(Ping.self, label: "log") { _, _ in .handled }
            let later = (1...3).map { root.raise(Ping(n: $0)).eventID }
            bus.end()
            try second.close()

            let reader = try JournalReader(path: path)
            #expect(try reader.lastHistorySeq(ofChainFrom: event.rawValue) == calls[1])
            let unended = try #require(try reader.event(event))
            #expect(unended.finishedSeq == nil)
            #expect(try reader.lastDeliverySeq(of: unended) == calls[1])
            let ended = try #require(try reader.event(later[0]))
            #expect(try reader.lastDeliverySeq(of: ended) == ended.finishedSeq)
            #expect(try reader.lastHistorySeq(ofChainFrom: 999_999) == nil)

            let found = try findings(path)
            #expect(found.map(\.event.id) == [event] + later)
            #expect(found.map(\.calls) == [2, 2, 2, 2])
            let explanation = try Replayer(journal: path).explain(event: event)
            #expect(explanation.steps.flatMap(\.calls).count == 2)
        }
    }

    /// Two raises cut short on two threads: one had been transformed, the other had raised
    /// a nested event. The first's records end with its transform's; the second's, with
    /// what it raised (as a trace, which draws nested raises in their raise, follows them).
    @Test func aRaiseThatNeverEndedKeepsItsTransformAndWhatItRaised() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/cut-short.eventtree"
            let journal = try Journal(path: path)
            let numbers = journal.sequence
            let made = HandMade(journal, handlers: [("count", "Ping"), ("swap", "Ping"), ("pong", "Pong")])
            let (handlers, session) = (made.handlers, made.session)
            // Thread 1: Ping, counted, then swapped for Pong, which `pong` handles; no end.
            let transformed = EventID(rawValue: numbers.open())
            let counted = numbers.advance()
            let swapped = numbers.advance()
            let transform = EventID(rawValue: numbers.advance())
            let ponged = numbers.advance()
            _ = journal.record([
                made.raised(transformed, "Ping"), made.call(counted, transformed, handlers[0], .handled),
                made.call(swapped, transformed, handlers[1], .transformed), made.raised(transform, "Pong", from: transformed),
                made.call(ponged, transform, handlers[2], .handled),
            ], session: session)
            // Thread 2: Ping, whose first handler raised Pong, handled; neither ended.
            let outer = EventID(rawValue: numbers.open())
            let nested = EventID(rawValue: numbers.advance())
            let nestedCall = numbers.advance()
            _ = journal.record([
                made.raised(outer, "Ping"), made.raised(nested, "Pong", cause: outer), made.call(nestedCall, nested, handlers[2], .handled),
            ], session: session)
            try journal.close()

            let reader = try JournalReader(path: path)
            #expect(try reader.lastHistorySeq(ofChainFrom: transformed.rawValue) == ponged)
            #expect(try reader.lastHistorySeq(ofChainFrom: transform.rawValue) == ponged)
            #expect(try reader.lastHistorySeq(ofChainFrom: outer.rawValue) == outer.rawValue)
            #expect(try reader.lastHistorySeq(ofChainFrom: outer.rawValue, includingCaused: true) == nestedCall)
            let found = try findings(path)
            #expect(found.map(\.event.id) == [transformed, outer, nested])
            #expect(found.first?.transforms == [transform])
            #expect(try Replayer(journal: path).explain(event: transformed).finding.transforms == [transform])
        }
    }
}
