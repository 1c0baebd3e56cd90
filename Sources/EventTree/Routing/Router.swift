/// Computes routes: the one definition of the delivery rules.
///
/// ``RouteWalk`` yields a route's steps one at a time, so that live delivery walks the
/// route as it goes (ancestors are found on the fly; nothing is built up front) and stops
/// where the event stops; ``route(from:mode:in:)`` collects the same steps into an array
/// for replay. Both are inlinable, so that each caller gets a version specialized for its
/// tree type; the rules are still written once, in ``RouteWalk/next()``.
///
/// A route is a pure function of a tree, an origin and a mode. Its cost is proportional
/// to the length of the route (plus, for filtered `descend` routes, the part of the
/// subtree it has to look at): bubbling up a deep tree never walks the whole tree.
package enum Router {
    /// The ordered steps an event raised at `origin` with `mode` visits.
    ///
    /// - Parameters:
    ///   - origin: The node the event is raised at.
    ///   - mode: The delivery mode.
    ///   - tree: The tree as it stood when the event was raised. It must be acyclic.
    /// - Returns: The steps in delivery order.
    @inlinable
    package static func route<Tree: RouteTree>(
        from origin: Tree.Node, mode: DeliveryMode, in tree: Tree
    ) -> [RouteStep<Tree.Node>] {
        var steps: [RouteStep<Tree.Node>] = []
        steps.reserveCapacity(8)
        var walk = RouteWalk(from: origin, mode: mode, in: tree)
        while let step = walk.next() { steps.append(step) }
        return steps
    }
}

