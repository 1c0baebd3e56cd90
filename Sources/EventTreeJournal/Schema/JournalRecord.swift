import EventTree

/// One record of a journal, typed: what ``JournalReader/records(from:)`` streams in seq
/// order. Together the records say everything the journal knows.
public enum JournalRecord: Sendable, Equatable {
    /// A session started (its id is the seq).
    case sessionStarted(RecordedSession)
    /// A session ended.
    case sessionEnded(SessionID, seq: Int)
    /// The tree changed.
    case treeChange(RecordedTreeChange)
    /// A handler was registered (its id is the seq).
    case handlerAdded(RecordedHandler)
    /// A handler was removed.
    case handlerRemoved(HandlerID, seq: Int)
    /// An event, request or error was raised (its id is the seq).
    case raise(RecordedEvent)
    /// A handler was called, or a step could not be delivered.
    case step(RecordedStep)
    /// No handler acted on the event: it was reported as a dead letter.
    case deadLetter(EventID, seq: Int)
    /// No error handler caught the error: it was reported as unhandled.
    case unhandledError(EventID, seq: Int)
    /// The journal's own trouble (failed writes, dropped records).
    case trouble(RecordedTrouble)

    /// The record's place in the journal's sequence.
    public var seq: Int {
        switch self {
        case .sessionStarted(let session): session.id.rawValue
        case .sessionEnded(_, let seq), .handlerRemoved(_, let seq), .deadLetter(_, let seq),
            .unhandledError(_, let seq):
            seq
        case .treeChange(let change): change.seq
        case .handlerAdded(let handler): handler.id.rawValue
        case .raise(let event): event.id.rawValue
        case .step(let step): step.seq
        case .trouble(let trouble): trouble.seq
        }
    }
}

/// A session as the journal recorded it.
public struct RecordedSession: Sendable, Hashable {
    /// Its id (the seq of its start).
    public let id: SessionID
    /// When it started, in seconds since 1970.
    public let startedAt: Double
    /// The recording process's name.
    public let process: String
    /// The host it ran on.
    public let host: String
    /// The app's version, if it gave one.
    public let appVersion: String?
}

/// A note the journal wrote about its own trouble.
public struct RecordedTrouble: Sendable, Hashable {
    /// Its seq.
    public let seq: Int
    /// The session it concerns, if one.
    public let session: SessionID?
    /// `write-failed`, `dropped` or `refused` (a batch the database refused, set aside).
    public let kind: String
    /// What happened.
    public let message: String
    /// How many records it concerns.
    public let records: Int
}
