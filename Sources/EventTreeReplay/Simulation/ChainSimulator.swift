import EventTree
import EventTreeJournal

/// Replays one event chain (an event and those its transforms produced) along the route
/// the engine's ``Router`` computes, against what the journal recorded.
///
/// It walks the route step by step. At each step the handlers registered on the node
/// decide who should be called: those registered at raise time and still registered when
/// the raise ended must be called (unless the route stopped or the node was released);
/// those added or removed during the delivery may be. Recorded outcomes steer the walk
/// exactly as they steered the live delivery (consumed, transformed, answered, failed…),
/// so the first recorded call that the rules do not explain is the divergence.
///
/// A what-if variation disables a handler or ignores consumptions; the walk then goes on
/// past the recording and predicts who would have been called.
struct ChainSimulator {
    /// A change to replay with.
    struct Variation {
        var disabledHandler: HandlerID?
        var ignoresConsumption = false
        var isActive: Bool { disabledHandler != nil || ignoresConsumption }
    }

    let history: JournalHistory
    let chain: [RecordedEvent]
    let route: [RouteStep<NodeID>]
    let steps: [RecordedStep]
    var variation = Variation()

    func run() -> ChainRun {
        let root = chain[0]
        var run = ChainRun(verdict: RouteVerdict(
            channel: root.channel, isRequest: root.kind == .request, policy: root.policy,
            ignoresConsumption: variation.ignoresConsumption))
        // A raise that failed naming no handler was refused by the bus (nested too deep):
        // nothing on its route was called.
        if root.status == .failed, root.stop == nil { run.verdict.refuse() }
        let channel = root.channel
        let raiseSeq = root.id.rawValue
        let endSeq = chain.compactMap(\.finishedSeq).max() ?? Int.max
        var member = 0
        var matchTable = history.matchTable(for: chain[0].typeID)
        var cursor = 0
        for (index, step) in route.enumerated() {
            if run.verdict.isStopped || run.verdict.stopsAfterStep || run.divergence != nil {
                run.visits.append(ChainRun.Visit(index: index, step: step, reach: .notReached))
                continue
            }
            // The recorded facts of this step: steps[firstItem..<cursor].
            let firstItem = cursor
            while cursor < steps.count, steps[cursor].node == step.node, steps[cursor].phase == step.phase {
                cursor += 1
            }
            let stepItems = steps[firstItem..<cursor]
            var visit = ChainRun.Visit(index: index, step: step, reach: .reached)
            visit.calls.reserveCapacity(stepItems.count)
            var item = firstItem
            handlers: for handler in history.handlers(on: step.node) {
                guard handler.id.rawValue < endSeq, handler.removedSeq.map({ $0 > raiseSeq }) ?? true else { continue }
                guard handler.channel == channel && history.matches(handler, in: matchTable) else {
                    visit.skipped.append((handler, handler.channel != channel
                        ? .otherChannel(channel) : .otherType(chain[member].typeName)))
                    continue
                }
                guard handler.phases.contains(step.phase) else {
                    visit.skipped.append((handler, .otherPhase(step.phase)))
                    continue
                }
                if run.verdict.isStopped { break }
                if case .undelivered = visit.reach {
                    visit.lost.append(handler)
                    continue
                }
                let recorded = item < cursor ? steps[item] : nil
                if case .undelivered(let lost)? = recorded?.kind {
                    visit.reach = .undelivered(lostCalls: lost)
                    visit.lost.append(handler)
                    item += 1
                    continue
                }
                let required = handler.isRegistered(at: raiseSeq) && (handler.removedSeq.map { $0 > endSeq } ?? true)
                if case .call(let number, let outcome)? = recorded?.kind, number == handler.number {
                    item += 1
                    if handler.id == variation.disabledHandler { continue }
                    visit.calls.append(ChainRun.Call(handler: handler, outcome: outcome, seq: recorded?.seq))
                    let effect = run.verdict.apply(outcome, by: ChainRun.Caller(handler: handler, stepIndex: index))
                    if effect == .transform, member + 1 < chain.count {
                        member += 1
                        matchTable = history.matchTable(for: chain[member].typeID)
                    }
                } else if required && handler.id != variation.disabledHandler {
                    if variation.isActive {
                        // A predicted call: it would act, as far as a what-if can tell.
                        visit.calls.append(ChainRun.Call(handler: handler, outcome: nil, seq: nil))
                        run.verdict.apply(.handled, by: ChainRun.Caller(handler: handler, stepIndex: index))
                    } else {
                        run.divergence = ChainRun.Divergence(
                            stepIndex: index, expected: "\(handler.label) (\(handler.location)) called",
                            recorded: recorded.map(describe) ?? "no call")
                        break handlers
                    }
                }
            }
            if run.divergence == nil, item < cursor {
                if case .undelivered(let lost) = steps[item].kind, item == cursor - 1 {
                    visit.reach = .undelivered(lostCalls: lost)
                } else if !variation.isActive {
                    run.divergence = ChainRun.Divergence(
                        stepIndex: index, expected: "no further call at this step", recorded: describe(steps[item]))
                }
            }
            run.visits.append(visit)
        }
        if run.divergence == nil, cursor < steps.count, !variation.isActive {
            run.divergence = ChainRun.Divergence(
                stepIndex: route.count,
                expected: run.verdict.isStopped || run.verdict.stopsAfterStep ? "the route stopped" : "the end of the route",
                recorded: describe(steps[cursor]))
        }
        if run.divergence == nil, !variation.isActive, let recorded = root.status, recorded != run.verdict.status {
            run.divergence = ChainRun.Divergence(
                stepIndex: route.count, expected: "result \(run.verdict.status)", recorded: "result \(recorded)")
        }
        return run
    }

    private func describe(_ step: RecordedStep) -> String {
        switch step.kind {
        case let .call(number, outcome):
            let handler = history.handler(numbered: number)
            return "\(handler?.label ?? "handler #\(number)") (\(handler?.location ?? "?")) called at seq \(step.seq) -> \(outcome)"
        case .undelivered:
            return "an undelivered step at seq \(step.seq)"
        }
    }
}
