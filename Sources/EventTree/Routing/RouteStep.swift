/// One stop of a route: a node and the phase in which its handlers see the event.
package struct RouteStep<Node: Hashable>: Hashable {
    /// The node visited.
    package var node: Node
    /// The phase of the visit.
    package var phase: Phase

    /// Creates a step.
    package init(node: Node, phase: Phase) {
        self.node = node
        self.phase = phase
    }
}

extension RouteStep: Sendable where Node: Sendable {}
