import EventTree

/// One step of an event's route as replay walked it: the node and phase, whether the
/// event got there, and the handler calls made there.
public struct RouteVisit: Sendable, Hashable {
    /// 0-based position on the route.
    public let index: Int
    /// The step's node.
    public let node: NodeID
    /// The step's phase.
    public let phase: Phase
    /// Whether the event got there.
    public let reach: Reach
    /// The calls made there (recorded), or that would be made (what-if), in order.
    public let calls: [Call]

    /// Whether an event got to a step of its route.
    public enum Reach: Sendable, Hashable, CustomStringConvertible {
        /// The event got there.
        case reached
        /// The route had stopped before it.
        case notReached
        /// Its node had been released: the handler calls the route expected there
        /// (`lostCalls`) did not happen.
        case undelivered(lostCalls: Int)

        /// `reached`, `not reached` or `undelivered`.
        public var description: String {
            switch self {
            case .reached: "reached"
            case .notReached: "not reached"
            case .undelivered: "undelivered"
            }
        }
    }

    /// One handler call at a step.
    public struct Call: Sendable, Hashable {
        /// The handler.
        public let handler: HandlerID
        /// The recorded outcome; `nil` for a call a what-if predicts.
        public let outcome: Outcome.Kind?

        /// The outcome's name, or `would be called`.
        public var outcomeDescription: String { outcome?.rawValue ?? "would be called" }
    }
}
