/// What a raise returns: the event's id, how it ended, and any answer.
public struct RaiseResult: Sendable {
    /// The id of the raised event.
    public let eventID: EventID
    /// The id of the event the route carried at its end (differs after a transform).
    public let finalEventID: EventID
    /// How the raise ended.
    public let status: RaiseStatus
    /// The answer, when ``status`` is ``RaiseStatus/answered(by:)``.
    public let answer: (any Sendable)?
    /// What became of the raise's records (see ``RecordingStatus``).
    public let recording: RecordingStatus

    /// Creates a result.
    public init(
        eventID: EventID, finalEventID: EventID, status: RaiseStatus, answer: (any Sendable)?,
        recording: RecordingStatus = .notRecorded
    ) {
        self.eventID = eventID
        self.finalEventID = finalEventID
        self.status = status
        self.answer = answer
        self.recording = recording
    }

    /// Whether the raise's records are committed to stable storage: `true` only from a
    /// durable journal once they are committed with `synchronous=FULL`; always `false` from
    /// a buffered journal, an in-memory recorder, or with no recorder.
    public var isDurable: Bool { recording.isDurable }
}

/// What a request returns: the raise's result and the typed answer.
public struct RequestResult<Answer: Sendable>: Sendable {
    /// The raise's result; its ``RaiseResult/status`` says whether, and by whom, the
    /// request was answered.
    public let raise: RaiseResult

    /// Wraps a raise's result.
    public init(raise: RaiseResult) { self.raise = raise }

    /// The answer, or `nil` when ``status`` is not ``RaiseStatus/answered(by:)``.
    public var answer: Answer? { raise.answer as? Answer }

    /// How the request ended.
    public var status: RaiseStatus { raise.status }
}
