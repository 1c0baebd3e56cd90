import EventTree
import EventTreeJournal

/// Reads a journal back: lists sessions, rebuilds the tree at any seq, replays delivery
/// with the engine's own `Router` and classifies every event, explains why a node did or
/// did not get an event, and reruns an event as it would have gone without a handler.
///
/// ```swift
/// let replayer = try Replayer(journal: "app.eventtree")
/// try replayer.replay { finding in
///     if finding.classification != .delivered { print(finding.event.id, finding.summary) }
/// }
/// ```
///
/// Replay streams the journal: memory stays flat in its size (the handler registrations
/// and the events being delivered at one moment are all it holds).
public final class Replayer {
    let reader: JournalReader
    let history: JournalHistory

    /// Opens `path` (as an untrusted, read-only file).
    ///
    /// - Throws: `JournalError` when it cannot be read as a journal.
    public init(journal path: String) throws {
        reader = try JournalReader(path: path)
        history = JournalHistory(registrations: try reader.registrations())
    }

    /// A replayer of `reader` that knows the registrations in `history` only (see
    /// ``explain(journal:event:node:withoutHandler:ignoringConsumption:)``).
    init(reader: JournalReader, history: JournalHistory) {
        self.reader = reader
        self.history = history
    }

    /// The journal's sessions, oldest first.
    public func sessions() throws -> [SessionSummary] {
        try reader.sessions()
    }

    /// The session `id`, or the journal's last session when `id` is `nil`.
    ///
    /// - Throws: ``ReplayError/unknownSession(_:)`` or ``ReplayError/noSessions``.
    public func session(_ id: SessionID?) throws -> SessionSummary {
        try Self.session(id, in: reader)
    }

    /// ``session(_:)`` as `reader` has it.
    static func session(_ id: SessionID?, in reader: JournalReader) throws -> SessionSummary {
        let all = try reader.sessions()
        if let id {
            guard let session = all.first(where: { $0.id == id }) else { throw ReplayError.unknownSession(id) }
            return session
        }
        guard let last = all.last else { throw ReplayError.noSessions }
        return last
    }

    // MARK: Replay

    /// Replays every event of `session` (every session when `nil`) raised at or before
    /// `until`, calling `body` with each verdict in raise order.
    ///
    /// - Parameters:
    ///   - session: The session to replay; all of them when `nil`.
    ///   - until: The last seq whose events are replayed; the whole session when `nil`.
    ///   - includingRoutes: Whether each finding carries its route, step by step
    ///     (``ReplayFinding/route``), for pictures of it.
    ///   - progress: Called now and then with the seq reached.
    ///   - body: Receives each finding.
    public func replay(
        session: SessionID? = nil, until: Int? = nil, includingRoutes: Bool = false,
        progress: ((Int) -> Void)? = nil, _ body: (ReplayFinding) throws -> Void
    ) throws {
        let sessions = try session.map { [try self.session($0)] } ?? self.sessions()
        for summary in sessions {
            try stream(session: summary.id, until: until ?? Int.max, progress: progress, replaying: { chain, steps, tree in
                self.finding(for: chain, steps: steps, tree: tree, includingRoute: includingRoutes)
            }, body)
        }
    }

    /// Replays every event chain of `session` in raise order, calling `body` with its
    /// finding and its recorded steps, each numbered as `explain` numbers the chain's route,
    /// with its seq and event; and `late` with each step recorded after its event's raise
    /// ended (a call enqueued on the main actor that ran later), unnumbered, as it is met.
    func replayChains(
        session: SessionID, _ body: (ReplayFinding, [NumberedStep]) throws -> Void,
        late: @escaping (NumberedStep) throws -> Void
    ) throws {
        let late = { (step: RecordedStep, eventType: String, tree: JournalTree) throws in
            let (label, outcome): (String?, String) = switch step.kind {
            case let .call(number, outcome): (self.history.handler(numbered: number)?.label ?? "handler #\(number)", outcome.rawValue)
            case .undelivered: (nil, "undelivered")
            }
            try late(NumberedStep(seq: step.seq, event: step.event, step: TraceStep(
                eventType: eventType, nodePath: tree.path(of: step.node), phase: step.phase, handlerLabel: label, outcome: outcome)))
        }
        // A call runs late only while its session has not ended.
        let end = try reader.endSeq(of: session) ?? Int.max
        try stream(session: session, until: Int.max, progress: nil, late: (late, end), replaying: { chain, steps, tree in
            let (run, route) = self.simulate(chain, steps: steps, tree: tree, variation: .init())
            return (
                self.finding(for: chain, steps: steps, tree: tree, run: run, route: route, includingRoute: false),
                self.numberedSteps(of: chain, steps: steps, tree: tree, run: run))
        }, { try body($0.0, $0.1) })
    }

