import EventTree
import EventTreeJournal
import EventTreeTesting
import EventTreeTracing
import InMemoryTracing
import Testing

@Suite struct FanOutRecorderTests {
    /// A small session: a bubble, a transform, a failing handler whose error is caught, a
    /// nested raise; the bus clock ticks a microsecond a reading.
    private static func runSession(recorder: any Recorder) {
        let bus = EventBus(recorder: recorder, process: "fan-out", clock: Ticks.clock())
        let app = EventNode("app", bus: bus)
        let page = EventNode("page", parent: app)
        app.on(Edit.self, label: "history") { _, _ in .handled }
        page.on(Save.self, label: "normalize") { _, _ in .transformed(SaveNormalized()) }
        app.on(SaveNormalized.self, label: "persist") { [weak page] _, _ in
            page?.raise(Edit())
            return .handled
        }
        page.on(Upload.self, label: "upload") { _, _ in throw UploadFailed() }
        app.onError(label: "catch") { _, _ in .handled }
        page.raise(Edit())
        page.raise(Save())
        page.raise(Upload())
        bus.end()
    }

    private static let eventRows = "SELECT event_id, event_type, kind, mode, origin_path, cause_event_id, transformed_from_event_id, raised_at, result FROM event_history ORDER BY event_id"
    private static let callRows = "SELECT seq, event_id, node_path, phase, handler_label, outcome, at, duration_ns FROM delivery_history ORDER BY seq"

    @Test func aJournalBesideATracingRecorderWritesTheSameRowsAndTheSpansCarryItsEventIDs() async throws {
        let alone = try await withTemporaryJournal { journal in
            Self.runSession(recorder: journal)
            try journal.flush()
            return (try lines(journal.path, Self.eventRows), try lines(journal.path, Self.callRows))
        }
        let tracer = InMemoryTracer()
        let (events, calls) = try await withTemporaryJournal { journal in
            let fanOut = FanOutRecorder(journal, TracingRecorder(tracer: tracer))
            #expect(fanOut.sequence === journal.sequence)
            Self.runSession(recorder: fanOut)
            try journal.flush()
            return (try lines(journal.path, Self.eventRows), try lines(journal.path, Self.callRows))
        }
        #expect(events == alone.0)
        #expect(calls == alone.1)
        #expect(events.count == 6)
        #expect(calls.count == 6)

        // Every raise is a span named after its type, carrying the journal's event id; every
        // call a span carrying the seq of the event it saw.
        let spans = tracer.finishedSpans
        let raiseSpans = spans.filter { $0.attributes.get("eventtree.outcome") == nil }
            .map { "\(text($0.attributes.get("eventtree.event.id")))|\($0.operationName)" }
            .sorted { Int($0.prefix { $0 != "|" })! < Int($1.prefix { $0 != "|" })! }
        #expect(raiseSpans == events.map { $0.split(separator: "|").prefix(2).joined(separator: "|") })
        let callSpans = spans.filter { $0.attributes.get("eventtree.outcome") != nil }
            .map { "\(text($0.attributes.get("eventtree.event.id")))|\($0.operationName)" }
            .sorted()
        #expect(callSpans == calls.map { row in
            let columns = row.split(separator: "|", omittingEmptySubsequences: false)
            return "\(columns[1])|\(columns[4])"
        }.sorted())
    }

    @Test func aRaiseReturnsThePrimaryRecordersStatus() async throws {
        var options = JournalOptions()
        options.durability = .durable
        try await withTemporaryJournal(options: options) { journal in
            let bus = EventBus(recorder: FanOutRecorder(journal, TracingRecorder(tracer: InMemoryTracer())))
            let app = EventNode("app", bus: bus)
            app.on(Edit.self, label: "history") { _, _ in .handled }
            #expect(app.raise(Edit()).recording == .durable)
            bus.end()
        }
        let memory = TraceRecorder()
        let bus = EventBus(recorder: FanOutRecorder(memory, TracingRecorder(tracer: InMemoryTracer())))
        let app = EventNode("app", bus: bus)
        app.on(Edit.self, label: "history") { _, _ in .handled }
        #expect(app.raise(Edit()).recording == .accepted)
        #expect(memory.lines == ["create app", "add history on app", "raise Edit at app bubble", "call app target history -> handled", "end Edit delivered"])
    }

    @Test func everyRecorderGetsEveryRecordAndEveryChangeInTheSameNumbers() {
        let first = TraceRecorder()
        let second = TraceRecorder()
        let tracer = InMemoryTracer()
        let fanOut = FanOutRecorder(first, second, TracingRecorder(tracer: tracer))
        #expect(fanOut.recorders.count == 3)
        let bus = EventBus(recorder: fanOut)
        let app = EventNode("app", bus: bus)
        let page = EventNode("page", parent: app)
        app.on(Edit.self, label: "history") { _, _ in .handled }
        page.rename(to: "sheet")
        page.raise(Edit())
        bus.end()
        #expect(first.records.map(\.seq) == second.records.map(\.seq))
        #expect(first.lines == second.lines)
        // The tracing recorder saw the rename (a change) before the raise.
        #expect(render(tracer.finishedSpans) == """
            Edit event bubble at app/sheet -> delivered
              history at app bubble -> handled
            """)
    }

    @Test func aRecorderThatNumbersItsOwnRecordsCannotBeASecondary() async {
        let exit = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FanOutRecorder(TraceRecorder(), NumberingRecorder())
        }
        let message = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(
            "a FanOutRecorder's secondary recorder NumberingRecorder numbers its own records (a journal): make it the first recorder, and give a fan-out at most one journal"))
        await #expect(processExitsWith: .success) {
            _ = FanOutRecorder(NumberingRecorder(), TraceRecorder())
        }
    }
}

/// Numbers its records like a journal: its sequence tracks open batches.
final class NumberingRecorder: Recorder {
    let sequence = SequenceCounter(tracksOpenBatches: true)
    func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus { .accepted }
}
