import EventTree
import EventTreeJournal

extension Replayer {
    /// Explains event `id`: its verdict, every step of its route, and, when `nodePath` is
    /// given, why that node did or did not get it. With `withoutHandler` (or
    /// `ignoringConsumption`), replays it as it would have gone and shows who would have
    /// received it.
    ///
    /// - Throws: ``ReplayError`` for an unknown event, node or handler.
    public func explain(
        event id: EventID, node nodePath: String? = nil, withoutHandler disabled: HandlerID? = nil,
        ignoringConsumption: Bool = false
    ) throws -> Explanation {
        if let disabled, history.handlersByID[disabled] == nil { throw ReplayError.unknownHandler(disabled) }
        let (chain, steps, tree) = try load(id)
        let variation = ChainSimulator.Variation(disabledHandler: disabled, ignoresConsumption: ignoringConsumption)
        let (run, route) = simulate(chain, steps: steps, tree: tree, variation: variation)
        let finding = self.finding(for: chain, steps: steps, tree: tree)
        let reports = run.visits.map { visit in
            Explanation.StepReport(
                number: visit.index + 1, nodePath: tree.path(of: visit.step.node), phase: visit.step.phase,
                reach: visit.reach,
                calls: visit.calls.map { call in
                    Explanation.CallReport(
                        handler: StepHandler(
                            handler: call.handler.id, label: call.handler.label, location: call.handler.location,
                            nodePath: tree.path(of: visit.step.node), phase: visit.step.phase),
                        outcome: call.outcome)
                },
                skipped: visit.skipped.map {
                    Explanation.SkippedHandler(
                        label: $0.handler.label, location: $0.handler.location, cause: $0.reason.cause,
                        reason: $0.reason.text(for: $0.handler))
                },
                lost: visit.lost.map { handler in
                    StepHandler(
                        handler: handler.id, label: handler.label, location: handler.location,
                        nodePath: tree.path(of: visit.step.node), phase: visit.step.phase)
                })
        }
        let verdict = try nodePath.map { try self.verdict(for: $0, chain: chain, tree: tree, run: run, route: route) }
        let description: String? = if let disabled, let handler = history.handlersByID[disabled] {
            "without \(handler.label) (\(handler.location))"
        } else if ignoringConsumption {
            "ignoring consumptions"
        } else {
            nil
        }
        let (causes, consequences, omitted) = try causeChain(of: chain)
        return Explanation(
            finding: finding, steps: reports, node: verdict, variation: description, causes: causes,
            omittedCauses: omitted, consequences: consequences)
    }

    /// ``explain(event:node:withoutHandler:ignoringConsumption:)`` of the journal at `path`,
    /// reading only the registrations the event's delivery can meet: the handlers of the
    /// nodes in the tree at its raise, those its steps name, those that released a node it
    /// lost and the one left out. The answer then costs the same however many handlers the
    /// journal's history registered (a replayer reads every one).
    ///
    /// - Throws: `JournalError` when it cannot be read as a journal; ``ReplayError`` as
    ///   ``explain(event:node:withoutHandler:ignoringConsumption:)`` does.
    public static func explain(
        journal path: String, event id: EventID, node nodePath: String? = nil, withoutHandler disabled: HandlerID? = nil,
        ignoringConsumption: Bool = false
    ) throws -> Explanation {
        let reader = try JournalReader(path: path)
        let (chain, steps, tree) = try load(id, from: reader)
        var numbers = Set(chain.compactMap { $0.stop?.handlerNumber })
        for step in steps {
            switch step.kind {
            case .call(let number, _): numbers.insert(number)
            case .undelivered: if let number = try reader.release(of: step.node)?.handlerNumber { numbers.insert(number) }
            }
        }
        let registrations = try reader.registrations(
            on: Array(tree.nodes.keys), numbered: Array(numbers), ids: disabled.map { [$0] } ?? [])
        let replayer = Replayer(reader: reader, history: JournalHistory(registrations: registrations))
        return try replayer.explain(
            event: id, node: nodePath, withoutHandler: disabled, ignoringConsumption: ignoringConsumption)
    }

