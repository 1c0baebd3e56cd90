/// Where on its route an event is when a handler sees it.
public enum Phase: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// From the root down to the origin's parent (``DeliveryMode/dispatch`` only).
    case capture = 0
    /// At the origin itself.
    case target = 1
    /// From the origin's parent up to the root.
    case bubble = 2
    /// From a node down through its descendants, depth-first, pre-order.
    case propagate = 3

    /// The case name, as the journal stores it.
    public var description: String {
        switch self {
        case .capture: "capture"
        case .target: "target"
        case .bubble: "bubble"
        case .propagate: "propagate"
        }
    }

    /// The phase whose ``description`` is `name`, if any.
    public init?(name: String) {
        guard let phase = Phase.allCases.first(where: { $0.description == name }) else { return nil }
        self = phase
    }
}
