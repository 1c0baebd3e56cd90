import EventTree
import EventTreeJournal

/// What replaying one event (with the events its transforms produced) along its route found.
struct ChainRun {
    /// A handler call at a step: recorded, or predicted by a what-if.
    struct Call {
        let handler: RecordedHandler
        /// The recorded outcome; `nil` for a predicted call.
        let outcome: Outcome.Kind?
        let seq: Int?
    }

    struct Visit {
        let index: Int
        let step: RouteStep<NodeID>
        var reach: RouteVisit.Reach
        var calls: [Call] = []
        /// Handlers registered on the node that did not take part, with the reason.
        var skipped: [(handler: RecordedHandler, reason: SkipReason)] = []
        /// Handlers whose calls were lost because the node had been released.
        var lost: [RecordedHandler] = []

        /// The visit as replay reports it.
        var report: RouteVisit {
            RouteVisit(
                index: index, node: step.node, phase: step.phase, reach: reach,
                calls: calls.map { RouteVisit.Call(handler: $0.handler.id, outcome: $0.outcome) })
        }
    }

    /// Why a handler on a visited node took no part. Kept as a value: a full replay visits
    /// millions of steps and only an explanation reads the reasons.
    enum SkipReason {
        /// It hears the other channel.
        case otherChannel(HandlerRegistration.Channel)
        /// It is registered for another type than the event's (named).
        case otherType(String)
        /// It does not listen in the step's phase.
        case otherPhase(Phase)

        /// The reason as a kind.
        var cause: Explanation.SkippedHandler.Cause {
            switch self {
            case .otherChannel: .otherChannel
            case .otherType: .otherType
            case .otherPhase: .otherPhase
            }
        }

        /// The reason in words, about `handler`.
        func text(for handler: RecordedHandler) -> String {
            switch self {
            case .otherChannel(let channel):
                "it handles \(handler.channel == .errors ? "errors" : "events"), not \(channel == .errors ? "errors" : "events")"
            case .otherType(let eventType):
                "it is registered for \(handler.eventType ?? "?"), not \(eventType)"
            case .otherPhase(let phase):
                "it does not listen in the \(phase) phase"
            }
        }
    }

    struct Divergence {
        let stepIndex: Int
        let expected: String
        let recorded: String
    }

    /// A handler's call at a step of the route: what the verdict names.
    struct Caller: Sendable {
        let handler: RecordedHandler
        let stepIndex: Int
    }

    var visits: [Visit] = []
    /// The rules applied to the recorded (or predicted) calls.
    var verdict: RouteVerdict<Caller>
    var divergence: Divergence?

    /// The handler that stopped the route, the step it was in, and how.
    var stop: (handler: RecordedHandler, stepIndex: Int, outcome: Outcome.Kind)? {
        verdict.stop.map { ($0.handler.handler, $0.handler.stepIndex, $0.outcome) }
    }

    /// The first handler that failed, and its step.
    var firstFailure: (handler: RecordedHandler, stepIndex: Int)? {
        verdict.firstFailure.map { ($0.handler, $0.stepIndex) }
    }
}
