import EventTree

/// A handler registration as the journal recorded it. A class: replay passes handlers
/// around for every step, and a reference is cheaper to copy than its fields.
public final class RecordedHandler: Sendable, Hashable {
    /// The handler's id (the seq of its registration).
    public let id: HandlerID
    /// The journal's small dense number for it (what its calls refer to), from 1.
    public let number: Int
    /// The node it is registered on.
    public let node: NodeID
    /// The type name it was registered for; `nil` for every type of its channel.
    public let eventType: String?
    /// The journal's number for ``eventType``.
    package let typeID: Int?
    /// Ordinary events or errors.
    public let channel: HandlerRegistration.Channel
    /// The phases it listens in.
    public let phases: Phases
    /// Its label.
    public let label: String
    /// `#fileID` of the registration.
    public let fileID: String
    /// `#line` of the registration.
    public let line: Int
    /// When it was removed (by its token or with its node), if it was.
    public let removedSeq: Int?

    package init(
        id: HandlerID, number: Int, node: NodeID, eventType: String?, typeID: Int?,
        channel: HandlerRegistration.Channel, phases: Phases, label: String, fileID: String, line: Int, removedSeq: Int?
    ) {
        self.id = id
        self.number = number
        self.node = node
        self.eventType = eventType
        self.typeID = typeID
        self.channel = channel
        self.phases = phases
        self.label = label
        self.fileID = fileID
        self.line = line
        self.removedSeq = removedSeq
    }

    /// `file:line`.
    public var location: String { "\(fileID):\(line)" }

    /// Records are equal when they describe the same handler.
    public static func == (lhs: RecordedHandler, rhs: RecordedHandler) -> Bool { lhs.id == rhs.id }

    /// Hashes the handler's id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Whether it was registered at `seq` (added before, not removed yet).
    public func isRegistered(at seq: Int) -> Bool {
        id.rawValue < seq && (removedSeq.map { $0 > seq } ?? true)
    }
}
