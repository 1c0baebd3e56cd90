import EventTree
import EventTreeTracing
import Foundation
import InMemoryTracing
import Testing
import Tracing

@Suite struct TracingRecorderTests {
    @Test func raisesFromSeveralThreadsAtOnceEachBecomeATraceOfTheirOwn() {
        let tracer = InMemoryTracer()
        let bus = EventBus(recorder: TracingRecorder(tracer: tracer))
        let app = EventNode("app", bus: bus)
        let nodes = (0..<4).map { EventNode("worker\($0)", parent: app) }
        app.on(Edit.self, label: "history") { _, _ in .handled }
        DispatchQueue.concurrentPerform(iterations: nodes.count) { index in
            for round in 0..<50 {
                // Tree changes on other threads reach the recorder while it plans spans.
                if round % 10 == 0 { nodes[index].rename(to: "worker\(index)-\(round)") }
                nodes[index].raise(Edit())
            }
        }
        let spans = tracer.finishedSpans
        #expect(spans.count == 4 * 50 * 2)
        let byTrace = Dictionary(grouping: spans, by: \.traceID)
        #expect(byTrace.count == 4 * 50)
        for (_, trace) in byTrace {
            let names = trace.sorted { $0.parentSpanID == nil && $1.parentSpanID != nil }.map(\.operationName)
            #expect(names == ["Edit", "history"])
            let raise = trace.first { $0.parentSpanID == nil }
            #expect(trace.first { $0.parentSpanID != nil }?.parentSpanID == raise?.spanID)
            let path = text(raise?.attributes.get("eventtree.node.path"))
            #expect(path.hasPrefix("app/worker"))
        }
    }

    @Test func recordsArrivingAfterTheTreeChangedAreReadAgainstTheTreeOfTheirTime() {
        let tracer = InMemoryTracer()
        let recorder = TracingRecorder(tracer: tracer)
        let (session, records) = handMadeSession()
        recorder.record([records[0]], session: session)
        recorder.recordChange(Array(records[1...5]), session: session)
        // The rename (seq 20) arrives before the raise that ran before it (seq 10).
        recorder.recordChange([FactRecord(seq: 20, fact: .nodeRenamed(NodeID(rawValue: 3), name: "document"))], session: session)
        recorder.record(Array(records[6...]), session: session)
        #expect(render(tracer.finishedSpans) == """
            Edit event bubble at app/doc -> delivered
              history at app/doc target -> handled
            """)
    }

    @Test func pastTheRetentionWindowALateBatchSeesTheTreeAsItIsNow() {
        let tracer = InMemoryTracer()
        let recorder = TracingRecorder(tracer: tracer, retention: 0)
        let (session, records) = handMadeSession()
        recorder.record([records[0]], session: session)
        recorder.recordChange(Array(records[1...5]), session: session)
        recorder.recordChange([FactRecord(seq: 20, fact: .nodeRenamed(NodeID(rawValue: 3), name: "document"))], session: session)
        recorder.record(Array(records[6...]), session: session)
        #expect(render(tracer.finishedSpans) == """
            Edit event bubble at app/document -> delivered
              history at app/document target -> handled
            """)
    }

    /// A session's start, its tree changes (app ← doc, a handler on doc) and one raise at
    /// doc, numbered by hand: 1 session, 2–6 changes, 10–12 the raise.
    private func handMadeSession() -> (SessionID, [FactRecord]) {
        let session = SessionID(rawValue: 1)
        let app = NodeID(rawValue: 2)
        let doc = NodeID(rawValue: 3)
        let handler = HandlerID(rawValue: 5)
        let event = EventID(rawValue: 10)
        let info = SessionInfo(id: session, process: "test", host: "host", appVersion: nil, startedAt: 1_700_000_000)
        let registration = HandlerRegistration(
            id: handler, node: doc, label: "history", eventType: "Edit", channel: .events, phases: .standard,
            fileID: "App/Doc.swift", line: 7)
        return (session, [
            FactRecord(seq: 1, fact: .sessionStarted(info)),
            FactRecord(seq: 2, fact: .nodeCreated(app, name: "app")),
            FactRecord(seq: 3, fact: .nodeCreated(doc, name: "doc")),
            FactRecord(seq: 4, fact: .nodeAttached(doc, parent: app, index: 0)),
            FactRecord(seq: 5, fact: .handlerAdded(registration)),
            FactRecord(seq: 6, fact: .handlerMatched(handler, eventType: "Edit")),
            FactRecord(seq: 10, fact: .raised(RaisedEvent(
                id: event, typeName: "Edit", payload: .event(Edit()), origin: doc, mode: .bubble, cause: nil,
                transformedFrom: nil, raisedAt: 1_000))),
            FactRecord(seq: 11, fact: .handlerCalled(HandlerCall(
                event: event, node: doc, phase: .target, handler: handler, outcome: .handled, startedAt: 2_000,
                nanoseconds: 1_000), detail: nil)),
            FactRecord(seq: 12, fact: .raiseFinished(event, status: .delivered)),
        ])
    }
}
