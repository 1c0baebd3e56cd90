import EventTree

/// One recorded step fact of an event: a handler call or a step that could not be delivered.
struct RecordedStep: Sendable {
    enum Kind: Sendable {
        case call(handlerNumber: Int, outcome: Outcome.Kind)
        case undelivered(lostCalls: Int)
    }

    let seq: Int
    let event: EventID
    let node: NodeID
    let phase: Phase
    let kind: Kind
}
