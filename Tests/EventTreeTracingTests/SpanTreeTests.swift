import EventTree
import EventTreeTracing
import InMemoryTracing
import Testing
import Tracing

/// A bus recording spans into an in-memory tracer, and a small tree:
///
///     app
///     ├── doc
///     │   └── page
///     └── panel
struct Scenario {
    let tracer = InMemoryTracer()
    let bus: EventBus
    let app: EventNode
    let doc: EventNode
    let page: EventNode
    let panel: EventNode

    init(parentContext: ServiceContext? = nil, clock: EventClock = .system) {
        bus = EventBus(recorder: TracingRecorder(tracer: tracer, parentContext: parentContext), clock: clock)
        app = EventNode("app", bus: bus)
        doc = EventNode("doc", parent: app)
        page = EventNode("page", parent: doc)
        panel = EventNode("panel", parent: app)
    }

    /// The spans finished so far, as ``render(_:times:)`` draws them.
    var tree: String { render(tracer.finishedSpans) }
}

@Suite struct SpanTreeTests {
    @Test func aSessionBecomesExactlyThisSpanTree() {
        let s = Scenario()
        // Bubble through three nodes, two of which listen.
        s.doc.on(Edit.self, label: "autosave") { _, _ in .handled }
        s.app.on(Edit.self, label: "history") { _, _ in .handled }
        // Broadcast: after the bubble, the propagate phase visits the root and its descendants.
        s.panel.on(Theme.self, phases: .target, label: "apply") { _, _ in .handled }
        s.app.on(Theme.self, label: "theme-log") { _, _ in .handled }
        s.page.on(Theme.self, phases: .propagate, label: "restyle") { _, _ in .handled }
        // Consumed at the origin: doc's handler is never called, so it has no span.
        s.page.on(Close.self, label: "confirm") { _, _ in .consumed }
        s.doc.on(Close.self, label: "closer") { _, _ in .handled }
        // A transform: the route carries on with a new event.
        s.page.on(Save.self, label: "normalize") { _, _ in .transformed(SaveNormalized()) }
        s.doc.on(SaveNormalized.self, label: "persist") { _, _ in .handled }
        // A failing handler; its error converted by an error handler into an event whose
        // handler raises another one from inside.
        s.page.on(Upload.self, label: "upload") { _, _ in throw UploadFailed() }
        s.doc.onError(UploadFailed.self, label: "retry-later") { _, _ in .transformed(RetryScheduled()) }
        s.app.on(RetryScheduled.self, label: "scheduler") { [weak panel = s.panel] _, _ in
            panel?.raise(Notify())
            return .handled
        }
        s.panel.on(Notify.self, label: "toast") { _, _ in .handled }

        s.page.raise(Edit())
        s.panel.raise(Theme(), mode: .broadcast)
        s.page.raise(Close())
        s.page.raise(Save())
        s.page.raise(Upload())
        s.panel.raise(Unheard())

        #expect(s.tree == """
            Edit event bubble at app/doc/page -> delivered
              autosave at app/doc bubble -> handled
              history at app bubble -> handled
            Theme event broadcast at app/panel -> delivered
              apply at app/panel target -> handled
              theme-log at app bubble -> handled
              theme-log at app propagate -> handled
              restyle at app/doc/page propagate -> handled
            Close event bubble at app/doc/page -> consumed
              confirm at app/doc/page target -> consumed
            Save event bubble at app/doc/page -> delivered
              normalize at app/doc/page target -> transformed
                SaveNormalized event bubble at app/doc/page -> delivered; link transformed_from Save
                  persist at app/doc bubble -> handled
            Upload event bubble at app/doc/page -> failed; status error: disk full
              upload at app/doc/page target -> failed; error disk full; status error: disk full
                UploadFailed error bubble at app/doc/page -> consumed; link cause Upload; error disk full
                  retry-later at app/doc bubble -> transformed
                    RetryScheduled event bubble at app/doc -> delivered; link cause UploadFailed
                      scheduler at app bubble -> handled
                        Notify event bubble at app/panel -> delivered; link cause RetryScheduled
                          toast at app/panel target -> handled
            Unheard event bubble at app/panel -> unhandled dead letter
            """)
        // One trace per top-level raise.
        #expect(Set(s.tracer.finishedSpans.map(\.traceID)).count == 6)
    }

    @Test func spansCarryTheBusClocksTimesPlacedOnTheWallClockBySessionStart() throws {
        // Every reading of the bus clock is 1 µs after the one before; the session starts
        // at 0 (wall: 1,700,000,000.25 s).
        let s = Scenario(clock: Ticks.clock(wallSeconds: 1_700_000_000.25))
        s.app.on(Upload.self, label: "outer") { [weak app = s.app] _, _ in
            app?.raise(Notify())
            return .handled
        }
        s.app.on(Notify.self, label: "inner") { _, _ in .handled }
        s.app.on(Upload.self, label: "thrower") { _, _ in throw UploadFailed() }
        s.app.onError(label: "catch") { _, _ in .handled }
        s.app.raise(Upload())

        // Raise 1; outer 2–6 with Notify raised at 3 and inner 4–5 inside it; thrower 6–7
        // (a call starts where the call before it ended); its error raised at 8 (after its
        // call returned), caught 9–10. A raise ends with the last thing under it.
        let sessionStart: UInt64 = 1_700_000_000_250_000_000
        #expect(render(s.tracer.finishedSpans, times: sessionStart) == """
            Upload event bubble at app -> failed; status error: disk full [1µs…10µs]
              outer at app target -> handled [2µs…6µs]
                Notify event bubble at app -> delivered; link cause Upload [3µs…5µs]
                  inner at app target -> handled [4µs…5µs]
              thrower at app target -> failed; error disk full; status error: disk full [6µs…7µs]
                UploadFailed error bubble at app -> delivered; link cause Upload; error disk full [8µs…10µs]
                  catch at app target -> handled [9µs…10µs]
            """)
        let root = try #require(s.tracer.finishedSpans.first { $0.parentSpanID == nil })
        #expect(root.startInstant.nanosecondsSinceEpoch == 1_700_000_000_250_001_000)
        #expect(root.endInstant.nanosecondsSinceEpoch == 1_700_000_000_250_010_000)
    }

    @Test func pathsAreThePathsWhenEachFactHappenedEvenWhenTheTreeChangedBeforeTheRecordsArrived() {
        let s = Scenario()
        // The rename reaches the recorder at once; the raise's records only when it ends.
        s.page.on(Edit.self, label: "rename") { [weak doc = s.doc] _, _ in
            doc?.rename(to: "document")
            return .handled
        }
        s.app.on(Edit.self, label: "after") { _, _ in .handled }
        s.page.raise(Edit())
        s.page.raise(Edit())
        #expect(s.tree == """
            Edit event bubble at app/doc/page -> delivered
              rename at app/document/page target -> handled
              after at app bubble -> handled
            Edit event bubble at app/document/page -> delivered
              rename at app/document/page target -> handled
              after at app bubble -> handled
            """)
    }

    @Test func aNodeReleasedDuringDeliveryLeavesAnUndeliveredStepOnTheRaise() {
        let s = Scenario()
        s.page.on(Edit.self, label: "release-doc") { [weak doc = s.doc] _, _ in
            doc?.release()
            return .handled
        }
        s.doc.on(Edit.self, label: "never") { _, _ in .handled }
        s.app.on(Edit.self, label: "root") { _, _ in .handled }
        s.page.raise(Edit())
        #expect(s.tree == """
            Edit event bubble at app/doc/page -> delivered; undelivered app/doc bubble
              release-doc at page target -> handled
              root at app bubble -> handled
            """)
    }

    @Test func callSpansNameTheirHandlersRegistrationSite() throws {
        let s = Scenario()
        let line = #line + 1
        s.app.on(Edit.self, label: "located") { _, _ in .handled }
        s.app.raise(Edit())
        let call = try #require(s.tracer.finishedSpans.first { $0.operationName == "located" })
        #expect(text(call.attributes.get("eventtree.handler.location")) == "EventTreeTracingTests/SpanTreeTests.swift:\(line)")
        #expect(text(call.attributes.get("eventtree.handler.label")) == "located")
        let raise = try #require(s.tracer.finishedSpans.first { $0.operationName == "Edit" })
        #expect(text(raise.attributes.get("eventtree.event.type")) == "Edit")
        #expect(text(raise.attributes.get("eventtree.event.id")) == text(call.attributes.get("eventtree.event.id")))
    }

    @Test func topLevelRaisesStartUnderTheCurrentContextOrTheGivenOne() {
        let s = Scenario()
        s.app.on(Edit.self, label: "autosave") { _, _ in .handled }
        _ = s.tracer.withSpan("request") { _ in s.app.raise(Edit()) }
        #expect(s.tree == """
            request
              Edit event bubble at app -> delivered
                autosave at app target -> handled
            """)

        let outer = InMemoryTracer()
        let parent = outer.startSpan("job")
        let given = Scenario(parentContext: parent.context)
        given.app.on(Edit.self, label: "autosave") { _, _ in .handled }
        given.app.raise(Edit())
        #expect(given.tracer.finishedSpans.allSatisfy { $0.traceID == parent.context.inMemorySpanContext?.traceID })
        #expect(given.tracer.finishedSpans.first { $0.operationName == "Edit" }?.parentSpanID
            == parent.context.inMemorySpanContext?.spanID)
    }

    @Test func withTheNoOpTracerNothingIsPlannedAndRaisesAreAccepted() {
        let recorder = TracingRecorder(tracer: NoOpTracer())
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        app.on(Edit.self, label: "autosave") { _, _ in .handled }
        #expect(app.raise(Edit()).recording == .accepted)
    }
}
