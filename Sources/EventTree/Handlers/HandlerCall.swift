/// One recorded handler call: a handful of integers and codes, trivially copyable, so that
/// recording it costs a few stores. What a failed or answering call carries beside it (its
/// error, its answer) travels with the fact (see ``Fact/handlerCalled(_:detail:)``).
public struct HandlerCall: Sendable {
    /// The event the call saw.
    public var event: EventID
    /// The node of the step.
    public var node: NodeID
    /// The phase of the step.
    public var phase: Phase
    /// The handler called.
    public var handler: HandlerID
    /// What it did.
    public var outcome: Outcome.Kind
    /// When it started, on the bus clock's monotonic nanoseconds (see ``EventClock``): in a
    /// synchronous delivery, where the call before it ended when nothing else ran in between
    /// (one clock reading per call), else read as it starts.
    public var startedAt: Int
    /// How long it ran, in nanoseconds, from ``startedAt`` to its end: the bus's
    /// bookkeeping since the call before it (tens of nanoseconds) included.
    public var nanoseconds: Int

    /// Creates a call record.
    public init(
        event: EventID, node: NodeID, phase: Phase, handler: HandlerID, outcome: Outcome.Kind,
        startedAt: Int = 0, nanoseconds: Int
    ) {
        self.event = event
        self.node = node
        self.phase = phase
        self.handler = handler
        self.outcome = outcome
        self.startedAt = startedAt
        self.nanoseconds = nanoseconds
    }

    /// The extra value some calls carry. Indirect, so that a fact without one stays small.
    public indirect enum Detail: Sendable {
        /// What a failed call threw (or why it could not run).
        case error(any Error)
        /// What an answering call answered.
        case answer(any Sendable)

        /// `String(describing:)` of the error or answer, as the journal stores it.
        public var text: String {
            switch self {
            case .error(let error): String(describing: error)
            case .answer(let answer): String(describing: answer)
            }
        }
    }
}
