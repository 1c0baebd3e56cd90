import EventTree

/// A kind of delivery-history row whose seqs the journal's keys give directly, without
/// unpacking a call.
package enum DeliveryHistoryLandmark: Sendable, Hashable {
    /// A failed or answering call: the calls with an error or an answer.
    case failedOrAnsweringCall
    /// An undelivered step, in `phase` or in any phase.
    case undeliveredStep(phase: Phase?)
    /// A dead-letter or unhandled-error report.
    case unattendedReport
}

extension JournalReader {
    /// The lowest seq at or after `seq` of a row of the kind `landmark` names, or `nil`
    /// when there is none: one lookup in a key, so that a reader of a filter matching few
    /// rows jumps from one to the next instead of unpacking every call between them.
    package func nextSeq(of landmark: DeliveryHistoryLandmark, atOrAfter seq: Int) throws(JournalError) -> Int? {
        if case .undeliveredStep(let phase?) = landmark {
            return try integer(Self.nextSeqQuery(of: landmark), [.integer(seq), .integer(JournalCodes.code(phase))])
        }
        return try integer(Self.nextSeqQuery(of: landmark), [.integer(seq)])
    }

    /// The query of ``nextSeq(of:atOrAfter:)``: the seq is `?1`, a phase `?2` (a test pins
    /// each plan to a key).
    package static func nextSeqQuery(of landmark: DeliveryHistoryLandmark) -> String {
        switch landmark {
        case .failedOrAnsweringCall:
            "SELECT seq FROM j_call_details WHERE seq >= ?1 ORDER BY seq LIMIT 1"
        case .undeliveredStep(nil):
            "SELECT seq FROM j_undelivered WHERE seq >= ?1 ORDER BY seq LIMIT 1"
        case .undeliveredStep(_?):
            "SELECT seq FROM j_undelivered WHERE seq >= ?1 AND phase = ?2 ORDER BY seq LIMIT 1"
        case .unattendedReport:
            """
            SELECT unattended_seq FROM j_event_details WHERE unattended_seq IS NOT NULL AND unattended_seq >= ?1
            ORDER BY unattended_seq LIMIT 1
            """
        }
    }

    /// Whether any handler was registered for `phase`: with none, no call is in that phase.
    package func hasHandler(registeredFor phase: Phase) throws(JournalError) -> Bool {
        try integer(
            "SELECT 1 FROM j_handlers WHERE phases & ? != 0 LIMIT 1", [.integer(Phases(phase).rawValue)]) != nil
    }

    /// The first registration (its handler_id) of a handler labelled `label`, registered at
    /// `location` (`file:line`) when it is given; `nil` when there is none. No row of such a
    /// handler lies before it.
    package func firstRegistration(ofHandlerLabelled label: String, at location: String? = nil) throws(JournalError) -> Int? {
        try integer(
            "SELECT min(handler_id) FROM j_handlers WHERE label = ?1 AND (?2 IS NULL OR file || ':' || line = ?2)",
            [.text(label), location.map(JournalValue.text) ?? .null])
    }

    /// The last seq a row of event `event`, or of an event transformed from it (in turn),
    /// can have: their ends, their last runs of calls (a call enqueued on the main actor is
    /// made after its raise ended), their last undelivered steps and their dead-letter or
    /// unhandled-error reports; with `includingCaused`, those of the events they caused (in
    /// turn) too. `nil` when the journal has no such event. For a raise that never ended
    /// (the recording stopped during its delivery) this is where its records stop, so that
    /// a reader need not follow the journal to its end for more.
    package func lastHistorySeq(ofChainFrom event: Int, includingCaused: Bool = false) throws(JournalError) -> Int? {
        try integer(Self.lastHistorySeqQuery, [.integer(event), .integer(includingCaused ? 1 : 0)])
    }

    /// Where the records of `event`'s delivery end: its raise's end, or, for a raise that
    /// never ended (the recording stopped during its delivery), the last record of its
    /// transform chain (and, with `includingCaused`, of what it raised), so that a reader
    /// streaming the journal replays it there instead of holding it, and everything raised
    /// after it, to the journal's end.
    package func lastDeliverySeq(of event: RecordedEvent, includingCaused: Bool = false) throws(JournalError) -> Int {
        if let finished = event.finishedSeq { return finished }
        return try lastHistorySeq(ofChainFrom: event.id.rawValue, includingCaused: includingCaused) ?? Int.max
    }

    /// The query of ``lastHistorySeq(ofChainFrom:includingCaused:)``: the event is `?1`,
    /// `?2` is 1 to follow causes. Transforms and causes point forward in time (a larger
    /// id): the walk ends, whatever the file says.
    package static let lastHistorySeqQuery = """
        WITH RECURSIVE chain(id) AS (
            SELECT event_id FROM j_events WHERE event_id = ?1
            UNION
            SELECT d.event_id FROM j_event_details d JOIN chain ON d.transformed_from = chain.id WHERE d.event_id > chain.id
            UNION
            SELECT d.event_id FROM j_event_details d JOIN chain ON d.cause_id = chain.id WHERE ?2 AND d.event_id > chain.id)
        SELECT max(max(e.event_id + coalesce(e.finished_back, 0),
                       coalesce((SELECT max(last_seq) FROM j_call_runs WHERE event_id = e.event_id), 0),
                       coalesce((SELECT max(seq) FROM j_undelivered WHERE event_id = e.event_id), 0),
                       coalesce((SELECT unattended_seq FROM j_event_details WHERE event_id = e.event_id), 0)))
          FROM chain JOIN j_events e ON e.event_id = chain.id
        """
}
