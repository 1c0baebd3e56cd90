/// Describes a registered handler: the facts the journal keeps about it.
public final class HandlerRegistration: Sendable {
    /// The handler's id.
    public let id: HandlerID
    /// The node it is registered on.
    public let node: NodeID
    /// Its label.
    public let label: String
    /// The type name it was registered for, or `nil` for every type of its channel.
    public let eventType: String?
    /// Whether it hears ordinary events or errors.
    public let channel: Channel
    /// The phases it listens in.
    public let phases: Phases
    /// The `#fileID` of the registration.
    public let fileID: String
    /// The `#line` of the registration.
    public let line: Int

    /// Creates a description.
    public init(
        id: HandlerID, node: NodeID, label: String, eventType: String?, channel: Channel,
        phases: Phases, fileID: String, line: Int
    ) {
        self.id = id
        self.node = node
        self.label = label
        self.eventType = eventType
        self.channel = channel
        self.phases = phases
        self.fileID = fileID
        self.line = line
    }

    /// `file:line`.
    public var location: String { "\(fileID):\(line)" }

    /// Which events a handler hears: ordinary ones or errors. Errors travel on their own
    /// channel, so an "every event" handler never sees one.
    public enum Channel: String, Sendable, Hashable {
        /// Ordinary events and requests.
        case events
        /// Errors reported by `report(_:)` or thrown by handlers.
        case errors
    }
}
