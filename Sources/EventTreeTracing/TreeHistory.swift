import EventTree

/// The tree as the tree-change facts describe it, with enough of its past to name a node's
/// path as it stood at any recent sequence number.
///
/// A raise's records reach a recorder when its outermost raise ends, but the tree changes
/// its handlers made (a rename, a move) reach it at once, through
/// ``Recorder/recordChange(_:session:)``. So the tree the records must be read against is
/// often already in the past: each node keeps its versions, and a path is read at the
/// sequence number of the fact that names it, as the journal's readers do.
///
/// Versions that later ones replaced, released nodes, removed handlers and ended sessions
/// are forgotten once ``retention`` newer ones have been retired after them (see
/// ``Retirements``), so the model stays small in a long-running process.
struct TreeHistory {
    /// One state of a node, from `seq` on.
    struct Version {
        let seq: Int
        let name: String
        let parent: NodeID?
        /// Set once the node is released: the path it keeps for later facts about it.
        let releasedPath: String?
    }

    private var versions: [NodeID: [Version]] = [:]

    /// Applies a tree-change fact numbered `seq`. Returns what it retired (a replaced
    /// version, a released node), for ``Retirements``; `nil` for other facts.
    mutating func apply(_ fact: Fact, seq: Int) -> Retirements.Entry? {
        switch fact {
        case let .nodeCreated(node, name):
            versions[node] = [Version(seq: seq, name: name, parent: nil, releasedPath: nil)]
            return nil
        case let .nodeAttached(node, parent, _), let .nodeMoved(node, parent, _):
            return change(node, seq: seq) { Version(seq: seq, name: $0.name, parent: parent, releasedPath: nil) }
        case let .nodeDetached(node, _):
            return change(node, seq: seq) { Version(seq: seq, name: $0.name, parent: nil, releasedPath: nil) }
        case let .nodeRenamed(node, name):
            return change(node, seq: seq) { Version(seq: seq, name: name, parent: $0.parent, releasedPath: nil) }
        case let .nodeReleased(node, _):
            let path = self.path(of: node, at: seq)
            _ = change(node, seq: seq) { Version(seq: seq, name: $0.name, parent: nil, releasedPath: path ?? $0.name) }
            return .node(node)
        default:
            return nil
        }
    }

    /// Appends the version `make` derives from the node's latest; returns the retirement of
    /// the version it replaces.
    private mutating func change(_ node: NodeID, seq: Int, _ make: (Version) -> Version) -> Retirements.Entry? {
        guard let latest = versions[node]?.last else { return nil }
        versions[node]!.append(make(latest))
        return .version(node, seq: latest.seq)
    }

    /// Forgets what `entry` retired.
    mutating func forget(_ entry: Retirements.Entry) {
        switch entry {
        case let .version(node, seq):
            // Retirements come in sequence order, so a replaced version is always the oldest.
            if let first = versions[node]?.first, first.seq == seq, versions[node]!.count > 1 {
                versions[node]!.removeFirst()
            }
        case .node(let node):
            versions[node] = nil
        case .handler, .session:
            break
        }
    }

    /// The names from the root to `node` as they stood at `seq`, joined by `/` (a released
    /// node's last path); `nil` for a node the model does not know (any more).
    func path(of node: NodeID, at seq: Int) -> String? {
        var names: [String] = []
        var current: NodeID? = node
        // Bounded, so that a walk up ends whatever the facts said.
        while let id = current, let version = version(of: id, at: seq), names.count <= versions.count {
            if let released = version.releasedPath {
                names.append(released)
                break
            }
            names.append(version.name)
            current = version.parent
        }
        return names.isEmpty ? nil : names.reversed().joined(separator: "/")
    }

    /// The node's version in force at `seq`: the latest one numbered no higher (the oldest
    /// one kept, when `seq` is older than every version still known).
    private func version(of node: NodeID, at seq: Int) -> Version? {
        guard let list = versions[node], let last = list.last else { return nil }
        // The common case: nothing changed since.
        if last.seq <= seq { return last }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return list[max(low - 1, 0)]
    }
}

/// What the model no longer needs now but may for records still on their way: kept for the
/// next ``retention`` retirements, then forgotten, oldest first.
struct Retirements {
    /// One thing retired.
    enum Entry {
        /// A node's version numbered `seq`, replaced by a newer one.
        case version(NodeID, seq: Int)
        /// A released node.
        case node(NodeID)
        /// A removed handler.
        case handler(HandlerID)
        /// An ended session.
        case session(SessionID)
    }

    /// How many retired things are kept. A batch of records that arrives after this many
    /// later retirements may see a later path, or none, for what it names.
    let retention: Int
    private var entries: [Entry] = []
    private var head = 0

    init(retention: Int) {
        self.retention = retention
    }

    /// Adds `entry`; returns the entries that fall out of the window, to be forgotten.
    mutating func add(_ entry: Entry) -> ArraySlice<Entry> {
        entries.append(entry)
        guard entries.count - head > retention else { return [] }
        let dropped = entries[head..<(entries.count - retention)]
        head = entries.count - retention
        // Compact once the forgotten prefix outweighs what is kept.
        if head > retention {
            let kept = Array(entries[head...])
            entries = kept
            head = 0
            return dropped
        }
        return dropped
    }
}
