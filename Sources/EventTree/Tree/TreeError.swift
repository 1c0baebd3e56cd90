/// Why a change to the tree was refused. The tree is left as it was.
public enum TreeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The node would become its own ancestor.
    case wouldCreateCycle(node: NodeID, parent: NodeID)
    /// The two nodes live on different buses; a tree never spans buses.
    case differentBus(node: NodeID, parent: NodeID)
    /// The node (or the intended parent) has been released.
    case released(NodeID)

    /// One line saying what happened and what to do.
    public var description: String {
        switch self {
        case let .wouldCreateCycle(node, parent):
            "cannot attach node \(node) under \(parent): \(parent) is \(node) itself or one of its descendants; detach it first"
        case let .differentBus(node, parent):
            "cannot attach node \(node) under \(parent): they belong to different buses; create the child on its parent's bus"
        case let .released(node):
            "node \(node) has been released and can no longer change; create a new node"
        }
    }
}
