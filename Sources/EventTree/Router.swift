/// Computes routes: the one definition of the delivery rules.
///
/// Inlinable, so that each caller (live delivery, replay) gets a version specialized for its
/// tree type; the rules are still written once, here.
///
/// ``route(from:mode:in:)`` is a pure function of a tree, an origin and a mode. Live
/// delivery calls it on a snapshot of the bus's tree taken when the event is raised;
/// replay calls it on a tree rebuilt from a journal. Its cost is proportional to the
/// length of the route it returns (plus, for filtered `descend` routes, the part of the
/// subtree it has to look at): bubbling up a deep tree never walks the whole tree.
public enum Router {
    /// The ordered steps an event raised at `origin` with `mode` visits.
    ///
    /// - Parameters:
    ///   - origin: The node the event is raised at.
    ///   - mode: The delivery mode.
    ///   - tree: The tree as it stood when the event was raised. It must be acyclic.
    /// - Returns: The steps in delivery order.
    @inlinable
    public static func route<Tree: RouteTree>(
        from origin: Tree.Node, mode: DeliveryMode, in tree: Tree
    ) -> [RouteStep<Tree.Node>] {
        var steps: [RouteStep<Tree.Node>] = []
        steps.reserveCapacity(8)
        switch mode {
        case .bubble:
            steps.append(RouteStep(node: origin, phase: .target))
            appendAncestors(of: origin, phase: .bubble, in: tree, to: &steps)
        case .dispatch:
            appendAncestors(of: origin, phase: .capture, in: tree, to: &steps)
            steps.reverse()
            steps.append(RouteStep(node: origin, phase: .target))
            appendAncestors(of: origin, phase: .bubble, in: tree, to: &steps)
        case .broadcast:
            steps.append(RouteStep(node: origin, phase: .target))
            appendAncestors(of: origin, phase: .bubble, in: tree, to: &steps)
            let root = steps[steps.count - 1].node
            steps.append(RouteStep(node: root, phase: .propagate))
            appendDescendants(of: root, in: tree, to: &steps)
        case .descend(let filter):
            steps.append(RouteStep(node: origin, phase: .target))
            switch filter {
            case .everyLevel:
                appendDescendants(of: origin, in: tree, to: &steps)
            case .firstHandler:
                appendFirstHandlers(below: origin, in: tree, to: &steps)
            case .deepestLevel:
                appendDeepestHandlerLevel(below: origin, in: tree, to: &steps)
            }
        }
        return steps
    }

    /// Appends the origin's ancestors, nearest first.
    @inlinable
    static func appendAncestors<Tree: RouteTree>(
        of origin: Tree.Node, phase: Phase, in tree: Tree, to steps: inout [RouteStep<Tree.Node>]
    ) {
        var node = origin
        while let parent = tree.parent(of: node) {
            steps.append(RouteStep(node: parent, phase: phase))
            node = parent
        }
    }

    /// Walks the strict descendants of `top` depth-first, pre-order, children in attach
    /// order, calling `visit` with each node and its depth (children of `top` are depth 1).
    /// `visit` returns whether to walk below the node.
    @inlinable
    static func walkDescendants<Tree: RouteTree>(
        of top: Tree.Node, in tree: Tree, _ visit: (Tree.Node, Int) -> Bool
    ) {
        // An explicit stack: a deep tree must not overflow the thread's stack.
        var pending: [(children: [Tree.Node], next: Int)] = [(tree.children(of: top), 0)]
        while let last = pending.indices.last {
            let (children, next) = pending[last]
            guard next < children.count else {
                pending.removeLast()
                continue
            }
            pending[last].next = next + 1
            let node = children[next]
            if visit(node, pending.count) {
                let below = tree.children(of: node)
                if !below.isEmpty { pending.append((below, 0)) }
            }
        }
    }

    @inlinable
    static func appendDescendants<Tree: RouteTree>(
        of top: Tree.Node, in tree: Tree, to steps: inout [RouteStep<Tree.Node>]
    ) {
        walkDescendants(of: top, in: tree) { node, _ in
            steps.append(RouteStep(node: node, phase: .propagate))
            return true
        }
    }

    @inlinable
    static func appendFirstHandlers<Tree: RouteTree>(
        below top: Tree.Node, in tree: Tree, to steps: inout [RouteStep<Tree.Node>]
    ) {
        walkDescendants(of: top, in: tree) { node, _ in
            guard tree.hasPropagateHandler(at: node) else { return true }
            steps.append(RouteStep(node: node, phase: .propagate))
            return false
        }
    }

    @inlinable
    static func appendDeepestHandlerLevel<Tree: RouteTree>(
        below top: Tree.Node, in tree: Tree, to steps: inout [RouteStep<Tree.Node>]
    ) {
        var deepest = 0
        var levels: [(node: Tree.Node, depth: Int)] = []
        walkDescendants(of: top, in: tree) { node, depth in
            levels.append((node, depth))
            if depth > deepest, tree.hasPropagateHandler(at: node) { deepest = depth }
            return true
        }
        guard deepest > 0 else { return }
        for entry in levels where entry.depth == deepest {
            steps.append(RouteStep(node: entry.node, phase: .propagate))
        }
    }
}
