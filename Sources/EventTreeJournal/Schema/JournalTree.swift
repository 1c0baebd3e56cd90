import EventTree
import Foundation

/// A tree rebuilt from tree changes: what the journal's writer keeps to write snapshots of,
/// and what replay keeps to recompute routes. A value, so that copying it keeps the tree as it
/// stood (copy-on-write makes the copy cheap until the tree changes).
public struct JournalTree: Sendable {
    /// One node of the tree.
    public struct Node: Sendable {
        /// Its name now.
        public var name: String
        /// Its parent, or `nil` for a root.
        public var parent: NodeID?
        /// Its children in attach order.
        public var children: [NodeID] = []
    }

    /// One change to the tree, as the `tree_changes` view names them.
    public enum Change: Sendable, Equatable {
        /// A node was created, as a root.
        case created(name: String)
        /// A root was attached under `parent` at `index`.
        case attached(parent: NodeID, index: Int)
        /// The node left its parent.
        case detached
        /// The node moved under `parent` at `index`.
        case moved(parent: NodeID, index: Int)
        /// The node was renamed.
        case renamed(name: String)
        /// The node was released: it leaves the tree (its children were detached first).
        case released

        /// The change's kind.
        public var kind: Kind {
            switch self {
            case .created: .created
            case .attached: .attached
            case .detached: .detached
            case .moved: .moved
            case .renamed: .renamed
            case .released: .released
            }
        }

        /// The `tree_changes.change` name.
        public var name: String { kind.description }

        /// The kinds of change, as the journal stores them.
        public enum Kind: Int, Sendable, CaseIterable, CustomStringConvertible {
            /// See ``Change/created(name:)``.
            case created = 0
            /// See ``Change/attached(parent:index:)``.
            case attached = 1
            /// See ``Change/detached``.
            case detached = 2
            /// See ``Change/moved(parent:index:)``.
            case moved = 3
            /// See ``Change/renamed(name:)``.
            case renamed = 4
            /// See ``Change/released``.
            case released = 5

            /// The `tree_changes.change` name.
            public var description: String {
                switch self {
                case .created: "created"
                case .attached: "attached"
                case .detached: "detached"
                case .moved: "moved"
                case .renamed: "renamed"
                case .released: "released"
                }
            }
        }

        /// The change a `j_changes` row describes, or `nil` for a row that makes no sense
        /// (an unknown kind, an attach without a parent).
        init?(kind code: Int, parent: Int?, position: Int?, name: String?) {
            guard let kind = Kind(rawValue: code) else { return nil }
            switch kind {
            case .created: self = .created(name: name ?? "?")
            case .attached:
                guard let parent else { return nil }
                self = .attached(parent: NodeID(rawValue: parent), index: position ?? Int.max)
            case .detached: self = .detached
            case .moved:
                guard let parent else { return nil }
                self = .moved(parent: NodeID(rawValue: parent), index: position ?? Int.max)
            case .renamed: self = .renamed(name: name ?? "?")
            case .released: self = .released
            }
        }
    }

    /// The nodes in the tree now.
    public private(set) var nodes: [NodeID: Node] = [:]
    /// The last path of each released node.
    public private(set) var releasedPaths: [NodeID: String] = [:]
    /// Whether this is a tree of live nodes fed by the engine (see ``init(liveFromEngine:)``).
    private var isLiveFromEngine = false

    /// An empty tree.
    public init() {}

    /// An empty tree of live nodes, fed by the engine's own changes: a released node is
    /// forgotten (the tree holds the live nodes only, however many came and went), and an
    /// attach is not checked for a cycle (the engine refuses them), which would walk up the
    /// tree at every change and make building a deep chain quadratic.
    package init(liveFromEngine: Void) {
        isLiveFromEngine = true
    }

    /// Applies one change to `node`.
    public mutating func apply(_ change: Change, to node: NodeID) {
        switch change {
        case .created(let name):
            nodes[node] = Node(name: name)
        case let .attached(parent, index), let .moved(parent, index):
            // A change that would make a cycle cannot come from the engine (it refuses
            // them); from a damaged journal it is ignored, so that walks up stay finite. So
            // is a change of a node the tree does not have (its creation was not journaled).
            guard nodes[node] != nil, isLiveFromEngine || !isAncestor(node, of: parent) else { return }
            unlink(node)
            nodes[node]?.parent = parent
            if nodes[parent] != nil {
                let position = min(max(index, 0), nodes[parent]!.children.count)
                nodes[parent]!.children.insert(node, at: position)
            }
        case .detached:
            unlink(node)
        case .renamed(let name):
            nodes[node]?.name = name
        case .released:
            if !isLiveFromEngine { releasedPaths[node] = path(of: node) }
            unlink(node)
            for child in nodes[node]?.children ?? [] { nodes[child]?.parent = nil }
            nodes[node] = nil
        }
    }

    /// Whether `ancestor` is `node` or one of its ancestors.
    public func isAncestor(_ ancestor: NodeID, of node: NodeID) -> Bool {
        var current: NodeID? = node
        var steps = 0
        while let id = current, steps <= nodes.count {
            if id == ancestor { return true }
            current = nodes[id]?.parent
            steps += 1
        }
        return false
    }