/// The steps of one route, one at a time (see ``Router``).
///
/// - `bubble`: target at the origin, then bubble at each ancestor, nearest first.
/// - `dispatch`: capture at each ancestor from the root down, target, then bubble up.
/// - `broadcast`: target, bubble up to the root, then propagate from the root through every
///   node of its tree, depth-first, pre-order, children in attach order.
/// - `descend`: target, then propagate through the origin's descendants: every level, the
///   first node with a matching handler on each branch, or the deepest level that has one.
package struct RouteWalk<Tree: RouteTree> {
    @usableFromInline let tree: Tree
    @usableFromInline let origin: Tree.Node
    @usableFromInline let mode: DeliveryMode
    @usableFromInline var stage: Stage = .start
    /// The node of the last step of the upward walk (bubble), to go on from.
    @usableFromInline var node: Tree.Node
    /// The nodes of steps to come, the next one last: for a dispatch, the ancestors still to
    /// capture (the root last pushed, so first taken); for `descend(.deepestLevel)`, the
    /// deepest level that has a handler. (One list for both: a route needs one or neither.)
    @usableFromInline var queued: [Tree.Node] = []
    /// Descendants still to visit: each level's children and where the walk is in them.
    @usableFromInline var pending: [(children: [Tree.Node], next: Int)] = []

    @usableFromInline
    enum Stage {
        case start, capturing, bubbling, propagating, deepest, done
    }

    /// A walk over the route of an event raised at `origin` with `mode` in `tree`.
    @inlinable
    package init(from origin: Tree.Node, mode: DeliveryMode, in tree: Tree) {
        self.tree = tree
        self.origin = origin
        self.mode = mode
        node = origin
    }

    /// The next step, or `nil` at the end of the route.
    @inlinable
    package mutating func next() -> RouteStep<Tree.Node>? {
        switch stage {
        case .start:
            if case .dispatch = mode {
                var ancestor = tree.parent(of: origin)
                while let current = ancestor {
                    queued.append(current)
                    ancestor = tree.parent(of: current)
                }
                if !queued.isEmpty {
                    stage = .capturing
                    return RouteStep(node: queued.removeLast(), phase: .capture)
                }
            }
            return target()
        case .capturing:
            if let next = queued.popLast() { return RouteStep(node: next, phase: .capture) }
            return target()
        case .bubbling:
            if let parent = tree.parent(of: node) {
                node = parent
                return RouteStep(node: parent, phase: .bubble)
            }
            return leaveRoot()
        case .propagating:
            return nextDescendant()
        case .deepest:
            guard let next = queued.popLast() else { return finish() }
            return RouteStep(node: next, phase: .propagate)
        case .done:
            return nil
        }
    }

    /// The target step, and what follows it.
    /// The next step at a node `skip` does not reject, or `nil` when the route is done: the
    /// same steps as ``next()`` without those at rejected nodes (for a delivery, the nodes
    /// with no handler for the event). Bubbling climbs straight past rejected nodes, so that
    /// a long route with few listeners costs a few instructions per node.
    @inlinable
    package mutating func next(skipping skip: (Tree.Node) -> Bool) -> RouteStep<Tree.Node>? {
        while true {
            if case .bubbling = stage {
                while let parent = tree.parent(of: node) {
                    node = parent
                    if !skip(parent) { return RouteStep(node: parent, phase: .bubble) }
                }
                guard let step = leaveRoot() else { return nil }
                if !skip(step.node) { return step }
                continue
            }
            guard let step = next() else { return nil }
            if !skip(step.node) { return step }
        }
    }

    /// The step after the upward walk reached the root: a broadcast propagates from it;
    /// any other route ends.
    @inlinable
    mutating func leaveRoot() -> RouteStep<Tree.Node>? {
        guard case .broadcast = mode else { return finish() }
        startPropagating(below: node)
        return RouteStep(node: node, phase: .propagate)
    }

    @inlinable
    mutating func target() -> RouteStep<Tree.Node> {
        switch mode {
        case .bubble, .dispatch, .broadcast:
            stage = .bubbling
        case .descend(.deepestLevel):
            queued = deepestHandlerLevel(below: origin).reversed()
            stage = .deepest
        case .descend:
            startPropagating(below: origin)
        }
        return RouteStep(node: origin, phase: .target)
    }

    @inlinable
    mutating func startPropagating(below top: Tree.Node) {
        let children = tree.children(of: top)
        if !children.isEmpty { pending.append((children, 0)) }
        stage = .propagating
    }

    /// The next strict descendant on the walk (depth-first, pre-order, attach order);
    /// with `descend(.firstHandler)`, only the first node with a handler on each branch.
    @inlinable
    mutating func nextDescendant() -> RouteStep<Tree.Node>? {
        // An explicit stack: a deep tree must not overflow the thread's stack.
        while let last = pending.indices.last {
            let (children, next) = pending[last]
            guard next < children.count else {
                pending.removeLast()
                continue
            }
            pending[last].next = next + 1
            let node = children[next]
            if case .descend(.firstHandler) = mode, tree.hasPropagateHandler(at: node) {
                // The branch stops at its first node with a handler.
                return RouteStep(node: node, phase: .propagate)
            }
            let below = tree.children(of: node)
            if !below.isEmpty { pending.append((below, 0)) }
            if case .descend(.firstHandler) = mode { continue }
            return RouteStep(node: node, phase: .propagate)
        }
        return finish()
    }

    /// The deepest level below `top` (depth-first order) that has a node with a handler.
    @inlinable
    func deepestHandlerLevel(below top: Tree.Node) -> [Tree.Node] {
        var deepestDepth = 0
        var levels: [(node: Tree.Node, depth: Int)] = []
        var stack: [(children: [Tree.Node], next: Int)] = [(tree.children(of: top), 0)]
        while let last = stack.indices.last {
            let (children, next) = stack[last]
            guard next < children.count else {
                stack.removeLast()
                continue
            }
            stack[last].next = next + 1
            let node = children[next]
            let depth = stack.count
            levels.append((node, depth))
            if depth > deepestDepth, tree.hasPropagateHandler(at: node) { deepestDepth = depth }
            let below = tree.children(of: node)
            if !below.isEmpty { stack.append((below, 0)) }
        }
        guard deepestDepth > 0 else { return [] }
        return levels.filter { $0.depth == deepestDepth }.map(\.node)
    }

    @inlinable
    mutating func finish() -> RouteStep<Tree.Node>? {
        stage = .done
        return nil
    }
}
