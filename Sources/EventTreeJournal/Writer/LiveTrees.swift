import EventTree

/// The trees of the sessions a writer records, live nodes only, and when each is due a
/// snapshot (`j_tree_snapshots`): after ``interval`` changes of its session, or after as
/// many changes as it has nodes when it has more, so that snapshots cost a constant per
/// change whatever the tree's size, and a tree at any seq is rebuilt from at most that many
/// changes after the nearest snapshot.
struct LiveTrees {
    /// The fewest changes between two snapshots of a session.
    static let interval = 1_024

    private var trees: [SessionID: JournalTree] = [:]
    private var changesSinceSnapshot: [SessionID: Int] = [:]
    /// Sessions that ended: they get no more snapshots.
    private var finished: Set<SessionID> = []

    /// Applies a change of `session`'s tree.
    ///
    /// - Returns: The session's tree as a snapshot stores it, when one is due after this change.
    mutating func apply(_ change: JournalTree.Change, to node: NodeID, in session: SessionID) -> String? {
        guard !finished.contains(session) else { return nil }
        trees[session, default: JournalTree(liveFromEngine: ())].apply(change, to: node)
        let changes = changesSinceSnapshot[session, default: 0] + 1
        guard let tree = trees[session], changes >= max(Self.interval, tree.nodes.count) else {
            changesSinceSnapshot[session] = changes
            return nil
        }
        changesSinceSnapshot[session] = 0
        return tree.snapshotJSON
    }

    /// Forgets an ended session's tree.
    mutating func end(_ session: SessionID) {
        trees[session] = nil
        changesSinceSnapshot[session] = nil
        finished.insert(session)
    }
}