    private mutating func unlink(_ node: NodeID) {
        guard let parent = nodes[node]?.parent else { return }
        nodes[parent]?.children.removeAll { $0 == node }
        nodes[node]?.parent = nil
    }

    /// The names from the root to `node`, joined by `/` (a released node's last path).
    public func path(of node: NodeID) -> String {
        guard let entry = nodes[node] else { return releasedPaths[node] ?? "" }
        // A root's path is its name: nothing to gather and join.
        guard let parent = entry.parent else { return entry.name }
        var names = [entry.name]
        var current: NodeID? = parent
        // Bounded: a damaged journal may link parents in a cycle.
        while let id = current, let entry = nodes[id], names.count <= nodes.count {
            names.append(entry.name)
            current = entry.parent
        }
        return names.reversed().joined(separator: "/")
    }

    /// The node whose path is `path`, if one is in the tree (the first created, when names
    /// repeat).
    public func node(atPath path: String) -> NodeID? {
        roots.lazy.flatMap { self.nodes(in: $0, withPath: path, rootPath: self.nodes[$0]?.name ?? "") }.min()
    }

    /// The nodes of the subtree of `node` (itself included) whose path is `path`, found by
    /// walking down the branches whose names `path` spells, so that a search costs the
    /// branches it follows, not the subtree.
    ///
    /// - Parameters:
    ///   - node: The subtree's root.
    ///   - path: The path to look for.
    ///   - rootPath: The path of `node`, when the caller has it.
    public func nodes(in node: NodeID, withPath path: String, rootPath: String? = nil) -> [NodeID] {
        var found: [NodeID] = []
        let start = rootPath ?? self.path(of: node)
        guard nodes[node] != nil, path.hasPrefix(start) else { return [] }
        // Each step: a node and what of `path` is left below it ("" when it is the node).
        var pending = [(node, path.dropFirst(start.count))]
        var steps = 0
        while let (current, rest) = pending.popLast(), steps <= nodes.count {
            steps += 1
            if rest.isEmpty {
                found.append(current)
                continue
            }
            guard rest.first == "/" else { continue }
            let below = rest.dropFirst()
            for child in nodes[current]?.children ?? [] {
                guard let name = nodes[child]?.name, below.hasPrefix(name) else { continue }
                pending.append((child, below.dropFirst(name.count)))
            }
        }
        return found
    }

    /// The roots, in creation order.
    public var roots: [NodeID] { nodes.filter { $0.value.parent == nil }.keys.sorted() }

    // MARK: Snapshots

    /// The tree as a snapshot stores it (`j_tree_snapshots.nodes`): a JSON array of
    /// `[node_id, parent_id or null, name]`, roots in creation order, each node before its
    /// children and children in order, so that creating and attaching the nodes in turn
    /// rebuilds the same tree.
    package var snapshotJSON: String {
        var parts: [String] = []
        parts.reserveCapacity(nodes.count)
        var steps = 0
        for root in roots {
            var pending: [(node: NodeID, parent: NodeID?)] = [(root, nil)]
            while let (node, parent) = pending.popLast(), steps <= nodes.count {
                steps += 1
                guard let entry = nodes[node] else { continue }
                parts.append("[\(node.rawValue),\(parent.map { String($0.rawValue) } ?? "null"),\(JSONText.quoted(entry.name))]")
                pending.append(contentsOf: entry.children.reversed().map { ($0, node) })
            }
        }
        return "[" + parts.joined(separator: ",") + "]"
    }

    /// The tree a snapshot stores, or `nil` when `json` is not one (a node twice, a parent
    /// not given before its child, a value of the wrong kind).
    package init?(snapshotJSON json: String) {
        guard let entries = try? JSONDecoder().decode([SnapshotEntry].self, from: Data(json.utf8)) else { return nil }
        for entry in entries {
            guard nodes[entry.node] == nil else { return nil }
            nodes[entry.node] = Node(name: entry.name)
            guard let parent = entry.parent else { continue }
            // Each node is new and its parent given before it: linked as is, no cycle possible.
            guard nodes[parent] != nil, parent != entry.node else { return nil }
            nodes[entry.node]!.parent = parent
            nodes[parent]!.children.append(entry.node)
        }
    }

    /// One `[node_id, parent_id or null, name]` of a snapshot.
    private struct SnapshotEntry: Decodable {
        let node: NodeID
        let parent: NodeID?
        let name: String

        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            node = NodeID(rawValue: try values.decode(Int.self))
            parent = try values.decodeNil() ? nil : NodeID(rawValue: try values.decode(Int.self))
            name = try values.decode(String.self)
            guard values.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: values, debugDescription: "more than three values")
            }
        }
    }

    /// Remembers the last path of a released node this tree did not see released (it was
    /// rebuilt from a snapshot taken after).
    package mutating func remember(path: String, ofReleased node: NodeID) {
        guard nodes[node] == nil else { return }
        releasedPaths[node] = path
    }
}
