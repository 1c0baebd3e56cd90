/// Describes one raise: what was raised, where, how, and why.
public final class RaisedEvent: Sendable {
    /// The event's id.
    public let id: EventID
    /// The type name handlers matched against (for an error, its type's name).
    public let typeName: String
    /// The value itself: encoded to JSON by the journal, off the raising thread.
    public let payload: Payload
    /// The node it was raised at.
    public let origin: NodeID
    /// The delivery mode.
    public let mode: DeliveryMode
    /// The event whose handler raised it (for an error: the failing event; for a converted
    /// error: the error), if any.
    public let cause: EventID?
    /// The event it was transformed from, if any.
    public let transformedFrom: EventID?
    /// What a failing handler does to its route.
    public let policy: FailurePolicy
    /// When it was raised, on the bus clock's monotonic nanoseconds (0 when the bus does
    /// not record).
    public let raisedAt: Int
    /// What kind of raise this is: an error on the error channel, a request when raised
    /// with ``EventNode/request(_:mode:onFailure:isolation:)`` (which expects an answer),
    /// an event otherwise.
    public let kind: Kind

    /// Creates a description.
    public init(
        id: EventID, typeName: String, payload: Payload, origin: NodeID, mode: DeliveryMode,
        cause: EventID?, transformedFrom: EventID?, policy: FailurePolicy = .continue, raisedAt: Int = 0,
        isRequest: Bool = false
    ) {
        self.id = id
        self.typeName = typeName
        self.payload = payload
        self.origin = origin
        self.mode = mode
        self.cause = cause
        self.transformedFrom = transformedFrom
        self.policy = policy
        self.raisedAt = raisedAt
        switch payload {
        case .event: kind = isRequest ? .request : .event
        case .error: kind = .error
        }
    }

    /// What kind of value a raise carries.
    public enum Kind: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// An ordinary event.
        case event = 0
        /// A request, which expects an answer.
        case request = 1
        /// An error, on the error channel.
        case error = 2

        /// The case name, as the journal's views spell it.
        public var description: String {
            switch self {
            case .event: "event"
            case .request: "request"
            case .error: "error"
            }
        }
    }

    /// The raised value.
    public enum Payload: Sendable {
        /// An ordinary event or a request.
        case event(any Event)
        /// An error on the error channel.
        case error(any Error)
    }
}