    /// An event being delivered, gathered until its raise (and its transforms') ended. A
    /// class, so that appending a step to it is an append, not a dictionary value rewrite.
    private final class OpenChain {
        var members: [RecordedEvent]
        var steps: [RecordedStep] = []
        let tree: JournalTree
        var end: Int

        init(members: [RecordedEvent], tree: JournalTree, end: Int) {
            self.members = members
            self.tree = tree
            self.end = end
            // Room for a typical event's calls: no regrowth for the first eight.
            steps.reserveCapacity(8)
        }
    }

    /// The merge of three typed streams ordered by seq: tree changes, events, and steps
    /// (registrations are in memory). Each event chain, once its raise ended, is replayed
    /// by `replaying` and emitted in raise order. Inlined into its two callers, so that each
    /// is specialized for what it emits.
    @inline(__always)
    private func stream<Replayed>(
        session: SessionID, until: Int, progress: ((Int) -> Void)?,
        late: (step: (RecordedStep, String, JournalTree) throws -> Void, before: Int)? = nil,
        replaying: ([RecordedEvent], [RecordedStep], JournalTree) -> Replayed, _ emit: (Replayed) throws -> Void
    ) throws {
        let changes = try reader.treeChanges(of: session)
        let events = try reader.events(of: session, through: until)
        let steps = try reader.steps(in: (session.rawValue + 1)...Int.max)

        var tree = JournalTree()
        var open: [EventID: OpenChain] = [:]
        var chainOf: [EventID: EventID] = [:]
        var ends = MinHeap<EventID>()
        var lastProgress = 0
        // Findings come out in raise order: a chain that ends is held back while an older
        // one (an outer raise, still delivering its nested ones) is open.
        var finished = MinHeap<Replayed>()
        var openRoots: [EventID] = []
        var oldestOpen = 0
        // With `late`: the calls enqueued (on the main actor) by ended chains that have not
        // run yet, by event, with the event's type.
        var pendingLate: [EventID: (calls: Int, typeName: String)] = [:]
        let lateStep = late?.step
        let lateBefore = late?.before ?? Int.min

        func finishChains(before seq: Int) throws {
            while let key = ends.minimumKey, key < seq, let (end, root) = ends.popMinimum() {
                guard let chain = open[root], chain.end == end else { continue }
                open[root] = nil
                for member in chain.members { chainOf[member.id] = nil }
                if lateStep != nil {
                    for step in chain.steps {
                        guard case .call(_, .enqueued) = step.kind,
                            let member = chain.members.first(where: { $0.id == step.event }) else { continue }
                        pendingLate[step.event, default: (0, member.typeName)].calls += 1
                    }
                }
                finished.insert(root.rawValue, replaying(chain.members, chain.steps, chain.tree))
            }
            while oldestOpen < openRoots.count && open[openRoots[oldestOpen]] == nil { oldestOpen += 1 }
            if oldestOpen > 4_096 && oldestOpen * 2 > openRoots.count {
                openRoots.removeFirst(oldestOpen)
                oldestOpen = 0
            }
            let limit = oldestOpen < openRoots.count ? openRoots[oldestOpen].rawValue : Int.max
            while let key = finished.minimumKey, key < limit, let (_, ready) = finished.popMinimum() {
                try emit(ready)
            }
        }

        // Consecutive steps mostly belong to one event: remember the last one's chain.
        var lastEvent = EventID(rawValue: -1)
        var lastChain: OpenChain?
        func chain(of event: EventID) -> OpenChain? {
            if event == lastEvent, let lastChain { return lastChain }
            let found = chainOf[event].flatMap { open[$0] }
            lastEvent = event
            lastChain = found
            return found
        }

        // The seqs the streams stand on, read once per record (reading `current` copies it).
        var eventSeq = events.current?.id.rawValue ?? Int.max
        var changeSeq = changes.current?.seq ?? Int.max
        var stepSeq = steps.current?.seq ?? Int.max
        while true {
            // Steps belong to open chains, or (asked for) are enqueued calls that ran late,
            // before the session's end.
            let takesSteps = !open.isEmpty || (!pendingLate.isEmpty && stepSeq < lateBefore)
            let next = min(eventSeq, changeSeq, takesSteps ? stepSeq : Int.max)
            if next == Int.max || (eventSeq == Int.max && !takesSteps) { break }
            if let key = ends.minimumKey, key < next {
                try finishChains(before: next)
                lastChain = nil
                lastEvent = EventID(rawValue: -1)
            }
            if let progress, next - lastProgress > 100_000 {
                lastProgress = next
                progress(next)
            }
            if next == changeSeq, let change = changes.current {
                tree.apply(change.change, to: change.node)
                try changes.advance()
                changeSeq = changes.current?.seq ?? Int.max
            } else if next == eventSeq, let event = events.current {
                if let from = event.transformedFrom, let root = chainOf[from], let chain = open[root] {
                    chain.members.append(event)
                    chain.end = max(chain.end, try reader.lastDeliverySeq(of: event))
                    chainOf[event.id] = root
                    ends.insert(chain.end, root)
                } else {
                    let end = try reader.lastDeliverySeq(of: event)
                    open[event.id] = OpenChain(members: [event], tree: tree, end: end)
                    openRoots.append(event.id)
                    chainOf[event.id] = event.id
                    ends.insert(end, event.id)
                }
                try events.advance()
                eventSeq = events.current?.id.rawValue ?? Int.max
            } else if let step = steps.current {
                if let chain = chain(of: step.event) {
                    chain.steps.append(step)
                } else if let lateStep, step.seq < lateBefore, let pending = pendingLate[step.event] {
                    pendingLate[step.event] = pending.calls > 1 ? (pending.calls - 1, pending.typeName) : nil
                    try lateStep(step, pending.typeName, tree)
                }
                try steps.advance()
                stepSeq = steps.current?.seq ?? Int.max
            }
        }
        try finishChains(before: Int.max)
        // Chains still open (none, unless records were added while they were read), with
        // whatever finished after them, in raise order.
        for chain in open.values {
            finished.insert(chain.members[0].id.rawValue, replaying(chain.members, chain.steps, chain.tree))
        }
        while let (_, finding) = finished.popMinimum() { try emit(finding) }
    }

