/// What a handler knows about the call it is in: which event, where it came from, where
/// it is now, in which phase, and why it was raised.
public struct HandlerContext: Sendable {
    /// The id of the event being delivered (a transformed event has its own).
    public internal(set) var eventID: EventID
    /// The node the event was raised at.
    public let origin: NodeID
    /// The node whose handler is running.
    public internal(set) var nodeID: NodeID
    /// The phase of the step.
    public internal(set) var phase: Phase
    /// The event whose handler raised this one (for an error: the failing event), if any.
    public let cause: EventID?
    /// The handler being called.
    public internal(set) var handler: HandlerID

    var core: NodeCore

    /// The node whose handler is running, unless its owner has let it go since.
    public var node: EventNode? { core.bus?.handle(of: core) }

    /// The running node's path (names from its root, joined by `/`).
    public var path: String { core.bus?.path(of: core) ?? "" }
}
