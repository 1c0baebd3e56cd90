import EventTree

/// Why a replay question has no answer: an id or path the journal does not know. Its
/// description is one line a user can act on.
public enum ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The journal has no session with this id.
    case unknownSession(SessionID)
    /// The journal has no sessions at all.
    case noSessions
    /// The journal has no event with this id.
    case unknownEvent(EventID)
    /// No node of the event's session ever had this path.
    case unknownNode(path: String, session: SessionID)
    /// The journal has no handler with this id.
    case unknownHandler(HandlerID)
    /// The event belongs to another session than the one asked about.
    case eventOfAnotherSession(EventID, session: SessionID, asked: SessionID)

    /// One line, without a leading `error:`.
    public var description: String {
        switch self {
        case .unknownSession(let id):
            "the journal has no session \(id.rawValue); list them with 'eventtree sessions'"
        case .noSessions:
            "the journal has no sessions yet"
        case .unknownEvent(let id):
            "the journal has no event \(id.rawValue); list them with 'eventtree replay' or 'eventtree query'"
        case let .unknownNode(path, session):
            "no node of session \(session.rawValue) ever had the path '\(path)'; see 'eventtree topology'"
        case .unknownHandler(let id):
            "the journal has no handler \(id.rawValue); see the handler_registrations view"
        case let .eventOfAnotherSession(event, session, asked):
            "event \(event.rawValue) was raised in session \(session.rawValue), not in session \(asked.rawValue)"
        }
    }
}