    // MARK: One chain

    /// Replays one chain and turns the run into a finding.
    func finding(
        for chain: [RecordedEvent], steps: [RecordedStep], tree: JournalTree,
        variation: ChainSimulator.Variation = .init(), includingRoute: Bool = false
    ) -> ReplayFinding {
        let (run, route) = simulate(chain, steps: steps, tree: tree, variation: variation)
        return finding(for: chain, steps: steps, tree: tree, run: run, route: route, includingRoute: includingRoute)
    }

    /// Turns a chain's run into a finding.
    private func finding(
        for chain: [RecordedEvent], steps: [RecordedStep], tree: JournalTree, run: ChainRun, route: [RouteStep<NodeID>],
        includingRoute: Bool
    ) -> ReplayFinding {
        let root = chain[0]
        let site = { (handler: RecordedHandler, stepIndex: Int) -> StepHandler in
            let step = route[min(stepIndex, route.count - 1)]
            return StepHandler(
                handler: handler.id, label: handler.label, location: handler.location,
                nodePath: tree.path(of: step.node), phase: step.phase)
        }
        var neverSaw: [String] = []
        var missed: [StepHandler] = []
        for visit in run.visits where visit.reach == .notReached {
            let path = tree.path(of: visit.step.node)
            if !neverSaw.contains(path) { neverSaw.append(path) }
            for handler in history.handlers(on: visit.step.node)
            where handler.isRegistered(at: root.id.rawValue) && handler.phases.contains(visit.step.phase)
                && history.matches(handler, type: chain.last!.typeID, channel: root.channel) {
                missed.append(site(handler, visit.index))
            }
        }
        let lost = run.visits.compactMap { visit -> LostStep? in
            guard case .undelivered(let calls) = visit.reach else { return nil }
            return LostStep(
                nodePath: tree.path(of: visit.step.node), phase: visit.step.phase, lostCalls: calls,
                releasedBy: releaseText(of: visit.step.node))
        }
        let failure = run.firstFailure.map { failing in
            (site: site(failing.handler, failing.stepIndex), message: failureMessage(root, failing.handler, steps: steps))
        }
        let classification: Classification
        if run.divergence != nil && root.finishedSeq != nil {
            classification = .diverged
        } else {
            switch root.result {
            case .lost: classification = .lost
            case .failed: classification = .failed
            case .consumed: classification = .consumed
            case .unanswered, .unhandled: classification = .unhandled
            case .delivered, .answered: classification = .delivered
            }
        }
        return ReplayFinding(
            event: root, originPath: tree.path(of: root.origin), classification: classification,
            transforms: chain.dropFirst().map(\.id), stoppedBy: run.stop.map { site($0.handler, $0.stepIndex) },
            failure: failure, neverSaw: neverSaw, missedHandlers: missed, lostSteps: lost,
            divergence: run.divergence.map { Divergence(stepIndex: $0.stepIndex, expected: $0.expected, recorded: $0.recorded) },
            calls: steps.count { if case .call = $0.kind { true } else { false } },
            route: includingRoute ? run.visits.map(\.report) : nil)
    }

