/// How an event travels from its origin: which phases its route is made of.
///
/// | mode | route |
/// | --- | --- |
/// | ``bubble`` | target, bubble |
/// | ``broadcast`` | target, bubble, then propagate from the root through every node |
/// | ``dispatch`` | capture, target, bubble |
/// | ``descend(_:)`` | target, then propagate through the origin's descendants |
public enum DeliveryMode: Sendable, Hashable, CustomStringConvertible {
    /// Up from the origin to the root, like a responder chain.
    case bubble
    /// Up to the root, then down from the root to every node (the origin and its
    /// ancestors are visited again).
    case broadcast
    /// Down from the root to the origin's parent, the origin, then back up: DOM events.
    case dispatch
    /// The origin, then its descendants, filtered by `filter`.
    case descend(DescendFilter = .everyLevel)

    /// `descend` with no filter.
    public static var descend: DeliveryMode { .descend(.everyLevel) }

    /// The journal's spelling: `bubble`, `broadcast`, `dispatch`, `descend`,
    /// `descend:firstHandler`, `descend:deepestLevel`.
    public var description: String {
        switch self {
        case .bubble: "bubble"
        case .broadcast: "broadcast"
        case .dispatch: "dispatch"
        case .descend(.everyLevel): "descend"
        case .descend(let filter): "descend:\(filter)"
        }
    }

    /// Parses the spelling ``description`` prints.
    public init?(name: String) {
        switch name {
        case "bubble": self = .bubble
        case "broadcast": self = .broadcast
        case "dispatch": self = .dispatch
        case "descend": self = .descend(.everyLevel)
        case "descend:firstHandler": self = .descend(.firstHandler)
        case "descend:deepestLevel": self = .descend(.deepestLevel)
        default: return nil
        }
    }
}

/// Which descendants a ``DeliveryMode/descend(_:)`` route visits.
///
/// Filters never apply to the origin's target step, and they are judged on the handlers
/// registered when the event is raised.
public enum DescendFilter: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Every descendant.
    case everyLevel
    /// On each branch, the first node with a handler matching the event's type in the
    /// propagate phase, and nothing below it.
    case firstHandler
    /// Every node at the deepest depth below the origin that has such a handler.
    case deepestLevel

    /// The case name.
    public var description: String { rawValue }
}