    /// The event's chain, its recorded steps and the tree at its raise.
    func load(_ id: EventID) throws -> ([RecordedEvent], [RecordedStep], JournalTree) {
        try Self.load(id, from: reader)
    }

    /// ``load(_:)`` from `reader`.
    static func load(_ id: EventID, from reader: JournalReader) throws -> ([RecordedEvent], [RecordedStep], JournalTree) {
        guard var root = try reader.event(id) else { throw ReplayError.unknownEvent(id) }
        // Links point back in time (the reader checks), so this walk ends.
        while let from = root.transformedFrom, let parent = try reader.event(from) { root = parent }
        var chain = [root]
        var ids: Set<EventID> = [root.id]
        // (A raise that never ended is read to its last record, not to the journal's end.)
        var end = try reader.lastDeliverySeq(of: root)
        if end > root.id.rawValue {
            for member in try reader.transformedEvents(in: (root.id.rawValue + 1)...end) {
                if let from = member.transformedFrom, ids.contains(from) {
                    chain.append(member)
                    ids.insert(member.id)
                }
            }
        }
        end = try chain.map { try reader.lastDeliverySeq(of: $0) }.max() ?? end
        var steps: [RecordedStep] = []
        let stream = try reader.steps(in: (root.id.rawValue + 1)...max(end, root.id.rawValue + 1))
        while let step = stream.current {
            if ids.contains(step.event) { steps.append(step) }
            try stream.advance()
        }
        var tree = try reader.tree(of: root.session, before: root.id.rawValue)
        // An origin released before the snapshot the tree was rebuilt from: its last path.
        for origin in Set(chain.map(\.origin)) where tree.nodes[origin] == nil && tree.releasedPaths[origin] == nil {
            if let path = try reader.releasedPath(of: origin) { tree.remember(path: path, ofReleased: origin) }
        }
        return (chain, steps, tree)
    }


    private func verdict(
        for path: String, chain: [RecordedEvent], tree: JournalTree, run: ChainRun, route: [RouteStep<NodeID>]
    ) throws -> NodeVerdict {
        let root = chain[0]
        let raiseSeq = root.id.rawValue
        func verdict(_ received: Bool, _ reason: NodeVerdict.Reason, _ summary: String) -> NodeVerdict {
            NodeVerdict(nodePath: path, received: received, reason: reason, summary: summary)
        }
        guard let node = tree.node(atPath: path) else {
            let history = try reader.nodes(of: root.session, withPath: path)
            guard let first = history.first else { throw ReplayError.unknownNode(path: path, session: root.session) }
            if first.since > raiseSeq {
                return verdict(false, .notInTree, "not in the tree then: \(path) first appeared at seq \(first.since), after event \(root.id.rawValue) was raised at seq \(raiseSeq)")
            }
            if let released = try reader.releaseSeq(of: history.last!.node), released < raiseSeq {
                return verdict(false, .notInTree, "not in the tree then: \(path) was released at seq \(released), before event \(root.id.rawValue) was raised at seq \(raiseSeq)")
            }
            return verdict(false, .notInTree, "not in the tree then: no node had the path \(path) when event \(root.id.rawValue) was raised at seq \(raiseSeq) (it was renamed or moved)")
        }
        let visits = run.visits.filter { $0.step.node == node }
        guard !visits.isEmpty else {
            return verdict(false, .notOnRoute, "not on this mode's route: " + offRouteReason(node, path: path, event: root, tree: tree))
        }
        for visit in visits {
            if let failed = visit.calls.first(where: { $0.outcome == .failed }) {
                let message = try failureText(event: root, seq: failed.seq)
                return verdict(true, .handlerThrew, "received in the \(visit.step.phase) phase, and handler \(failed.handler.label) (\(failed.handler.location)) threw: \(message)")
            }
        }
        if let visit = visits.first(where: { !$0.calls.isEmpty }) {
            let calls = visit.calls.map { "\($0.handler.label) (\($0.handler.location)) -> \($0.outcome?.rawValue ?? "would be called")" }
            return verdict(true, .received, "received in the \(visit.step.phase) phase (step \(visit.index + 1) of \(route.count)): \(calls.joined(separator: ", "))")
        }
        if let visit = visits.first(where: { if case .undelivered = $0.reach { true } else { false } }) {
            let released = releaseText(of: node).map { " at \($0)" } ?? ""
            return verdict(false, .releasedDuringDelivery, "released during delivery\(released), before its \(visit.step.phase) step (step \(visit.index + 1) of \(route.count))")
        }
        if let visit = visits.first(where: { $0.reach == .notReached }), let stop = run.stop {
            let stopStep = route[stop.stepIndex]
            return verdict(false, .stoppedEarlier, "stopped earlier: \(stop.handler.label) (\(stop.handler.location)) at \(tree.path(of: stopStep.node)) in the \(stopStep.phase) phase returned \(stop.outcome), before step \(visit.index + 1) (\(visit.step.phase)) at \(path)")
        }
        let reasons = visits.flatMap { visit in
            visit.skipped.map { "\($0.handler.label) (\($0.handler.location)): \($0.reason.text(for: $0.handler))" }
        }
        let phases = visits.map(\.step.phase.description).joined(separator: " and ")
        return verdict(false, .noMatchingHandler, reasons.isEmpty
            ? "reached in the \(phases) phase, but no handler was registered there"
            : "reached in the \(phases) phase, but no handler matched: \(reasons.joined(separator: "; "))")
    }

