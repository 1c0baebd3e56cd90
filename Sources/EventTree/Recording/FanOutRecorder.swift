/// A recorder that hands every record to several recorders: a journal and live spans, say.
///
/// ```swift
/// let bus = EventBus(recorder: FanOutRecorder(journal, TracingRecorder()))
/// ```
///
/// **One sequence.** A bus numbers every fact — node, handler and event ids included —
/// from its recorder's ``Recorder/sequence``, so all the recorders see the same numbers.
/// Those are the *primary* recorder's (the first one given): a journal continues its
/// file's sequence and settles the batches it takes, so it must be the primary, and a
/// fan-out holds at most one. The other recorders' own sequences are never used; each of
/// them must take the records as numbered (the in-memory `TraceRecorder` and
/// `TracingRecorder` do). A recorder whose sequence tracks open batches (a journal) cannot
/// be a secondary: the fan-out stops the program when given one, naming the way out.
///
/// **Order.** Each batch goes to the primary first, then to the others in the order
/// given, on the calling thread. ``record(_:session:)`` returns the primary's
/// ``RecordingStatus`` (a durable journal's answer is the one a raise must report); a
/// secondary never delays the primary's write, but a slow secondary delays the raise
/// that hands the batch over.
public final class FanOutRecorder: Recorder {
    /// The recorders, the primary first.
    public let recorders: [any Recorder]

    /// The primary recorder's sequence: the one the bus numbers facts with.
    public var sequence: SequenceCounter { recorders[0].sequence }

    /// Creates a fan-out to `primary` and `others`.
    ///
    /// - Parameters:
    ///   - primary: The recorder whose sequence numbers every fact and whose status every
    ///     raise returns: the journal, when there is one.
    ///   - others: Recorders that take the records as numbered, in the order given.
    ///   - fileID: Where the fan-out is made, for the message of a misuse.
    ///   - line: The line of that place.
    public convenience init(_ primary: any Recorder, _ others: any Recorder..., fileID: String = #fileID, line: Int = #line) {
        self.init(primary, others: others, fileID: fileID, line: line)
    }

    /// Creates a fan-out to `primary` and the recorders of `others`.
    ///
    /// - Parameters:
    ///   - primary: The recorder whose sequence numbers every fact and whose status every
    ///     raise returns: the journal, when there is one.
    ///   - others: Recorders that take the records as numbered, in the order given.
    ///   - fileID: Where the fan-out is made, for the message of a misuse.
    ///   - line: The line of that place.
    public init(_ primary: any Recorder, others: [any Recorder], fileID: String = #fileID, line: Int = #line) {
        for other in others where other.sequence !== primary.sequence && other.sequence.tracksOpenBatches {
            // A journal numbers its file: fed another counter's numbers it would settle
            // nothing and reuse seqs after a reopen.
            preconditionFailure(
                "\(fileID):\(line): a FanOutRecorder's secondary recorder \(type(of: other)) numbers its own records "
                    + "(a journal): make it the first recorder, and give a fan-out at most one journal")
        }
        recorders = [primary] + others
    }

    /// Hands `records` to every recorder, the primary first.
    ///
    /// - Returns: The primary recorder's status.
    @discardableResult
    public func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        let status = recorders[0].record(records, session: session)
        for recorder in recorders.dropFirst() { recorder.record(records, session: session) }
        return status
    }

    /// Hands a change's records to every recorder's ``Recorder/recordChange(_:session:)``,
    /// the primary first (the bus's lock is held: each must take them without waiting).
    public func recordChange(_ records: [FactRecord], session: SessionID) {
        for recorder in recorders { recorder.recordChange(records, session: session) }
    }

    /// Hands `records` to every recorder, the primary first, and leaves in `records` the
    /// buffer the primary hands back (see ``Recorder/record(emptying:session:)``).
    @discardableResult
    public func record(emptying records: inout [FactRecord], session: SessionID) -> RecordingStatus {
        let handed = records
        let status = recorders[0].record(emptying: &records, session: session)
        for recorder in recorders.dropFirst() { recorder.record(handed, session: session) }
        return status
    }
}
