/// What replay concludes about one event.
public enum Classification: String, CaseIterable, Sendable, Hashable, Comparable {
    /// The recorded steps match the route; some handler acted (a request got its answer).
    case delivered
    /// A handler stopped it; some nodes on its route never saw it.
    case consumed
    /// The route ended with no handler acting (a dead letter), or a request went unanswered.
    case unhandled
    /// Handler calls the route expected were never made: a node was released during
    /// delivery, or the raise never ended.
    case lost
    /// The recorded steps differ from the route the rules compute.
    case diverged
    /// A handler threw.
    case failed

    /// The most telling class first: diverged, lost, failed, consumed, unhandled, delivered.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .diverged: 0
        case .lost: 1
        case .failed: 2
        case .consumed: 3
        case .unhandled: 4
        case .delivered: 5
        }
    }
}