    /// Why `node` is not on the route of `event`, in the terms of its mode.
    private func offRouteReason(_ node: NodeID, path: String, event: RecordedEvent, tree: JournalTree) -> String {
        let origin = event.origin
        func ancestors(_ id: NodeID) -> [NodeID] {
            var chain: [NodeID] = []
            var current = tree.nodes[id]?.parent
            while let next = current {
                chain.append(next)
                current = tree.nodes[next]?.parent
            }
            return chain
        }
        let originRoot = ancestors(origin).last ?? origin
        let nodeRoot = ancestors(node).last ?? node
        let originPath = tree.path(of: origin)
        if originRoot != nodeRoot {
            return "\(path) was in another tree than the origin \(originPath) (a detached subtree rooted at \(tree.path(of: nodeRoot))), and a route stays within its tree"
        }
        switch event.mode {
        case .bubble, .dispatch:
            return "a \(event.mode) route visits only the origin \(originPath) and its ancestors, and \(path) is not an ancestor of it"
        case .broadcast:
            return "a broadcast visits every node of the origin's tree, but \(path) was not among them"
        case .descend(let filter):
            guard ancestors(node).contains(origin) else {
                return "a descend route visits only the origin \(originPath) and its descendants, and \(path) is not below it"
            }
            switch filter {
            case .everyLevel:
                return "\(path) is below the origin but was not visited"
            case .firstHandler:
                let route = ReplayRouteTree(tree: tree, history: history, event: event)
                if let stop = ancestors(node).first(where: { $0 != origin && ancestors($0).contains(origin) && route.hasPropagateHandler(at: $0) }) {
                    return "descend(firstHandler) stops each branch at its first node with a handler for \(event.typeName), and on this branch that is \(tree.path(of: stop))"
                }
                return "descend(firstHandler) visits only the first node with a handler for \(event.typeName) on each branch, and \(path) has none"
            case .deepestLevel:
                return "descend(deepestLevel) visits only the deepest level below the origin that has a handler for \(event.typeName), and \(path) is not at that level"
            }
        }
    }

