import EventTree
import Testing

/// A tree given as a parent array: node `i`'s parent is `parents[i]` (`nil` for the root);
/// children are in index order.
struct ArrayTree: RouteTree {
    let parents: [Int?]
    let handlers: Set<Int>

    func parent(of node: Int) -> Int? { parents[node] }
    func children(of node: Int) -> [Int] { parents.indices.filter { parents[$0] == node } }
    func hasPropagateHandler(at node: Int) -> Bool { handlers.contains(node) }

    /// Every ordered tree with `count` nodes whose parents come before their children
    /// (every ordered shape appears, some more than once, labelled differently).
    static func shapes(of count: Int) -> [[Int?]] {
        guard count > 1 else { return [[nil]] }
        return shapes(of: count - 1).flatMap { smaller in
            (0..<(count - 1)).map { parent in smaller + [parent] }
        }
    }
}

/// The delivery rules written a second way, from each node's path of child indices,
/// to check the router against.
struct Oracle {
    let tree: ArrayTree

    /// The chain from the root down to `node`, both included.
    func lineage(_ node: Int) -> [Int] {
        var chain = [node]
        while let parent = tree.parents[chain[0]] { chain.insert(parent, at: 0) }
        return chain
    }

    /// Child positions from the root down to `node`: pre-order is their lexicographic order.
    func address(_ node: Int) -> [Int] {
        lineage(node).dropFirst().map { child in
            tree.children(of: tree.parents[child]!).firstIndex(of: child)!
        }
    }

    func preorder(_ nodes: [Int]) -> [Int] {
        nodes.sorted { address($0).lexicographicallyPrecedes(address($1)) }
    }

    func isStrictDescendant(_ node: Int, of top: Int) -> Bool {
        node != top && lineage(node).contains(top)
    }

    func route(from origin: Int, mode: DeliveryMode) -> [RouteStep<Int>] {
        let above = lineage(origin).dropLast()
        let target = [RouteStep(node: origin, phase: .target)]
        let bubble = above.reversed().map { RouteStep(node: $0, phase: .bubble) }
        let all = Array(tree.parents.indices)
        let below = all.filter { isStrictDescendant($0, of: origin) }
        let depth = { (node: Int) in lineage(node).count }
        switch mode {
        case .bubble:
            return target + bubble
        case .dispatch:
            return above.map { RouteStep(node: $0, phase: .capture) } + target + bubble
        case .broadcast:
            let root = lineage(origin)[0]
            let everyone = preorder(all.filter { lineage($0).contains(root) })
            return target + bubble + everyone.map { RouteStep(node: $0, phase: .propagate) }
        case .descend(.everyLevel):
            return target + preorder(below).map { RouteStep(node: $0, phase: .propagate) }
        case .descend(.firstHandler):
            let first = below.filter { node in
                tree.handlers.contains(node)
                    && !lineage(node).contains { $0 != node && isStrictDescendant($0, of: origin) && tree.handlers.contains($0) }
            }
            return target + preorder(first).map { RouteStep(node: $0, phase: .propagate) }
        case .descend(.deepestLevel):
            guard let deepest = below.filter(tree.handlers.contains).map(depth).max() else { return target }
            return target + preorder(below.filter { depth($0) == deepest }).map { RouteStep(node: $0, phase: .propagate) }
        }
    }
}

let everyMode: [DeliveryMode] = [.bubble, .broadcast, .dispatch] + DescendFilter.allCases.map { .descend($0) }

