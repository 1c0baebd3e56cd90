/// One stop of a route: a node and the phase in which its handlers see the event.
public struct RouteStep<Node: Hashable>: Hashable {
    /// The node visited.
    public var node: Node
    /// The phase of the visit.
    public var phase: Phase

    /// Creates a step.
    public init(node: Node, phase: Phase) {
        self.node = node
        self.phase = phase
    }
}

extension RouteStep: Sendable where Node: Sendable {}
