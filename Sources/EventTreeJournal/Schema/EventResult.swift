import EventTree

/// An event's result, as the `event_history` view, `eventtree replay` and the library all
/// state it: how its raise ended, or ``lost`` when it never ended or lost calls to a
/// released node without a handler having stopped it.
public enum EventResult: String, Sendable, CaseIterable, CustomStringConvertible {
    /// See `RaiseStatus.delivered`.
    case delivered
    /// See `RaiseStatus.consumed(by:)`.
    case consumed
    /// See `RaiseStatus.answered(by:)`.
    case answered
    /// See `RaiseStatus.unanswered`.
    case unanswered
    /// See `RaiseStatus.unhandled`.
    case unhandled
    /// See `RaiseStatus.failed(_:)`.
    case failed
    /// The raise never ended, or handler calls it expected were lost to released nodes.
    case lost

    /// The one rule (the `event_history` view spells the same in SQL): a raise that never
    /// ended is lost; one that ended delivered, unanswered or unhandled but lost calls is
    /// lost; otherwise its status.
    public init(status: RaiseStatus.Kind?, lostCalls: Int) {
        guard let status else {
            self = .lost
            return
        }
        if lostCalls > 0 && [.delivered, .unanswered, .unhandled].contains(status) {
            self = .lost
            return
        }
        switch status {
        case .delivered: self = .delivered
        case .consumed: self = .consumed
        case .answered: self = .answered
        case .unanswered: self = .unanswered
        case .unhandled: self = .unhandled
        case .failed: self = .failed
        }
    }

    /// The word.
    public var description: String { rawValue }
}
