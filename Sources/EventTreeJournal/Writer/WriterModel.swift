import EventTree

/// What the writer remembers between facts. A value, so that a failed transaction can
/// restore it and retry the same records.
struct WriterModel {
    /// The sessions' live trees, for snapshots. Restored with the rest when a write fails: a
    /// transaction that changes a session's tree copies that tree once (copy-on-write), which
    /// costs its live nodes, not the journal's history (measured: keeping the trees outside
    /// the model instead cost the raising thread 6 instructions a call, through the heap).
    var trees = LiveTrees()
    /// Handler id → handler number (looked up for every call row, hence the fast table).
    var handlerNumbers = IntTable()
    var nextHandlerNumber: Int
    var typeIDs: [String: Int] = [:]
    /// The type of the last raise, in front of `typeIDs`: raises mostly repeat a type.
    var lastType: (name: String, id: Int)?
    var nextTypeID: Int
    var openEvents = OpenEvents()
    /// The threads named in `j_threads`, per session.
    var namedThreads: Set<ThreadKey> = []
    /// The thread of the last raise, named (in front of `namedThreads`).
    var lastNamedThread: ThreadKey?
    /// Each session's start: on the wall clock and on its bus's monotonic clock, to place
    /// raises and calls in time. Sessions of this process only (older ones end no more).
    var sessionClocks: [SessionID: (wall: Double, nanoseconds: Int)] = [:] {
        didSet { lastSessionStart = nil }
    }
    /// The monotonic start of the last raise's session, in front of `sessionClocks`.
    var lastSessionStart: (session: SessionID, nanoseconds: Int)?
    /// Event, step and drop counts not yet written to the sessions' rows.
    var pendingCounts: [SessionID: (events: Int, steps: Int, dropped: Int)] = [:]
    /// The next seq a reopened journal would start from (see `RowWriter.sequenceReserve`).
    var reservedSequence: Int
    /// The last `settled_seq` written: every record numbered lower is committed.
    var settledBelow: Int
    /// The hash chain's head, the last seq chained, and the records written but not yet
    /// chained (a lower seq may still be on its way from another thread).
    var chainHead = ChainHash.start
    var chainedThrough = 0
    var unchained = UnchainedRecords()
    /// The seqs of sessions started and not chained yet: a checkpoint ends just before each
    /// (see ``RowWriter``), so that retention can remove whole sessions.
    var unchainedSessionStarts: [Int] = []
    /// Sessions started through this writer and not ended: retention never removes them.
    var openSessions: Set<Int> = []

    /// Loads what an existing journal already numbered.
    init(loadingFrom db: borrowing Connection) throws(SQLiteError) {
        nextHandlerNumber = (try db.integer("SELECT max(handler_no) FROM j_handlers") ?? 0) + 1
        nextTypeID = (try db.integer("SELECT max(type_id) FROM j_types") ?? 0) + 1
        reservedSequence = try db.integer("SELECT next_seq FROM j_sequence") ?? 1
        settledBelow = try db.integer("SELECT settled_seq FROM j_sequence") ?? 0
        let types = try db.prepare("SELECT type_id, name FROM j_types")
        while try types.step() {
            if let name = types.text(1) { typeIDs[name] = types.int(0) }
        }
    }
}

/// Records written but not chained yet, each kept as its frame (its length and bytes, as
/// the chain hashes it), in one buffer (no allocation per record); their digests are taken
/// when they are chained (``CheckpointHasher/add(kept:in:tags:)``).
///
/// Records kept one after another whose seqs follow one another (each the one before plus
/// one: most of a raise's calls) share one entry, a *span*: keeping a call extends it
/// rather than adding an entry, and chaining walks its frames.
struct UnchainedRecords {
    /// A span of kept records: the seqs `seq...lastSeq`, one record each, their frames the
    /// `count` bytes at `start` in the buffer, one after another.
    struct Entry {
        var seq: Int
        var lastSeq: Int
        var start: Int
        var count: Int

        /// How many records it holds.
        var records: Int { lastSeq &- seq &+ 1 }
    }

    /// The records' frames, one after the other. Copied before a write when shared: the
    /// writer's model is a value, which a failed transaction restores.
    private var bytes = ByteBuffer(capacity: 1_024)
    /// The spans, in seq order (their seqs never overlap).
    private(set) var entries: [Entry] = []

    /// The most the frames' buffer keeps once every record is chained: a transaction's
    /// records (thousands) need far more than one row's buffer, but a buffer that a record
    /// of megabytes made grow is not kept.
    static let keptCapacity = 1 << 20

    var isEmpty: Bool { entries.isEmpty }

    /// The bytes of the records' frames.
    var byteCount: Int { bytes.count }

    /// The bytes kept for frames.
    var capacity: Int { bytes.capacity }

    /// Keeps a record, in seq order (a raise's record, written when the raise finishes, goes
    /// back before its calls; its frame goes at the end all the same).
    mutating func append(seq: Int, _ record: UnsafeBufferPointer<UInt8>) {
        keepFrame(of: seq, atMost: 18 + record.count) {
            CheckpointHasher.writeFrame(of: UnsafeRawBufferPointer(record), into: $0)
        }
    }

