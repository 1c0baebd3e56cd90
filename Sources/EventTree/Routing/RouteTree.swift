/// What the router needs to know about a tree: its shape, and for `descend` filters,
/// where handlers are.
///
/// Live delivery conforms a copy-on-write snapshot of the bus's tree taken when an event
/// is raised; replay conforms the tree it rebuilds from a journal. Both are handed to the
/// same ``Router``, so the rules of delivery exist once.
package protocol RouteTree {
    /// A node's identity in this tree.
    associatedtype Node: Hashable

    /// The node's parent, or `nil` for a root (of the whole tree or of a detached subtree).
    func parent(of node: Node) -> Node?

    /// The node's children in attach order.
    func children(of node: Node) -> [Node]

    /// Whether a handler registered on `node` when the event was raised matches the
    /// event's type in the ``Phase/propagate`` phase. Only `descend` filters ask.
    func hasPropagateHandler(at node: Node) -> Bool
}
