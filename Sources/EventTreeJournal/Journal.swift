import CEventTreeSQLite
import EventTree
import Foundation

/// An SQLite journal: a `Recorder` that writes every fact of the buses recording into
/// it, for the `eventtree` tool (and plain SQL) to read back.
///
/// ```swift
/// let journal = try Journal(path: "app.eventtree")
/// let bus = EventBus(recorder: journal)
/// // … the app runs …
/// try journal.close()
/// ```
///
/// A journal has one writer in the whole system (an advisory lock on `PATH.lock` enforces
/// it): open it once per process and share it between buses; each bus is a session.
/// Opening creates the file, or migrates an older one forward; a journal written by a
/// newer EventTree is refused and left untouched.
public final class Journal: BatchRecorder {
    /// The journal file's path.
    public let path: String
    /// The sequence every fact is numbered in, continuing the file's.
    public let sequence: SequenceCounter
    /// How this journal writes.
    public let options: JournalOptions
    /// What the retention limits pruned when the journal opened, if anything.
    public let openingPrune: JournalPrune?
    private let writer: JournalWriter
    private let fileLock: FileLock

    /// Opens (creating or migrating) the journal at `path` for writing.
    ///
    /// - Parameters:
    ///   - path: The journal file. Its directory must exist.
    ///   - options: Durability, buffering and failure handling.
    /// - Throws: ``JournalError`` when the file is not a journal, is newer than this
    ///   binary, is locked by another writer, or cannot be created; ``JournalError/refused(path:reason:)``
    ///   for retention limits without a hash chain (retention cuts at its checkpoints).
    public init(path: String, options: JournalOptions = JournalOptions()) throws(JournalError) {
        let resolved = try JournalFile.resolve(path, forWriting: true)
        guard options.chainsRecords || options.retention.isUnlimited else {
            throw .refused(path: resolved, reason: "retention cuts a journal at its hash chain's checkpoints: set chainsRecords, or no retention limits")
        }
        fileLock = try FileLock(journalPath: resolved)
        self.path = resolved
        self.options = options
        let db: Connection
        do {
            db = try Connection(path: resolved, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
        } catch {
            throw JournalError(error, path: resolved)
        }
        let identity = try Migrator.identify(db, path: resolved)
        try Migrator.validate(identity, of: db, path: resolved, allowEmpty: true)
        if identity.version > 0 {
            try Migrator.verifyApplied(db, path: resolved)
            try SchemaCheck.verify(db, version: identity.version, path: resolved)
        }
        do {
            // Retention gives freed pages back to the file system: the mode must be set
            // before the first table is created. Only then: keeping its pointer map costs
            // every write (a journal pruned without it is vacuumed once, on its first prune).
            if identity.version == 0 && !options.retention.isUnlimited {
                try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            }
            // "The WAL journaling mode is persistent": set once, it stays with the file.
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute(options.durability == .durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            // "The journal_size_limit pragma may be used to limit the size of ... WAL files
            // left in the file-system after transactions or checkpoints"; the automatic
            // PASSIVE checkpoint runs after a commit that leaves more pages than this.
            try db.execute("PRAGMA journal_size_limit = \(max(0, options.walSizeLimit))")
            // The writer's checkpoint policy (see shim.h): PASSIVE past `checkpointPages`,
            // RESTART (waiting up to 50 ms for readers) past three times that.
            eventtree_install_checkpoint_policy(db.handle, Int32(max(1, options.checkpointPages)))
            sqlite3_busy_timeout(db.handle, 50)
            if let maximumSize = options.maximumSize { try RowWriter.limitSize(of: db, to: maximumSize) }
        } catch {
            throw JournalError(error, path: resolved)
        }
        try Migrator.migrate(db, from: identity.version, path: resolved)
        if identity.version < Migrator.latestVersion {
            // Make the new schema durable before any record relies on it: in buffered mode a
            // power cut may undo commits back to the last checkpoint, and a journal must never
            // fall back to an older schema under records written for the new one.
            let status = sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
            guard status == SQLITE_OK else { throw JournalError(db.error(status, sql: "PRAGMA wal_checkpoint(TRUNCATE)"), path: resolved) }
        }
        let rows: RowWriter
        do {
            sequence = SequenceCounter(
                startingAt: try db.integer("SELECT next_seq FROM j_sequence") ?? 1, tracksOpenBatches: true)
            rows = try RowWriter(
                db: db, sequence: sequence, chainsRecords: options.chainsRecords, redaction: options.redaction,
                recordsHostName: options.recordsHostName)
        } catch {
            throw JournalError(error, path: resolved)
        }
        if options.chainsRecords { try Self.resumeChain(of: resolved, into: rows) }
        if !options.retention.isUnlimited {
            // A crashed writer's tail is chained first: retention cuts at checkpoints.
            do {
                try rows.write([], drops: [:], trouble: [], publishingCounts: false, settledBelow: sequence.settledBelow)
            } catch {
                throw JournalError(error, path: resolved)
            }
            openingPrune = try RetentionEnforcer.enforce(options.retention, rows: rows, path: resolved, sequence: sequence)
            if let openingPrune { options.onPrune?(openingPrune) }
        } else {
            openingPrune = nil
        }
        writer = JournalWriter(rows: rows, options: options, path: resolved, sequence: sequence)
        JournalRegistry.shared.add(writer)
    }

    deinit {
        try? writer.close()
        JournalRegistry.shared.remove(writer)
    }

    /// Takes a bus's records: appends them to the buffer (buffered mode) or waits for
    /// their commit (durable mode, at most ``JournalOptions/durableTimeout``).
    ///
    /// The records must be numbered by this journal's ``sequence`` (the bus whose recorder
    /// the journal is, or whose `FanOutRecorder` has it as its primary, numbers them so): the
    /// writer chains only what that sequence has settled. A batch with a seq the sequence has
    /// not issued yet is refused rather than written unchained, its ids to be issued again.
    /// Another counter's batch that falls below the sequence is found by the writer (its
    /// first seq opened no batch of the sequence) and not written either: counted as
    /// unrecorded and noted in `journal_trouble`.
    ///
    /// - Returns: `RecordingStatus.accepted` in buffered mode; `RecordingStatus.durable`
    ///   once committed in durable mode, `RecordingStatus.notDurable(reason:)` when the
    ///   commit did not happen in time (the records stay queued and are retried);
    ///   `RecordingStatus.dropped(reason:)` when the journal is closed, its full buffer
    ///   drops records, or a seq its sequence has not issued (counted as unrecorded in the
    ///   status the journal reports when it closes); in durable mode also for such a batch
    ///   the writer found, and for one the database refused (a constraint, a value too
    ///   large), which is set aside rather than retried.
    public func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        var records = records
        return writer.enqueue(&records, session: session, thread: RaisingThread.current)
    }

    /// Takes a bus's records as ``record(_:session:)`` does, leaving `records` empty.
    @discardableResult
    public func record(emptying records: inout [FactRecord], session: SessionID) -> RecordingStatus {
        writer.enqueue(&records, session: session, thread: RaisingThread.current)
    }

    /// Takes a raise's records from `batch`, leaving it empty with the room of a committed
    /// batch when the writer has one (taken under the same lock).
    package func record(takingFrom batch: RecordBatch, session: SessionID) -> RecordingStatus {
        // Called on the thread the raise ran (or, raised with await, ended) on.
        writer.enqueue(batch, session: session, thread: RaisingThread.current, handsBackBuffer: true)
    }

    /// Takes the records of a change to a bus's shared state (tree, handlers, types) at once,
    /// without waiting; they are committed no later than any raise recorded after them.
    public func recordChange(_ records: [FactRecord], session: SessionID) {
        var records = records
        writer.enqueue(&records, session: session, isChange: true)
    }

    /// Waits until everything recorded so far is committed.
    ///
    /// - Throws: ``JournalError/writeFailed(path:pending:cause:)`` when writing fails (the
    ///   records stay buffered and are retried); ``JournalError/closed(path:)`` after ``close()``.
    public func flush() throws(JournalError) {
        try writer.flush()
    }

    /// The bytes the writer's reused buffers hold on to between writes: about 100 KiB,
    /// whatever the largest record written so far.
    package var retainedBufferBytes: Int { writer.retainedBufferBytes }

    /// Commits what is pending and closes the file. While writes fail it keeps retrying
    /// for at most ``JournalOptions/closeTimeout``. Raises that arrive later (or wait for
    /// room in a full buffer) return `RecordingStatus.dropped(reason:)` and are counted
    /// in ``status``. Closing twice does nothing.
    ///
    /// - Throws: ``JournalError/recordsLost(path:count:cause:)`` when pending records could
    ///   not be committed in time: they are lost, and the error says how many.
    public func close() throws(JournalError) {
        // The writer has closed the database when `close` returns, even when it throws.
        defer {
            JournalRegistry.shared.remove(writer)
            fileLock.release()
        }
        try writer.close()
    }

    /// Changes the size limit (see ``JournalOptions/maximumSize``); `nil` lifts it. A
    /// journal failing because it was full retries at once.
    public func setMaximumSize(_ bytes: Int?) {
        writer.setMaximumSize(bytes)
    }

    /// Whether writes currently succeed.
    public var status: JournalStatus { writer.status }

    /// Hands the writer the chain an earlier writer left: the last checkpoint's head, and
    /// the records after it (a writer that stopped before it could chain them, or a
    /// journal written before the chain existed).
    private static func resumeChain(of path: String, into rows: RowWriter) throws(JournalError) {
        let reader = try JournalReader(path: path)
        let last = try reader.checkpoints().last
        var unchained: [(seq: Int, bytes: [UInt8])] = []
        let records = try reader.chainRecords(from: (last?.upto ?? 0) + 1)
        while let record = records.current {
            unchained.append((record.seq, record.bytes))
            try records.advance()
        }
        rows.resumeChain(head: last.map { JournalHead(seq: $0.upto, hash: $0.hash) }, unchained: unchained)
    }

    /// The schema version this binary writes.
    public static var schemaVersion: Int { Migrator.latestVersion }
}

/// Open journals, so that a normal process exit commits what they hold.
final class JournalRegistry: @unchecked Sendable {
    // Safe: `writers` is guarded by `lock`.
    static let shared = JournalRegistry()
    private let lock = Lock()
    private var writers: [ObjectIdentifier: JournalWriter] = [:]
    private var isHooked = false

    func add(_ writer: JournalWriter) {
        lock.withLock {
            writers[ObjectIdentifier(writer)] = writer
            if !isHooked {
                isHooked = true
                atexit { JournalRegistry.shared.closeAll() }
            }
        }
    }

    func remove(_ writer: JournalWriter) {
        _ = lock.withLock { writers.removeValue(forKey: ObjectIdentifier(writer)) }
    }

    func closeAll() {
        let open = lock.withLock { Array(writers.values) }
        for writer in open { try? writer.close() }
    }
}