    /// A chain's recorded steps in seq order, each numbered as `explain` numbers the chain's
    /// route: one per handler call, one per handler an undelivered step lost (or one for the
    /// step when it lost none). A call replay could not place on the route (past a
    /// divergence) stays unnumbered.
    func numberedSteps(
        of chain: [RecordedEvent], steps: [RecordedStep], tree: JournalTree, run: ChainRun
    ) -> [NumberedStep] {
        var callNumbers: [Int: Int] = [:]
        var undelivered: [RouteStep<NodeID>: ChainRun.Visit] = [:]
        for visit in run.visits {
            for call in visit.calls { if let seq = call.seq { callNumbers[seq] = visit.index + 1 } }
            if case .undelivered = visit.reach { undelivered[visit.step] = visit }
        }
        let typeNames = Dictionary(chain.map { ($0.id, $0.typeName) }, uniquingKeysWith: { first, _ in first })
        var numbered: [NumberedStep] = []
        numbered.reserveCapacity(steps.count)
        for step in steps {
            let eventType = typeNames[step.event] ?? "?"
            let path = tree.path(of: step.node)
            switch step.kind {
            case let .call(number, outcome):
                numbered.append(NumberedStep(seq: step.seq, event: step.event, step: TraceStep(
                    eventType: eventType, nodePath: path, phase: step.phase,
                    handlerLabel: history.handler(numbered: number)?.label ?? "handler #\(number)",
                    outcome: outcome.rawValue, number: callNumbers[step.seq])))
            case .undelivered:
                let visit = undelivered[RouteStep(node: step.node, phase: step.phase)]
                let labels: [String?] = visit.map { $0.lost.isEmpty ? [nil] : $0.lost.map(\.label) } ?? [nil]
                for label in labels {
                    numbered.append(NumberedStep(seq: step.seq, event: step.event, step: TraceStep(
                        eventType: eventType, nodePath: path, phase: step.phase, handlerLabel: label,
                        outcome: "undelivered", number: visit.map { $0.index + 1 })))
                }
            }
        }
        return numbered
    }

    /// Who released `node`, in words (see ``LostStep/releasedBy``).
    func releaseText(of node: NodeID) -> String? {
        guard let release = try? reader.release(of: node) else { return nil }
        guard let number = release.handlerNumber, let handler = history.handler(numbered: number), let event = release.event else {
            return "seq \(release.seq)"
        }
        return "seq \(release.seq) by \(handler.label) (\(handler.location)) handling event \(event.rawValue)"
    }

    func simulate(
        _ chain: [RecordedEvent], steps: [RecordedStep], tree: JournalTree, variation: ChainSimulator.Variation
    ) -> (ChainRun, [RouteStep<NodeID>]) {
        let root = chain[0]
        let route = Router.route(from: root.origin, mode: root.mode, in: ReplayRouteTree(tree: tree, history: history, event: root))
        let simulator = ChainSimulator(history: history, chain: chain, route: route, steps: steps, variation: variation)
        return (simulator.run(), route)
    }

    /// The error text of a handler's failed call on this event (the event's first failure).
    private func failureMessage(_ event: RecordedEvent, _ handler: RecordedHandler, steps: [RecordedStep]) -> String {
        if event.stop?.handlerNumber == handler.number, let message = event.message { return message }
        let failed = steps.first { step in
            if case .call(handler.number, .failed) = step.kind { true } else { false }
        }
        return failed.flatMap { try? reader.callDetail(at: $0.seq) } ?? event.message ?? "?"
    }
}
