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
    /// handler registration or removal, a type's first meeting with its handlers. The bus
    /// calls it without holding its lock, one call at a time per bus, in the order of the
    /// changes, and before any raise that could depend on a change hands over its own
    /// records; so it may wait, or call back into the bus, without stalling other threads'
    /// raises that do not depend on it. A journal commits them no later than the next
    /// raise's records (so a crash can never keep a raise and lose the change it relied
    /// on). The default calls ``record(_:session:)``.
    ///
    /// - Parameters:
    ///   - records: Facts in sequence order.
    ///   - session: The session they belong to.
    func recordChange(_ records: [FactRecord], session: SessionID)

    /// Takes the records of an outermost raise, as ``record(_:session:)`` does, and leaves
    /// `records` empty, with room for the thread's next raise: the bus hands every raise's
    /// records over this way (a journal's by a path of its own) and keeps the buffer it gets
    /// back, so that a raise's buffer is allocated once and reused rather than allocated on
    /// the raising thread and freed on the recorder's. The default calls
    /// ``record(_:session:)`` and empties the array in place (no allocation when the
    /// recorder kept no copy of it); a recorder that keeps the records may hand back a
    /// buffer it is done with instead.
    ///
    /// - Parameters:
    ///   - records: Facts in sequence order; empty on return.
    ///   - session: The session they belong to.
    /// - Returns: What became of the records, as ``record(_:session:)`` returns it.
    @discardableResult
    func record(emptying records: inout [FactRecord], session: SessionID) -> RecordingStatus
}

extension Recorder {
    /// Calls ``record(_:session:)``.
    public func recordChange(_ records: [FactRecord], session: SessionID) {
        record(records, session: session)
    }

    /// Calls ``record(_:session:)``, then empties `records`, keeping its room unless it
    /// grew past a few kilobytes (an unusually large raise's).
    @discardableResult
    public func record(emptying records: inout [FactRecord], session: SessionID) -> RecordingStatus {
        let status = record(records, session: session)
        records.removeAll(keepingCapacity: records.capacity <= 64)
        return status
    }
}
