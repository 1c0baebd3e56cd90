import EventTree

/// One handler call (or undelivered step) of a trace, as the `delivery_history` view
/// would show it.
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

    /// Creates a step.
    public init(eventType: String, nodePath: String, phase: Phase, handlerLabel: String?, outcome: String) {
        self.eventType = eventType
        self.nodePath = nodePath
        self.phase = phase
        self.handlerLabel = handlerLabel
        self.outcome = outcome
    }

    /// `Type at path phase: label -> outcome`.
    public var description: String {
        "\(eventType) at \(nodePath) \(phase): \(handlerLabel ?? "-") -> \(outcome)"
    }
}
