import EventTree

/// A handler at a step of a route: who, registered where, on which node, in which phase.
public struct StepHandler: Sendable, Hashable, CustomStringConvertible {
    /// The handler's id.
    public let handler: HandlerID
    /// Its label.
    public let label: String
    /// Where it was registered (`file:line`).
    public let location: String
    /// The node's path when the event was raised.
    public let nodePath: String
    /// The step's phase.
    public let phase: Phase

    /// `label (file:line) at path in phase`.
    public var description: String { "\(label) (\(location)) at \(nodePath) in \(phase)" }
}

/// A step whose node had been released.
public struct LostStep: Sendable, Hashable {
    /// The node's last path.
    public let nodePath: String
    /// The step's phase.
    public let phase: Phase
    /// The handler calls the route expected there.
    public let lostCalls: Int
    /// Who released the node: `seq 101 by close-post-2 (App.swift:33) handling event 98`,
    /// or `seq 101` when no handler did; `nil` when the journal does not say.
    public let releasedBy: String?
}

/// Where the recording and the route part ways.
public struct Divergence: Sendable, Hashable {
    /// The index of the route step (the route's length when past its end).
    public let stepIndex: Int
    /// What the rules say should have happened.
    public let expected: String
    /// What the journal says happened.
    public let recorded: String
}