    /// The chain of raises that led to `chain`'s first event (outermost first, the event
    /// itself last; past ``causesShown`` links, the outermost and the nearest, with how many
    /// lie between), and what the chain's events raised in turn (depth-first).
    func causeChain(of chain: [RecordedEvent]) throws -> (causes: [CauseLink], consequences: [CauseLink], omittedCauses: Int) {
        func link(_ event: RecordedEvent, from parent: RecordedEvent?, depth: Int) -> CauseLink {
            CauseLink(
                event: event.id, typeName: event.typeName, kind: event.kind,
                relation: parent.map { CauseLink.relation(of: event, to: $0) } ?? .raisedByApp, from: parent?.id,
                depth: depth, result: event.result)
        }
        // The nearest causes, and the outermost: a chain of any length is told by its ends.
        let (nearest, count, outermost) = try reader.causes(of: chain[0].id, nearest: Self.causesShown)
        var causes: [CauseLink] = []
        if let outermost { causes.append(link(outermost, from: nil, depth: 0)) }
        let ancestry = nearest.reversed() + [chain[0]]
        for (index, event) in ancestry.enumerated() {
            // The farthest cause shown after a gap links to its own (unshown) cause.
            let parent = index > 0 ? ancestry[index - 1] : try event.cause.flatMap { try reader.event($0) }
            causes.append(link(event, from: parent, depth: 0))
        }
        let omitted = count - nearest.count - (outermost == nil ? 0 : 1)
        var consequences: [CauseLink] = []
        let members = Set(chain.map(\.id))
        var pending: [(event: RecordedEvent, depth: Int)] = chain.reversed().map { ($0, 0) }
        while let (event, depth) = pending.popLast(), consequences.count < 200 {
            for child in try reader.events(causedBy: event.id).reversed() where !members.contains(child.id) {
                pending.append((child, depth + 1))
            }
            if depth > 0, let parent = try event.transformedFrom.flatMap({ try reader.event($0) }) ?? event.cause.flatMap({ try reader.event($0) }) {
                consequences.append(link(event, from: parent, depth: depth))
            }
        }
        return (causes, consequences, omitted)
    }

    /// How many of an event's nearest causes `explain` lists (with the outermost, and how
    /// many lie between).
    static let causesShown = 50

    private func failureText(event: RecordedEvent, seq: Int?) throws -> String {
        guard let seq else { return event.message ?? "?" }
        return try reader.callDetail(at: seq) ?? event.message ?? "?"
    }
}

extension Replayer {
    /// The tree of `session` (the last session when `nil`) as it stood at `seq` (the
    /// session's end when `nil`), with the handlers registered then.
    ///
    /// - Throws: ``ReplayError/unknownSession(_:)``.
    public func topology(session: SessionID? = nil, at seq: Int? = nil) throws -> TreeSnapshot {
        try Self.topology(in: reader, session: session, at: seq)
    }

    /// ``topology(session:at:)`` of the journal at `path`, without reading every handler
    /// registration as a replayer does: the tree comes from the nearest snapshot and the
    /// handlers from its nodes' own rows, so the answer costs the same however long the
    /// journal's history.
    ///
    /// - Throws: `JournalError` when it cannot be read as a journal, ``ReplayError/unknownSession(_:)``.
    public static func topology(ofJournal path: String, session: SessionID? = nil, at seq: Int? = nil) throws -> TreeSnapshot {
        try topology(in: JournalReader(path: path), session: session, at: seq)
    }

    private static func topology(in reader: JournalReader, session: SessionID?, at seq: Int?) throws -> TreeSnapshot {
        let summary = try Self.session(session, in: reader)
        // Past the end is the end (and `at + 1` below stays in range).
        let at = min(seq ?? Int.max - 1, Int.max - 1)
        let tree = try reader.tree(of: summary.id, before: at + 1)
        let labels = try reader.handlerLabels(on: Array(tree.nodes.keys), registeredAt: at + 1)
        var entries: [TreeSnapshot.Entry] = []
        for root in tree.roots {
            var pending: [(NodeID, Int)] = [(root, 0)]
            while let (node, depth) = pending.popLast() {
                entries.append(TreeSnapshot.Entry(
                    id: node, name: tree.nodes[node]?.name ?? "?", path: tree.path(of: node), depth: depth,
                    handlers: labels[node] ?? []))
                pending.append(contentsOf: (tree.nodes[node]?.children ?? []).reversed().map { ($0, depth + 1) })
            }
        }
        let shownSeq = try seq ?? reader.lastTreeChange(in: summary.id)
        return TreeSnapshot(session: summary.id, seq: shownSeq, nodes: entries)
    }
}

extension Replayer {
    /// The ids of the handlers with this label, in registration order.
    public func handlerIDs(labelled label: String) -> [HandlerID] {
        history.handlersByID.values.filter { $0.label == label }.map(\.id).sorted()
    }
}
