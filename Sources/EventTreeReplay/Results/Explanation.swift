import EventTree

/// The answer to "what happened to event E" and, for a node, "why did N (not) get it".
public struct Explanation: Sendable {
    /// Replay's verdict on the event.
    public let finding: ReplayFinding
    /// Every step of the event's route, in order, with what happened there.
    public let steps: [StepReport]
    /// The answer about one node, when one was asked about.
    public let node: NodeVerdict?
    /// The handler the what-if disabled, or whether it ignored consumptions.
    public let variation: String?
    /// What raised the event, from the outermost raise down to the event itself. A long
    /// chain is told by its ends: the outermost raise, then the nearest causes (the
    /// second link names its own cause in ``CauseLink/from``), with ``omittedCauses`` between.
    public let causes: [CauseLink]
    /// How many causes lie between the outermost and the nearest ones listed (0 when
    /// ``causes`` holds the whole chain).
    public let omittedCauses: Int
    /// What the event (and the events its transforms produced) raised in turn, depth-first
    /// (nested raises, errors its handlers threw, conversions, transforms), at most 200.
    public let consequences: [CauseLink]

    /// One step of a route.
    public struct StepReport: Sendable, Hashable {
        /// 1-based position on the route.
        public let number: Int
        /// The node's path when the event was raised.
        public let nodePath: String
        /// The phase.
        public let phase: Phase
        /// Whether the event got there.
        public let reach: RouteVisit.Reach
        /// The calls made there (recorded), or that would be made (what-if).
        public let calls: [CallReport]
        /// Handlers on the node that did not take part, with why.
        public let skipped: [SkippedHandler]
        /// Handlers whose calls were lost because the node had been released.
        public let lost: [StepHandler]
    }

    /// One handler call at a step.
    public struct CallReport: Sendable, Hashable {
        /// The handler.
        public let handler: StepHandler
        /// The recorded outcome; `nil` for a call a what-if predicts.
        public let outcome: Outcome.Kind?

        /// The outcome's name, or `would be called`.
        public var outcomeDescription: String { outcome?.rawValue ?? "would be called" }
    }

    /// A handler on a visited node that did not take part.
    public struct SkippedHandler: Sendable, Hashable {
        /// Why a handler took no part, as a kind (``reason`` says it in words).
        public enum Cause: Sendable, Hashable {
            /// It is registered for another type than the event's.
            case otherType
            /// It hears the other channel (errors rather than events, or the reverse).
            case otherChannel
            /// It does not listen in the step's phase.
            case otherPhase
        }

        /// Its label.
        public let label: String
        /// Where it was registered.
        public let location: String
        /// Why it did not take part.
        public let cause: Cause
        /// Why it did not take part, in words.
        public let reason: String
    }
}

/// Why one node did or did not get an event.
public struct NodeVerdict: Sendable, Hashable {
    /// The path asked about.
    public let nodePath: String
    /// Whether one of its handlers was called with the event.
    public let received: Bool
    /// What decided it.
    public let reason: Reason
    /// One line saying it.
    public let summary: String

    /// What decided whether a node got an event.
    public enum Reason: String, Sendable, Hashable {
        /// Its handlers were called.
        case received
        /// No node had the path when the event was raised.
        case notInTree
        /// The node was in the tree but not on this mode's route.
        case notOnRoute
        /// A handler earlier on the route stopped the event.
        case stoppedEarlier
        /// The event reached it, but no handler matched the type or phase.
        case noMatchingHandler
        /// The event reached it, and its handler threw.
        case handlerThrew
        /// It was released before the event reached it.
        case releasedDuringDelivery
    }
}
