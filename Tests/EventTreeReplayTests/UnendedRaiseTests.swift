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
}
