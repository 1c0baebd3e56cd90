import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// A session cut short during a raise (its process crashed), then a session of a later run:
/// the raise that never ended is read from its own records, which end at its last call,
/// not followed to the journal's end (which held every later finding back with it).
@Suite struct UnendedRaiseTests {
    @Test func aRaiseThatNeverEndedEndsAtItsLastRecord() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/cut-short.eventtree"
            // The first run, numbered by hand: its raise of Ping never ends.
            let first = try Journal(path: path)
            let numbers = first.sequence
            let session = SessionID(rawValue: numbers.open())
            let app = NodeID(rawValue: numbers.advance())
            let handlers = [HandlerID(rawValue: numbers.advance()), HandlerID(rawValue: numbers.advance())]
            var changes = [
                FactRecord(seq: session.rawValue, fact: .sessionStarted(SessionInfo(
                    id: session, process: "crashes", host: "", appVersion: nil, startedAt: 1_800_000_000))),
                FactRecord(seq: app.rawValue, fact: .nodeCreated(app, name: "app")),
            ]
            for (handler, label) in zip(handlers, ["count", "log"]) {
                changes.append(FactRecord(seq: handler.rawValue, fact: .handlerAdded(HandlerRegistration(
                    id: handler, node: app, label: label, eventType: "Ping", channel: .events, phases: .standard,
                    fileID: "App/App.swift", line: 3))))
            }
            for handler in handlers {
                changes.append(FactRecord(seq: numbers.advance(), fact: .handlerMatched(handler, eventType: "Ping")))
            }
            first.recordChange(changes, session: session)
            // Both handlers are called at the origin; the process dies before the raise ends.
            let event = EventID(rawValue: numbers.open())
            let calls = [numbers.advance(), numbers.advance()]
            _ = first.record([
                FactRecord(seq: event.rawValue, fact: .raised(RaisedEvent(
                    id: event, typeName: "Ping", payload: .event(Ping()), origin: app, mode: .bubble, cause: nil,
                    transformedFrom: nil, raisedAt: 1_000))),
            ] + zip(calls, handlers).map { seq, handler in
                FactRecord(seq: seq, fact: .handlerCalled(HandlerCall(
                    event: event, node: app, phase: .target, handler: handler, outcome: .handled, startedAt: 2_000,
                    nanoseconds: 1_000), detail: nil))
            }, session: session)
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
            let session = SessionID(rawValue: numbers.open())
            let app = NodeID(rawValue: numbers.advance())
            let labels = ["count", "swap", "pong"]
            let handlers = labels.map { _ in HandlerID(rawValue: numbers.advance()) }
            var changes = [
                FactRecord(seq: session.rawValue, fact: .sessionStarted(SessionInfo(
                    id: session, process: "crashes", host: "", appVersion: nil, startedAt: 1_800_000_000))),
                FactRecord(seq: app.rawValue, fact: .nodeCreated(app, name: "app")),
            ]
            for (handler, (label, type)) in zip(handlers, zip(labels, ["Ping", "Ping", "Pong"])) {
                changes.append(FactRecord(seq: handler.rawValue, fact: .handlerAdded(HandlerRegistration(
                    id: handler, node: app, label: label, eventType: type, channel: .events, phases: .standard,
                    fileID: "App/App.swift", line: 3))))
                changes.append(FactRecord(seq: numbers.advance(), fact: .handlerMatched(handler, eventType: type)))
            }
            journal.recordChange(changes, session: session)
            func raised(_ id: EventID, _ type: String, cause: EventID? = nil, from: EventID? = nil) -> FactRecord {
                let payload: RaisedEvent.Payload = type == "Ping" ? .event(Ping()) : .event(Pong())
                return FactRecord(seq: id.rawValue, fact: .raised(RaisedEvent(
                    id: id, typeName: type, payload: payload, origin: app, mode: .bubble, cause: cause,
                    transformedFrom: from, raisedAt: 1_000)))
            }
            func call(_ seq: Int, _ event: EventID, _ handler: HandlerID, _ outcome: Outcome.Kind) -> FactRecord {
                FactRecord(seq: seq, fact: .handlerCalled(HandlerCall(
                    event: event, node: app, phase: .target, handler: handler, outcome: outcome, startedAt: 2_000,
                    nanoseconds: 1_000), detail: nil))
            }
            // Thread 1: Ping, counted, then swapped for Pong, which `pong` handles; no end.
            let transformed = EventID(rawValue: numbers.open())
            let counted = numbers.advance()
            let swapped = numbers.advance()
            let transform = EventID(rawValue: numbers.advance())
            let ponged = numbers.advance()
            _ = journal.record([
                raised(transformed, "Ping"), call(counted, transformed, handlers[0], .handled),
                call(swapped, transformed, handlers[1], .transformed), raised(transform, "Pong", from: transformed),
                call(ponged, transform, handlers[2], .handled),
            ], session: session)
            // Thread 2: Ping, whose first handler raised Pong, handled; neither ended.
            let outer = EventID(rawValue: numbers.open())
            let nested = EventID(rawValue: numbers.advance())
            let nestedCall = numbers.advance()
            _ = journal.record([
                raised(outer, "Ping"), raised(nested, "Pong", cause: outer), call(nestedCall, nested, handlers[2], .handled),
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
