import EventTree

/// What the writer remembers between facts. A value, so that a failed transaction can
/// restore it and retry the same records.
struct WriterModel {
    /// The live tree, for paths (released nodes keep their last path in the journal).
    var tree = JournalTree()
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
struct UnchainedRecords {
    /// A kept record: its seq, where its frame is in the buffer, and its record's length
    /// (the frame's last bytes).
    struct Entry {
        var seq: Int
        var start: Int
        var count: Int
        var recordCount: Int
    }

    /// The records' frames, one after the other. Copied before a write when shared: the
    /// writer's model is a value, which a failed transaction restores.
    private var bytes = ByteBuffer(capacity: 1_024)
    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// The bytes of the records' frames.
    var byteCount: Int { bytes.count }

    /// The bytes kept for frames.
    var capacity: Int { bytes.capacity }

    /// Keeps a record, its entry in seq order (a raise's record, written when the raise
    /// finishes, goes back before its calls; its frame goes at the end all the same).
    mutating func append(seq: Int, _ record: UnsafeBufferPointer<UInt8>) {
        ByteBuffer.makeUnique(&bytes)
        let start = bytes.count
        bytes.write(atMost: 18 + record.count) { CheckpointHasher.writeFrame(of: UnsafeRawBufferPointer(record), into: $0) }
        keep(Entry(seq: seq, start: start, count: bytes.count - start, recordCount: record.count))
    }

    mutating func append(seq: Int, _ record: [UInt8]) {
        record.withUnsafeBufferPointer { append(seq: seq, $0) }
    }

    /// Adds `entry` in seq order.
    @inline(__always)
    private mutating func keep(_ entry: Entry) {
        if let last = entries.last, last.seq > entry.seq {
            var position = entries.count - 1
            while position > 0 && entries[position - 1].seq > entry.seq { position -= 1 }
            entries.insert(entry, at: position)
        } else {
            entries.append(entry)
        }
    }

    /// Takes out the records numbered below `seq`, in seq order: `body` gets their entries
    /// and the storage their frames are in. `nil` when there are none.
    mutating func take<R>(
        below seq: Int,
        _ body: (_ entries: UnsafeBufferPointer<Entry>, _ storage: UnsafeRawBufferPointer) throws(SQLiteError) -> R
    ) throws(SQLiteError) -> R? {
        // The entries are in seq order: the ready ones are a prefix.
        var readyCount = 0
        while readyCount < entries.count && entries[readyCount].seq < seq { readyCount += 1 }
        guard readyCount > 0 else { return nil }
        let storage = UnsafeRawBufferPointer(bytes.bytes)
        let result = try entries.withUnsafeBufferPointer { (entries) throws(SQLiteError) in
            try body(UnsafeBufferPointer(rebasing: entries[..<readyCount]), storage)
        }
        guard readyCount < entries.count else {
            // All taken (the usual case): the buffers keep their capacity for the next ones.
            // (A buffer that a large record made grow is not kept: see `ByteBuffer.keptCapacity`.)
            if isKnownUniquelyReferenced(&bytes), bytes.capacity <= ByteBuffer.keptCapacity {
                bytes.count = 0
            } else {
                bytes = ByteBuffer(capacity: 1_024)
            }
            entries.removeAll(keepingCapacity: true)
            return result
        }
        var rest = UnchainedRecords()
        for entry in entries where entry.seq >= seq {
            let start = rest.bytes.count
            // As `append` writes a frame: eight zero bytes after it, for its digest's last word.
            rest.bytes.write(atMost: entry.count + 8) { buffer in
                let frame = UnsafeMutableRawPointer(buffer.baseAddress!)
                frame.copyMemory(from: storage.baseAddress! + entry.start, byteCount: entry.count)
                frame.storeBytes(of: 0, toByteOffset: entry.count, as: UInt64.self)
                return entry.count
            }
            rest.keep(Entry(seq: entry.seq, start: start, count: entry.count, recordCount: entry.recordCount))
        }
        self = rest
        return result
    }
}

/// A thread of one session.
struct ThreadKey: Hashable {
    let session: SessionID
    let number: Int
}
