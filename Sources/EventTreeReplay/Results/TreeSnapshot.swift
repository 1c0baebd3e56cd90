import EventTree

/// The tree of a session as it stood at one seq, with the handlers registered then.
public struct TreeSnapshot: Sendable {
    /// The session.
    public let session: SessionID
    /// The seq the tree is shown at (facts up to and including it).
    public let seq: Int
    /// Every node, depth-first, pre-order from each root (roots in creation order).
    public let nodes: [Entry]

    /// One node of the snapshot.
    public struct Entry: Sendable, Hashable {
        /// The node's id.
        public let id: NodeID
        /// Its name then.
        public let name: String
        /// Its path then.
        public let path: String
        /// 0 for roots.
        public let depth: Int
        /// The labels of its handlers registered then, in registration order.
        public let handlers: [String]
    }
}
