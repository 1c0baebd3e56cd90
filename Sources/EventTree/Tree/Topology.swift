/// The bus's tree: parents, ordered children, node records and handler lists, indexed by
/// slot. A value type: a raise copies it (copy-on-write makes that free unless the tree
/// changes while the copy lives), so each route is computed on the tree as it stood at
/// raise time while the live tree moves on.
struct Topology {
    /// Parent slot of each slot, `-1` for roots and free slots.
    var parents: [Int] = []
    /// Child slots of each slot, in attach order.
    var children: [[Int]] = []
    /// The node in each slot, `nil` for free slots.
    var cores: [NodeCore?] = []
    /// Handlers registered on each slot, in registration order.
    var handlers: [[HandlerEntry]] = []
    /// Dispatch plans: for each slot with handlers, for each type the bus has met (by its
    /// number), the slot's handlers that match the type and its channel, in registration
    /// order. Rebuilt when a slot's handlers change or a type is met for the first time, so
    /// that a step neither casts nor filters by type: a slot without handlers costs a
    /// bounds check.
    var plans: [[[HandlerEntry]]] = []
    /// Slots free for reuse.
    var freeSlots: [Int] = []

    /// Takes a free slot (or grows the arrays) for a new root node.
    mutating func takeSlot() -> Int {
        if let slot = freeSlots.popLast() { return slot }
        parents.append(-1)
        children.append([])
        cores.append(nil)
        handlers.append([])
        plans.append([])
        return parents.count - 1
    }

    /// The handlers of `slot` that match the type numbered `type` (see ``plans``).
    @inline(__always)
    func plan(for slot: Int, type: Int) -> [HandlerEntry] {
        let plans = plans[slot]
        return type < plans.count ? plans[type] : []
    }

    /// The node in `slot`, unretained: the topology holds it (read in place, so that a step
    /// at the node the delivery is already at retains nothing).
    @inline(__always)
    func unretainedCore(at slot: Int) -> Unmanaged<NodeCore>? {
        cores.withUnsafeBufferPointer { cores in cores[slot].map { Unmanaged.passUnretained($0) } }
    }

    /// Whether the plan of `slot` for the type numbered `type` has handlers (read in place:
    /// nothing is copied or retained, for the steps that call nothing).
    @inline(__always)
    func hasPlan(for slot: Int, type: Int) -> Bool {
        type < plans[slot].count && !plans[slot][type].isEmpty
    }

    /// Rebuilds the plans of `slot` for every type met so far.
    mutating func rebuildPlans(of slot: Int, types: [(channel: HandlerRegistration.Channel, sample: AnyEventBox)]) {
        let entries = handlers[slot]
        plans[slot] = entries.isEmpty ? [] : types.map { type in
            entries.filter { $0.channel == type.channel && $0.matches(type.sample) }
        }
    }

    /// Whether `ancestor` is `slot` or above it.
    func isAncestor(_ ancestor: Int, of slot: Int) -> Bool {
        var current = slot
        while current >= 0 {
            if current == ancestor { return true }
            current = parents[current]
        }
        return false
    }

    /// Removes `slot` from its parent's children and makes it a root. Returns the former parent.
    @discardableResult
    mutating func unlink(_ slot: Int) -> Int? {
        let parent = parents[slot]
        guard parent >= 0 else { return nil }
        if let index = children[parent].firstIndex(of: slot) { children[parent].remove(at: index) }
        parents[slot] = -1
        return parent
    }

    /// Makes root `slot` the child of `parent` at `index` (clamped), returning the index used.
    mutating func link(_ slot: Int, under parent: Int, at index: Int?) -> Int {
        let position = min(max(index ?? children[parent].count, 0), children[parent].count)
        children[parent].insert(slot, at: position)
        parents[slot] = parent
        return position
    }

    /// The names from the root to `slot`, joined by `/`.
    func path(of slot: Int) -> String {
        var names: [String] = []
        var current = slot
        while current >= 0, let core = cores[current] {
            names.append(core.name)
            current = parents[current]
        }
        return names.reversed().joined(separator: "/")
    }
}

/// The tree as a raise found it, shared (one reference) by every raise until the tree
/// changes: see `EventBus.State.topologySnapshot()`.
final class TopologySnapshot: Sendable {
    let topology: Topology

    init(_ topology: Topology) {
        self.topology = topology
    }
}

/// A topology seen by the router for one event: its shape, and where handlers for the
/// event's type listen in the propagate phase.
struct LiveRouteTree: RouteTree {
    /// Unretained: the delivery walking the tree holds the snapshot (and reading through a
    /// guaranteed reference costs no retain per step).
    let snapshot: Unmanaged<TopologySnapshot>
    let typeIndex: Int
    let channel: HandlerRegistration.Channel

    // Safe, here and below: the delivery walking the tree holds the snapshot (see `snapshot`).
    @inline(__always)
    func parent(of node: Int) -> Int? {
        let parent = snapshot._withUnsafeGuaranteedRef { $0.topology.parents[node] }
        return parent >= 0 ? parent : nil
    }

    func children(of node: Int) -> [Int] { snapshot._withUnsafeGuaranteedRef { $0.topology.children[node] } }

    func hasPropagateHandler(at node: Int) -> Bool {
        snapshot._withUnsafeGuaranteedRef { snapshot in
            // The plans as the raise found them: a handler removed during delivery still
            // counts, one added does not (descend filters are judged at raise time).
            snapshot.topology.plan(for: node, type: typeIndex).contains { $0.phases.contains(.propagate) }
        }
    }
}
