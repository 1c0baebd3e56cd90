/// One thing that happened on a bus, as handed to a ``Recorder``.
///
/// Facts are everything the journal needs to rebuild the tree at any moment and to
/// recompute every step of every route. Steps at which no handler matched are not facts:
/// replay derives them from the tree, the registrations and ``handlerMatched(_:eventType:)``.
public enum Fact: Sendable {
    /// A bus started recording.
    case sessionStarted(SessionInfo)
    /// A bus stopped recording (it ended or was released), at `at` on the bus clock's
    /// monotonic nanoseconds.
    case sessionEnded(SessionID, at: Int)
    /// A node was created (as a root: an attach follows if it has a parent).
    case nodeCreated(NodeID, name: String)
    /// A root node became the child of `parent` at `index` of its children.
    case nodeAttached(NodeID, parent: NodeID, index: Int)
    /// A node left `parent` and became the root of a detached subtree.
    case nodeDetached(NodeID, parent: NodeID)
    /// A node moved from one parent to `parent`, at `index` of its children.
    case nodeMoved(NodeID, parent: NodeID, index: Int)
    /// A node got a new name.
    case nodeRenamed(NodeID, name: String)
    /// A node's owner let it go (or released it explicitly). The detaches of its
    /// children and the removals of its handlers come just before, in the same change.
    /// A released node keeps the path it had for later facts about it. `by` names the
    /// handler call it happened in, when a handler released it.
    case nodeReleased(NodeID, by: HandlerCallSite?)
    /// A handler was registered.
    case handlerAdded(HandlerRegistration)
    /// A handler was removed (by its token, or with its node).
    case handlerRemoved(HandlerID)
    /// The handler matches events (or errors) of this type name. Recorded once per pair,
    /// when the pair first meets: a new type raised, or a new handler registered.
    case handlerMatched(HandlerID, eventType: String)
    /// An event, request or error was raised (or produced by a transform).
    case raised(RaisedEvent)
    /// A handler was called; `detail` is the error of a failed call or the answer of an
    /// answering call (`nil` for every other call).
    case handlerCalled(HandlerCall, detail: HandlerCall.Detail?)
    /// A step could not be delivered: its node was released before or during it.
    /// `lostHandlers` are the handlers whose calls the route expected there (registered at
    /// raise time, matching the event and the phase, and not yet called).
    case stepUndelivered(EventID, node: NodeID, phase: Phase, lostHandlers: [HandlerID])
    /// A raise ended. Every event of a transform chain ends with the chain's status.
    case raiseFinished(EventID, status: RaiseStatus)
    /// No handler acted on the event: reported once to the bus's dead-letter hook.
    case deadLetter(EventID)
    /// No error handler caught the error: reported once to the bus's unhandled-error hook.
    case unhandledError(EventID)
}

/// A fact with its place in the global sequence.
public struct FactRecord: Sendable {
    /// The fact's sequence number: a total order over every fact of a journal.
    public let seq: Int
    /// What happened.
    public let fact: Fact

    /// Creates a record.
    public init(seq: Int, fact: Fact) {
        self.seq = seq
        self.fact = fact
    }
}

/// A handler call in progress: the event it handles and the handler.
public struct HandlerCallSite: Sendable, Hashable {
    /// The event being handled.
    public var event: EventID
    /// The handler being called.
    public var handler: HandlerID

    /// Creates a call site.
    public init(event: EventID, handler: HandlerID) {
        self.event = event
        self.handler = handler
    }
}
