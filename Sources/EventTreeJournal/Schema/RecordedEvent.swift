import EventTree

/// A raise as the journal recorded it.
public struct RecordedEvent: Sendable, Hashable {
    /// The event's id (the seq of its raise).
    public let id: EventID
    /// The session it belongs to.
    public let session: SessionID
    /// Its type name.
    public let typeName: String
    /// The journal's number for its type.
    package let typeID: Int
    /// An event, a request or an error.
    public let kind: RaisedEvent.Kind
    /// The node it was raised at.
    public let origin: NodeID
    /// Its delivery mode.
    public let mode: DeliveryMode
    /// The event whose handler raised it.
    public let cause: EventID?
    /// The event it was transformed from.
    public let transformedFrom: EventID?
    /// Its payload as JSON text.
    public let payload: String?
    /// When its raise ended (`nil`: it never did).
    public let finishedSeq: Int?
    /// How its raise ended, `nil` when it never did.
    public let status: RaiseStatus.Kind?
    /// The handler that stopped it or failed first, if any: its number, node and phase.
    public let stop: Stop?
    /// The first failure's error, for a failed result.
    public let message: String?
    /// Handler calls its transform chain lost to released nodes.
    public let lostCalls: Int
    /// What a failing handler did to its route.
    public let policy: FailurePolicy
    /// When it was raised: microseconds from its session's start (`nil` when
    /// its session's start is unknown).
    public let raisedMicroseconds: Int?
    /// Where its outermost raise was made: the number of the thread it ran on, dense per
    /// process from 1, -1 for a synchronous raise on the main actor and 0 for an awaited
    /// one, whatever threads ran them (see ``isolation``); ``JournalReader/threadNames(of:)``
    /// names it. `nil` when not recorded.
    public let thread: Int?

    /// Where it was raised, as its ``thread`` says; `nil` when not recorded.
    public var isolation: RaiseIsolation? {
        guard let thread else { return nil }
        return switch thread {
        case RaisingThread.mainActor: .mainActor
        case RaisingThread.awaited: .awaited
        default: .elsewhere
        }
    }

    /// Where a raise was stopped (consumed, answered, converted) or failed first.
    public struct Stop: Sendable, Hashable {
        /// The handler's number (see ``RecordedHandler/number``).
        public let handlerNumber: Int
        /// The node it was on.
        public let node: NodeID
        /// The phase of its step.
        public let phase: Phase
    }

    package init(
        id: EventID, session: SessionID, typeName: String, typeID: Int, kind: RaisedEvent.Kind, origin: NodeID,
        mode: DeliveryMode, cause: EventID?, transformedFrom: EventID?, payload: String?, finishedSeq: Int?,
        status: RaiseStatus.Kind?, stop: Stop?, message: String?, lostCalls: Int, policy: FailurePolicy,
        raisedMicroseconds: Int? = nil, thread: Int? = nil
    ) {
        self.id = id
        self.session = session
        self.typeName = typeName
        self.typeID = typeID
        self.kind = kind
        self.origin = origin
        self.mode = mode
        self.cause = cause
        self.transformedFrom = transformedFrom
        self.payload = payload
        self.finishedSeq = finishedSeq
        self.status = status
        self.stop = stop
        self.message = message
        self.lostCalls = lostCalls
        self.policy = policy
        self.raisedMicroseconds = raisedMicroseconds
        self.thread = thread
    }

    /// The channel it travelled on.
    public var channel: HandlerRegistration.Channel { kind == .error ? .errors : .events }

    /// Its result as `event_history.result` shows it: the recorded status, or `lost`.
    public var result: EventResult { EventResult(status: status, lostCalls: lostCalls) }
}
