import EventTree
import EventTreeJournal

/// Replay's verdict on one event (and the events its transforms produced), with evidence.
public struct ReplayFinding: Sendable {
    /// The event as recorded.
    public let event: RecordedEvent
    /// Its origin's path when it was raised.
    public let originPath: String
    /// The verdict.
    public let classification: Classification
    /// Events its transforms produced, in order.
    public let transforms: [EventID]
    /// The handler that stopped the route (consumed, answered, converted, or failed under
    /// policy stop).
    public let stoppedBy: StepHandler?
    /// The first failing handler and its error.
    public let failure: (site: StepHandler, message: String)?
    /// Nodes on the route that the event never reached, in route order.
    public let neverSaw: [String]
    /// Handlers on those nodes that would have been called.
    public let missedHandlers: [StepHandler]
    /// Steps lost to released nodes.
    public let lostSteps: [LostStep]
    /// The first difference between recording and route.
    public let divergence: Divergence?
    /// The number of handler calls recorded.
    public let calls: Int
    /// Every step of the route with the calls made there; `nil` unless the replay was
    /// asked for routes (`Replayer.replay(session:until:includingRoutes:progress:_:)`).
    public let route: [RouteVisit]?

    /// One line saying what happened.
    public var summary: String {
        switch classification {
        case .diverged:
            guard let divergence else { return "diverged" }
            return "diverged at step \(divergence.stepIndex + 1): expected \(divergence.expected), recorded \(divergence.recorded)"
        case .lost:
            if event.finishedSeq == nil { return "lost: the raise never ended (the recording stops during its delivery)" }
            let steps = lostSteps.filter { $0.lostCalls > 0 }.map { step in
                "\(step.nodePath) (\(step.phase), \(step.lostCalls) call\(step.lostCalls == 1 ? "" : "s")"
                    + (step.releasedBy.map { "; released at \($0)" } ?? "") + ")"
            }
            return "lost: released during delivery before it reached \(steps.joined(separator: ", "))"
        case .failed:
            // A raise the bus refused (nested too deep) failed with no handler.
            guard let failure else { return event.message.map { "failed: \($0)" } ?? "failed" }
            return "failed: \(failure.site) threw: \(failure.message)"
        case .consumed:
            guard let stoppedBy else { return "consumed" }
            let never = neverSaw.isEmpty ? "" : "; never reached \(neverSaw.joined(separator: ", "))"
            return "consumed by \(stoppedBy)\(never)"
        case .unhandled:
            return event.kind == .request ? "unanswered: no handler answered the request" : "unhandled: no handler acted (dead letter)"
        case .delivered:
            if let stoppedBy, event.result == .answered { return "answered by \(stoppedBy)" }
            return "delivered: \(calls) handler call\(calls == 1 ? "" : "s")"
        }
    }
}
