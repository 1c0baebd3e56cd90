
/// The records of one outermost raise (and of the raises it led to), handed to the recorder
/// in one call when it ends.
///
/// A buffer of its own rather than an array: a raise appends a record per handler call, and
/// an array's append asks the runtime each time whether its storage is shared (it never is
/// here) and destroys its elements through the type's generic witnesses. A recorder that
/// takes batches (``BatchRecorder``, a journal) takes the records by exchanging contents
/// with an emptied batch of its own (``exchangeContents(with:)``), so the raising thread
/// gets a buffer back without allocating one.
///
/// Used by one thread at a time: the raising thread appends; the recorder exchanges, reads
/// and empties it under its own lock. An async delivery touches it from whichever thread
/// runs each of its steps, one after the other (each `await` orders them). For the same
/// reason the per-access dynamic exclusivity check is left out.
@usableFromInline
package final class RecordBatch: @unchecked Sendable {
    // Private, read through computed properties: read from another module (the journal's
    // writer), a stored property is checked for exclusive access at run time, the
    // exclusivity attribute notwithstanding (a runtime call per read).
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<FactRecord>
    @exclusivity(unchecked) private var length = 0
    @exclusivity(unchecked) private var room: Int

    /// An empty batch with room for `capacity` records.
    package init(capacity: Int = 16) {
        room = max(1, capacity)
        base = .allocate(capacity: room)
    }

    /// A batch holding copies of `records`.
    package convenience init(records: [FactRecord]) {
        self.init(capacity: records.count)
        append(contentsOf: records)
    }

    deinit {
        removeAll()
        base.deallocate()
    }

    /// How many records the batch holds.
    package var count: Int { length }

    /// How many records the batch has room for before it grows.
    package var capacity: Int { room }

    /// Whether the batch holds no record.
    package var isEmpty: Bool { length == 0 }

    /// The record at `index`, read in place.
    package subscript(index: Int) -> FactRecord {
        unsafeAddress {
            precondition(index >= 0 && index < length, "record \(index) of a batch of \(length)")
            return UnsafePointer(base + index)
        }
    }

    /// The last record, if any.
    package var last: FactRecord? { length > 0 ? base[length - 1] : nil }

    /// Calls `body` with the records in place (valid only during the call).
    package func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<FactRecord>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: base, count: length))
    }

    /// Adds `record` at the end.
    @inline(__always)
    package func append(_ record: consuming FactRecord) {
        if length == room { grow(to: 2 * room) }
        (base + length).initialize(to: record)
        length &+= 1
    }

    /// Adds copies of `records` at the end.
    package func append(contentsOf records: [FactRecord]) {
        reserve(length + records.count)
        for record in records { append(record) }
    }

    /// Makes room for `total` records in all.
    package func reserve(_ total: Int) {
        if total > room { grow(to: total) }
    }

    @inline(never)
    private func grow(to larger: Int) {
        let storage = UnsafeMutablePointer<FactRecord>.allocate(capacity: larger)
        storage.moveInitialize(from: base, count: length)
        base.deallocate()
        base = storage
        room = larger
    }

    /// Releases the records, keeping the room. Each is moved out and released by code
    /// specialised for records (a switch over the fact's case), not by the runtime's loop
    /// over the type's witnesses, which cost about three times as much.
    package func removeAll() {
        var index = 0
        while index < length {
            _ = (base + index).move()
            index &+= 1
        }
        length = 0
    }

    /// Moves the records to the end of `records` (for a recorder that takes arrays),
    /// leaving the batch empty with its room.
    func moveAll(appendingTo records: inout [FactRecord]) {
        records.reserveCapacity(records.count + length)
        var index = 0
        while index < length {
            records.append((base + index).move())
            index &+= 1
        }
        length = 0
    }

    /// Exchanges records and room with `other`.
    package func exchangeContents(with other: RecordBatch) {
        swap(&base, &other.base)
        swap(&length, &other.length)
        swap(&room, &other.room)
    }

}
