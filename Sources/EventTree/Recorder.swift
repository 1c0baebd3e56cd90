/// Receives every fact a bus records: the seam between the engine and the journal.
///
/// The engine never imports SQLite. A bus with no recorder runs with no journal; the
/// SQLite journal and the in-memory recorder of `EventTreeTesting` are recorders.
///
/// A bus hands over the records of one raise (its handler calls and its nested raises
/// included) in one call, when the outermost raise ends, so that a recorder can keep an
/// event whole; other facts arrive one call each. Calls may come from several threads at
/// once: per thread, in sequence order; across threads, ``FactRecord/seq`` gives the order.
public protocol Recorder: AnyObject, Sendable {
    /// The sequence every fact is numbered in. A journal shares one across its sessions so
    /// that ids are unique within the file.
    var sequence: SequenceCounter { get }

    /// Takes records of `session`.
    ///
    /// - Parameters:
    ///   - records: Facts in sequence order.
    ///   - session: The session they belong to.
    /// - Returns: What became of the records: the raise that handed them over returns it
    ///   as ``RaiseResult/recording``.
    @discardableResult
    func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus

    /// Takes the records of a change to what every raise depends on — a tree change, a
    /// handler registration or removal, a type's first meeting with its handlers — at
    /// once and without waiting: the bus calls it with its lock held, so that such records
    /// reach the recorder before any raise that could depend on them. A journal commits
    /// them no later than the next raise's records (so a crash can never keep a raise and
    /// lose the change it relied on). The default calls ``record(_:session:)``.
    ///
    /// - Parameters:
    ///   - records: Facts in sequence order.
    ///   - session: The session they belong to.
    func recordChange(_ records: [FactRecord], session: SessionID)

    /// An empty array with room, from records the recorder is done with, for the next
    /// raise's records: handed back, a raise's buffer is allocated once and reused, rather
    /// than allocated on the raising thread and freed on the recorder's. `nil` (the
    /// default) when there is none. The bus asks after handing over a raise's records, on
    /// the raising thread, and keeps the buffer for that thread's next raise.
    func recycledRecords() -> [FactRecord]?
}

extension Recorder {
    /// Calls ``record(_:session:)``.
    public func recordChange(_ records: [FactRecord], session: SessionID) {
        record(records, session: session)
    }

    /// `nil`: the bus allocates each raise's buffer.
    public func recycledRecords() -> [FactRecord]? { nil }
}