@Suite struct RouterTests {
    @Test func everySmallTreeOriginModeAndHandlerPlacementAgreesWithTheOracle() {
        var checked = 0
        for count in 1...4 {
            for parents in ArrayTree.shapes(of: count) {
                for mask in 0..<(1 << count) {
                    let handlers = Set((0..<count).filter { mask & (1 << $0) != 0 })
                    let tree = ArrayTree(parents: parents, handlers: handlers)
                    let oracle = Oracle(tree: tree)
                    for origin in 0..<count {
                        for mode in everyMode {
                            #expect(
                                Router.route(from: origin, mode: mode, in: tree) == oracle.route(from: origin, mode: mode),
                                "tree \(parents) handlers \(handlers.sorted()) origin \(origin) mode \(mode)")
                            checked += 1
                        }
                    }
                }
            }
        }
        // Parent arrays × handler placements × origins, for 1 to 4 nodes, times 6 modes.
        // (The 1 + 1 + 2 + 6 parent arrays cover all 1 + 1 + 2 + 5 ordered shapes.)
        #expect(checked == 6 * (1 * 2 * 1 + 1 * 4 * 2 + 2 * 8 * 3 + 6 * 16 * 4))
    }

    @Test func aWalkSkippingNodesYieldsTheRouteWithoutThemOnEverySmallTree() {
        for count in 1...4 {
            for parents in ArrayTree.shapes(of: count) {
                for mask in 0..<(1 << count) {
                    let tree = ArrayTree(parents: parents, handlers: Set((0..<count).filter { mask & (1 << $0) != 0 }))
                    for skipMask in 0..<(1 << count) {
                        for origin in 0..<count {
                            for mode in everyMode {
                                var walk = RouteWalk(from: origin, mode: mode, in: tree)
                                var steps: [RouteStep<Int>] = []
                                while let step = walk.next(skipping: { skipMask & (1 << $0) != 0 }) { steps.append(step) }
                                let expected = Router.route(from: origin, mode: mode, in: tree).filter { skipMask & (1 << $0.node) == 0 }
                                #expect(steps == expected, "tree \(parents) skip \(skipMask) origin \(origin) mode \(mode)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// Live delivery follows the oracle's routes on every small tree, with handlers on every
    /// subset of its nodes (all of them included): the calls are the route's steps at the
    /// nodes that listen, in order.
    @Test func liveDeliveryFollowsTheSameRoutesOnEverySmallTree() {
        for count in 1...4 {
            for parents in ArrayTree.shapes(of: count) {
                for mask in 1..<(1 << count) {
                    let listening = Set((0..<count).filter { mask & (1 << $0) != 0 })
                    let oracle = Oracle(tree: ArrayTree(parents: parents, handlers: listening))
                    let bus = EventBus()
                    var nodes: [EventNode] = []
                    for (index, parent) in parents.enumerated() {
                        nodes.append(parent.map { EventNode("n\(index)", parent: nodes[$0]) } ?? EventNode("n\(index)", bus: bus))
                    }
                    let seen = SeenSteps()
                    for index in listening.sorted() {
                        nodes[index].on(Ping.self, phases: .all) { _, context in
                            seen.append(RouteStep(node: index, phase: context.phase))
                            return .handled
                        }
                    }
                    for origin in 0..<count {
                        for mode in everyMode {
                            seen.clear()
                            nodes[origin].raise(Ping(), mode: mode)
                            let expected = oracle.route(from: origin, mode: mode).filter { listening.contains($0.node) }
                            #expect(seen.steps == expected, "tree \(parents) handlers \(listening.sorted()) origin \(origin) mode \(mode)")
                        }
                    }
                }
            }
        }
    }

    @Test func bubblingUpADeepChainVisitsOnlyTheChain() {
        // 1,000 nodes in a chain, 1,000 leaves hanging off the root: bubbling from the
        // bottom visits the chain and never asks for the leaves' children.
        final class CountingTree: RouteTree {
            var childrenAsked = 0
            func parent(of node: Int) -> Int? { node > 0 && node < 1000 ? node - 1 : (node >= 1000 ? 0 : nil) }
            func children(of node: Int) -> [Int] { childrenAsked += 1; return [] }
            func hasPropagateHandler(at node: Int) -> Bool { false }
        }
        let tree = CountingTree()
        let route = Router.route(from: 999, mode: .bubble, in: tree)
        #expect(route.count == 1000)
        #expect(route.first == RouteStep(node: 999, phase: .target))
        #expect(route.last == RouteStep(node: 0, phase: .bubble))
        #expect(tree.childrenAsked == 0)
    }
}

final class SeenSteps: @unchecked Sendable {
    private let lock = NSLockLike()
    private var stored: [RouteStep<Int>] = []
    func append(_ step: RouteStep<Int>) { lock.run { stored.append(step) } }
    func clear() { lock.run { stored = [] } }
    var steps: [RouteStep<Int>] { lock.run { stored } }
}
