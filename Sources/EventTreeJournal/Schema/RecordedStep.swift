import EventTree

/// One recorded step fact of an event: a handler call, or a step that could not be
/// delivered because its node had been released.
public struct RecordedStep: Sendable, Hashable {
    /// What the step fact says.
    public enum Kind: Sendable, Hashable {
        /// A handler was called (the handler's number, see ``RecordedHandler/number``).
        case call(handlerNumber: Int, outcome: Outcome.Kind)
        /// The node had been released; the route expected `lostCalls` calls there.
        case undelivered(lostCalls: Int)
    }

    /// The fact's seq.
    public let seq: Int
    /// The event it belongs to.
    public let event: EventID
    /// The node of the step.
    public let node: NodeID
    /// The phase of the step.
    public let phase: Phase
    /// What happened.
    public let kind: Kind
    /// A call's start: microseconds from its event's raise (`nil` for an undelivered
    /// step, or when not recorded).
    public let offsetMicroseconds: Int?
    /// A call's duration in nanoseconds (`nil` for an undelivered step).
    public let durationNanoseconds: Int?

    package init(
        seq: Int, event: EventID, node: NodeID, phase: Phase, kind: Kind, offsetMicroseconds: Int? = nil,
        durationNanoseconds: Int? = nil
    ) {
        self.seq = seq
        self.event = event
        self.node = node
        self.phase = phase
        self.kind = kind
        self.offsetMicroseconds = offsetMicroseconds
        self.durationNanoseconds = durationNanoseconds
    }
}

/// One tree change as the journal recorded it.
public struct RecordedTreeChange: Sendable, Equatable {
    /// The change's seq.
    public let seq: Int
    /// The node that changed.
    public let node: NodeID
    /// What changed.
    public let change: JournalTree.Change

    /// A change (for readers that rebuild a tree's history, such as a report's window).
    package init(seq: Int, node: NodeID, change: JournalTree.Change) {
        self.seq = seq
        self.node = node
        self.change = change
    }
}
