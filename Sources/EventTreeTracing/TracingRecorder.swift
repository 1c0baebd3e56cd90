import EventTree
import Tracing

/// A recorder that turns what a bus records into spans of a swift-distributed-tracing
/// tracer: a span per raise, a child span per handler call, and the raises a call led to
/// under that call.
///
/// Bootstrap the tracer (swift-otel, for OpenTelemetry backends) before creating the
/// recorder, then give the recorder to a bus — alone, or beside a journal with
/// `FanOutRecorder`:
///
/// ```swift
/// let bus = EventBus(recorder: FanOutRecorder(journal, TracingRecorder()))
/// ```
///
/// A bus hands over a raise's records when its outermost raise ends, so spans are created
/// then, with the times the bus recorded: its monotonic clock, placed on the wall clock by
/// the session's start. Which span is whose parent:
/// - a raise's span is the child of ``parentContext`` (or of the task's current context
///   when the records are handed over, when none was given);
/// - a handler call's span is the child of its event's raise;
/// - a raise from inside a handler is the child of that handler's call, and so is a raise
///   that a call's outcome produced: the error a failing handler threw, the event an
///   error handler converted its error into, the event a transform carries on with (these
///   start when their call has returned).
///
/// A raise's span links to its cause's raise (`eventtree.link` = `cause`), and a
/// transformed event's to the event it came from (`transformed_from`), whenever that span
/// is not its parent. The attributes are listed in <doc:SpansOfABus>.
///
/// With `NoOpTracer` (what `InstrumentationSystem.tracer` is before a bootstrap) the
/// recorder does nothing at all: it costs a bus no more than a call per batch.
public final class TracingRecorder: Recorder, @unchecked Sendable {
    // Safe: `world` is read and written only with `lock` held; every other stored property
    // is immutable and Sendable (a tracer is Sendable by its protocol).
    private let lock = Lock()
    private var world: RecordedWorld
    private let tracer: any Tracer
    private let isRecording: Bool

    /// The context top-level raises start their spans under, or `nil` for the task's
    /// current context when the records are handed over (`ServiceContext.topLevel` when
    /// the handing-over thread has none).
    public let parentContext: ServiceContext?

    /// The sequence facts are numbered in when this recorder is a bus's only recorder.
    /// Beside a journal, the bus numbers with the `FanOutRecorder`'s primary recorder's
    /// sequence and this one is never used.
    public let sequence: SequenceCounter

    /// Creates a recorder that starts spans with `tracer`.
    ///
    /// - Parameters:
    ///   - tracer: Where spans go: by default the tracer bootstrapped with
    ///     `InstrumentationSystem`, read once, now (bootstrap first).
    ///   - parentContext: The context top-level raises start their spans under; `nil` (the
    ///     default) for the task's current context when a raise's records are handed over.
    ///   - retention: How many replaced versions of nodes, released nodes, removed handlers
    ///     and ended sessions are remembered for records still on their way. A raise whose
    ///     records arrive after more tree changes than this may name later paths.
    public init(
        tracer: any Tracer = InstrumentationSystem.tracer, parentContext: ServiceContext? = nil,
        retention: Int = 10_000
    ) {
        self.tracer = tracer
        self.parentContext = parentContext
        isRecording = !(tracer is NoOpTracer)
        world = RecordedWorld(retention: max(retention, 0))
        sequence = SequenceCounter()
    }

    /// Turns the records of a raise into spans; keeps the tree, handler and session facts
    /// that later spans are named with.
    ///
    /// The spans are planned with the recorder's lock held and handed to the tracer after
    /// it is released.
    ///
    /// - Returns: `RecordingStatus.accepted`: the tracer exports the spans later, if at all.
    @discardableResult
    public func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        guard isRecording, !records.isEmpty else { return .accepted }
        let sorted = records.isSorted { $0.seq < $1.seq } ? records : records.sorted { $0.seq < $1.seq }
        let plan: SpanPlan? = lock.withLock {
            let clock = world.clock(of: session)
            // A session's start arrives alone; only batches with raises become spans.
            guard sorted.contains(where: \.startsSpan) else {
                for record in sorted { world.apply(record) }
                return nil
            }
            return SpanPlan(records: sorted, clock: clock ?? .systemNow(), world: &world)
        }
        plan?.emit(to: tracer, under: parentContext ?? ServiceContext.current ?? .topLevel)
        return .accepted
    }

    /// Keeps the tree and handler changes that later spans are named with. Called with the
    /// bus's lock held: it takes the recorder's lock only to update its model, and never
    /// calls the tracer.
    public func recordChange(_ records: [FactRecord], session: SessionID) {
        guard isRecording else { return }
        lock.withLock {
            for record in records { world.apply(record) }
        }
    }
}

extension FactRecord {
    /// Whether the fact becomes (part of) a span.
    fileprivate var startsSpan: Bool {
        switch fact {
        case .raised, .handlerCalled: true
        default: false
        }
    }
}

extension Sequence {
    /// Whether the elements are in the order `areInIncreasingOrder` gives.
    fileprivate func isSorted(by areInIncreasingOrder: (Element, Element) -> Bool) -> Bool {
        var previous: Element?
        for element in self {
            if let previous, areInIncreasingOrder(element, previous) { return false }
            previous = element
        }
        return true
    }
}