    /// Keeps the record of `seq` that `write` writes at the pointer it gets (room for `limit`
    /// bytes, at most 127) and whose length it returns: written where it is kept, in its
    /// frame, rather than copied there.
    @inline(__always)
    mutating func append(seq: Int, atMost limit: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        assert(limit < 128, "a frame's length is one byte below 128")
        keepFrame(of: seq, atMost: 1 + limit + 8) { buffer in
            let frame = buffer.baseAddress!
            let length = write(frame + 1)
            // The length, a one-byte varint; then eight zero bytes, for the digest's last word.
            frame[0] = UInt8(truncatingIfNeeded: length)
            UnsafeMutableRawPointer(frame + 1 + length).storeBytes(of: 0, as: UInt64.self)
            return 1 + length
        }
    }

    /// Keeps the frame of `seq` that `write` writes at the end of the buffer (room for
    /// `limit` bytes), returning its length.
    @inline(__always)
    private mutating func keepFrame(of seq: Int, atMost limit: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        ByteBuffer.makeUnique(&bytes)
        let start = bytes.count
        bytes.write(atMost: limit, write)
        keep(seq: seq, start: start, count: bytes.count - start)
    }

    mutating func append(seq: Int, _ record: [UInt8]) {
        record.withUnsafeBufferPointer { append(seq: seq, $0) }
    }

    /// Adds the frame of `seq` just written at `start`: to the last span when it follows
    /// that span's last record in seq and in the buffer, as a span of its own otherwise.
    @inline(__always)
    private mutating func keep(seq: Int, start: Int, count: Int) {
        let lastIndex = entries.count &- 1
        if lastIndex >= 0 {
            let last = entries[lastIndex]
            if last.lastSeq &+ 1 == seq && last.start &+ last.count == start {
                entries[lastIndex].lastSeq = seq
                entries[lastIndex].count = last.count &+ count
                return
            }
        }
        insert(Entry(seq: seq, lastSeq: seq, start: start, count: count))
    }

    /// Adds `entry` in seq order.
    private mutating func insert(_ entry: Entry) {
        guard let last = entries.last, last.seq > entry.seq else { return entries.append(entry) }
        var position = entries.count - 1
        while position > 0 && entries[position - 1].seq > entry.seq { position -= 1 }
        if position == entries.count - 1 {
            // Just before the last span (a raise's record before its calls): the span moves
            // up one, without the general insertion's shifting.
            entries[position] = entry
            entries.append(last)
        } else {
            entries.insert(entry, at: position)
        }
    }

    /// Takes out the records numbered below `seq`, in seq order: `body` gets their spans
    /// and the storage their frames are in. `nil` when there are none.
    mutating func take<R>(
        below seq: Int,
        _ body: (_ entries: UnsafeBufferPointer<Entry>, _ storage: UnsafeRawBufferPointer) throws(SQLiteError) -> R
    ) throws(SQLiteError) -> R? {
        // The spans are in seq order: the ready ones are a prefix, and at most one holds
        // records on both sides of `seq` (split in two here).
        var readyCount = 0
        while readyCount < entries.count && entries[readyCount].lastSeq < seq { readyCount += 1 }
        if readyCount < entries.count && entries[readyCount].seq < seq {
            split(at: readyCount, before: seq)
            readyCount += 1
        }
        guard readyCount > 0 else { return nil }
        let storage = UnsafeRawBufferPointer(bytes.bytes)
        let result = try entries.withUnsafeBufferPointer { (entries) throws(SQLiteError) in
            try body(UnsafeBufferPointer(rebasing: entries[..<readyCount]), storage)
        }
        guard readyCount < entries.count else {
            // All taken (the usual case): the buffers keep their capacity for the next ones.
            if isKnownUniquelyReferenced(&bytes), bytes.capacity <= Self.keptCapacity {
                bytes.count = 0
            } else {
                bytes = ByteBuffer(capacity: 1_024)
            }
            entries.removeAll(keepingCapacity: true)
            return result
        }
        var rest = UnchainedRecords()
        for entry in entries[readyCount...] {
            let start = rest.bytes.count
            // As `append` writes frames: eight zero bytes after them, for the last digest's last word.
            rest.bytes.write(atMost: entry.count + 8) { buffer in
                let frame = UnsafeMutableRawPointer(buffer.baseAddress!)
                frame.copyMemory(from: storage.baseAddress! + entry.start, byteCount: entry.count)
                frame.storeBytes(of: 0, toByteOffset: entry.count, as: UInt64.self)
                return entry.count
            }
            rest.insert(Entry(seq: entry.seq, lastSeq: entry.lastSeq, start: start, count: entry.count))
        }
        self = rest
        return result
    }

    /// Splits the span at `index` in two: its records below `seq`, and the others.
    private mutating func split(at index: Int, before seq: Int) {
        let entry = entries[index]
        var at = entry.start
        let storage = UnsafeRawBufferPointer(bytes.bytes)
        for _ in entry.seq..<seq { at = CheckpointHasher.record(in: storage, at: at).end }
        entries[index] = Entry(seq: entry.seq, lastSeq: seq &- 1, start: entry.start, count: at &- entry.start)
        entries.insert(Entry(seq: seq, lastSeq: entry.lastSeq, start: at, count: entry.start &+ entry.count &- at), at: index + 1)
    }
}

/// A thread of one session.
struct ThreadKey: Hashable {
    let session: SessionID
    let number: Int
}
