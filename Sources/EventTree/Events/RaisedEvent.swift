/// Describes one raise: what was raised, where, how, and why.
public final class RaisedEvent: Sendable {
    // The stored properties are laid out for size: a raise's description is made on the
    // raising thread and freed on the journal's, so it never comes from the raising thread's
    // own cache of freed blocks; at 120 bytes it comes from malloc's fast bins, at 145
    // (the declaration order of the properties as the API lists them) it did not.

    /// The event's id.
    public let id: EventID
    /// The type name handlers matched against (for an error, its type's name).
    public let typeName: String
    /// The value itself: encoded to JSON by the journal, off the raising thread.
    public let payload: Payload
    /// The delivery mode.
    public let mode: DeliveryMode
    /// What a failing handler does to its route.
    public let policy: FailurePolicy
    /// What kind of raise this is: an error on the error channel, a request when raised
    /// with ``EventNode/request(_:mode:onFailure:isolation:)`` (which expects an answer),
    /// an event otherwise.
    public let kind: Kind
    /// Where it was raised (for a transform: where the event it came from was). Known to a
    /// recording bus only: the journal records an outermost raise's as the thread of every
    /// raise it led to.
    package let isolation: RaiseIsolation
    /// The node it was raised at.
    public let origin: NodeID
    /// When it was raised, on the bus clock's monotonic nanoseconds (0 when the bus does
    /// not record).
    public let raisedAt: Int
    /// ``cause`` and ``transformedFrom`` as raw ids, `Int.min` for none (an optional takes
    /// nine bytes and its padding).
    private let causeID: Int
    private let transformedFromID: Int

    /// The event whose handler raised it (for an error: the failing event; for a converted
    /// error: the error), if any.
    public var cause: EventID? { causeID == Int.min ? nil : EventID(rawValue: causeID) }
    /// The event it was transformed from, if any.
    public var transformedFrom: EventID? { transformedFromID == Int.min ? nil : EventID(rawValue: transformedFromID) }

    /// Creates a description. (A `cause` or `transformedFrom` whose raw value is `Int.min`,
    /// which no sequence issues, reads back as `nil`.)
    public convenience init(
        id: EventID, typeName: String, payload: Payload, origin: NodeID, mode: DeliveryMode,
        cause: EventID?, transformedFrom: EventID?, policy: FailurePolicy = .continue, raisedAt: Int = 0,
        isRequest: Bool = false
    ) {
        let kind: Kind = switch payload {
        case .event: isRequest ? .request : .event
        case .error: .error
        }
        self.init(
            id: id, typeName: typeName, payload: payload, kind: kind, origin: origin, mode: mode, cause: cause,
            transformedFrom: transformedFrom, policy: policy, raisedAt: raisedAt)
    }

    /// Creates a description of a raise whose `kind` the caller knows (`.error` exactly
    /// when `payload` is an error): the payload is moved in, not looked at.
    init(
        id: EventID, typeName: String, payload: Payload, kind: Kind, origin: NodeID, mode: DeliveryMode,
        cause: EventID?, transformedFrom: EventID?, policy: FailurePolicy, raisedAt: Int, isolation: RaiseIsolation = .elsewhere
    ) {
        self.id = id
        self.typeName = typeName
        self.payload = payload
        self.origin = origin
        self.mode = mode
        causeID = cause?.rawValue ?? Int.min
        transformedFromID = transformedFrom?.rawValue ?? Int.min
        self.policy = policy
        self.raisedAt = raisedAt
        self.kind = kind
        self.isolation = isolation
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
