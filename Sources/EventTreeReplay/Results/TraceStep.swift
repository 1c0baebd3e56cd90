import EventTree

/// One handler call (or undelivered step) of a trace, as the `delivery_history` view
/// would show it, with its number on its event's route as `explain` numbers it.
public struct TraceStep: Sendable, Hashable, CustomStringConvertible {
    /// The type of the event delivered.
    public let eventType: String
    /// The node's path at the time.
    public let nodePath: String
    /// The step's phase.
    public let phase: Phase
    /// The handler called; `nil` for an undelivered step.
    public let handlerLabel: String?
    /// The `Outcome.Kind` case name, or `undelivered`.
    public let outcome: String
    /// The step's number (from 1) on its event's route, as `eventtree explain` numbers it;
    /// `nil` when not known (a call replay could not place on the route, or a step built
    /// by hand).
    public let number: Int?

    /// Creates a step.
    public init(
        eventType: String, nodePath: String, phase: Phase, handlerLabel: String?, outcome: String, number: Int? = nil
    ) {
        self.eventType = eventType
        self.nodePath = nodePath
        self.phase = phase
        self.handlerLabel = handlerLabel
        self.outcome = outcome
        self.number = number
    }

    /// `N. Type at path phase: label -> outcome` (without `N. ` when the number is not known).
    public var description: String {
        (number.map { "\($0). " } ?? "") + "\(eventType) at \(nodePath) \(phase): \(handlerLabel ?? "-") -> \(outcome)"
    }

    /// The step with its recorded texts (type name, path, label) passed through `transform`.
    func mappingText(_ transform: (String) -> String) -> TraceStep {
        TraceStep(
            eventType: transform(eventType), nodePath: transform(nodePath), phase: phase,
            handlerLabel: handlerLabel.map(transform), outcome: outcome, number: number)
    }
}

/// A recorded step with its seq and its event, as replay reads it for ``RecordingDiff``.
struct NumberedStep {
    let seq: Int
    let event: EventID
    var step: TraceStep
}
