import EventTree
import Foundation

/// The buffer between raising threads and the disk, and the thread that drains it.
///
/// Raising threads append whole batches under a short lock and return (or, in durable
/// mode, wait for their commit). One writer thread takes pending batches, whole batches
/// only, and commits them in one transaction; while it writes, new batches gather for the
/// next transaction (group commit).
///
/// A failed transaction is rolled back and retried with the same batches in smaller
/// transactions (down to one batch), so that whatever space a full disk frees is used.
/// Nothing is dropped unless the options ask for it, and then it is counted and
/// journaled; a durable raise is answered `durable` only once its batch is committed. A
/// batch the database refuses on its own (a constraint, a value too large: an error that
/// writing it again would repeat) is set aside, counted and journaled instead of retried
/// forever, so that it cannot hold back every batch after it; so is a batch the journal's
/// sequence did not number, found before it is written.
///
/// What to do is decided by a ``WriterState`` (a value, tested without threads); this class
/// holds it under its lock and performs what it answers: waits, writes, and calls out.
final class JournalWriter: @unchecked Sendable {
    // Safe: `state` is read and written only with `lock` held; `rows` only by the thread
    // whose transaction is under way (`state.isWriting`).
    private let lock = Lock()
    /// The writer thread waits here for work.
    private let wake = Condition()
    /// Raisers, `flush` and `close` wait here for commits and room.
    private let progress = Condition()
    private let options: JournalOptions
    private let path: String
    private let sequence: SequenceCounter
    private var rows: RowWriter?
    /// Guarded by `lock`, so the per-access dynamic exclusivity check is left out of the
    /// raising thread's path.
    @exclusivity(unchecked) private var state: WriterState

    /// How long a durable commit waits for other raising threads to join it (a fraction of
    /// an fsync, which is what joining saves them).
    static let groupCommitWindow = 60_000

    init(rows: RowWriter, options: JournalOptions, path: String, sequence: SequenceCounter) {
        self.rows = rows
        self.sequence = sequence
        self.options = options
        self.path = path
        state = WriterState(options: options, path: path, now: monotonicNanoseconds())
        let thread = Thread { [self] in run() }
        thread.name = "EventTree journal writer"
        thread.start()
    }

    // MARK: Raising threads

    /// Appends the records of an array as a batch, leaving `records` empty (see the
    /// overload that takes a ``RecordBatch``).
    @discardableResult
    func enqueue(
        _ records: inout [FactRecord], session: SessionID, thread: Int? = nil, isChange: Bool = false
    ) -> RecordingStatus {
        guard !records.isEmpty else { return .accepted }
        let batch = RecordBatch(records: records)
        records.removeAll(keepingCapacity: true)
        return enqueue(batch, session: session, thread: thread, isChange: isChange)
    }

    /// Appends the records of `batch` as a batch. Blocks while the buffer is full or the
    /// unwritten backlog is over its bound (policy `block`); in durable mode, waits for the
    /// batch's commit, at most `options.durableTimeout`. A change to shared state
    /// (`isChange`) never waits: it is small, and its batch is committed no later than any
    /// batch enqueued after it.
    ///
    /// - Parameters:
    ///   - batch: The records. With `handsBackBuffer`, `batch` is empty on return, with the
    ///     room of a committed batch when the writer has one (taken under the same lock);
    ///     without, the writer may keep the object itself.
    /// - Returns: What became of the batch.
    @discardableResult
    func enqueue(
        _ batch: RecordBatch, session: SessionID, thread: Int? = nil, isChange: Bool = false,
        handsBackBuffer: Bool = false
    ) -> RecordingStatus {
        // The seqs read in place: copying a record would retain its event.
        guard !batch.isEmpty else { return .accepted }
        let first = batch[0].seq
        let count = batch.count
        // A batch not taken is emptied once the lock is released (its events' values may
        // run code as they go).
        var isTaken = false
        defer { if !isTaken { batch.removeAll() } }
        // Records numbered by another sequence would be written but never chained (the
        // writer chains what its sequence has settled), and their ids issued again.
        let last = batch[count - 1].seq
        guard last < sequence.peek else { return refuseForeign(count, last: last) }
        lock.lock()
        defer { lock.unlock() }
        // The batch stays open in the sequence until the writer takes it (see `write`), which
        // settles every batch that arrived at once: to the writer, a batch is open and not
        // here, or open and pending, or settled (written or dropped).
        while state.mustWaitForRoom(adding: count, isChange: isChange) { progress.wait(lock) }
        if let reason = state.refusal(ofAdding: count, session: session, isChange: isChange) {
            sequence.settle(first)
            return .dropped(reason: reason)
        }
        isTaken = true
        let (ticket, wakesWriter) = state.append(
            batch, session: session, thread: thread, handingBack: handsBackBuffer, now: monotonicNanoseconds)
        if wakesWriter { wake.broadcast() }
        guard options.durability == .durable, !isChange else { return .accepted }
        return awaitCommit(of: ticket)
    }

    /// Refuses a batch of `count` records whose `last` seq the journal's sequence never
    /// issued: counted as unrecorded, and the reason says how to record into a journal.
    private func refuseForeign(_ count: Int, last: Int) -> RecordingStatus {
        lock.withLock { state.countUnrecorded(count) }
        return .dropped(reason: "\(count) records were not numbered by the journal's sequence (it never issued seq \(last)): "
            + WriterState.recordThroughOwnSequence)
    }

    /// Waits (at most `options.durableTimeout`) until the batch `ticket` is committed,
    /// committing it itself when no write is under way. Called with the lock held.
    private func awaitCommit(of ticket: Int) -> RecordingStatus {
        state.startWaiting()
        let deadline = monotonicNanoseconds() + options.durableTimeout.nanoseconds
        loop: while true {
            switch state.durableStep(for: ticket) {
            case .answer:
                break loop
            case .lead(let gathering):
                // A commit without two thread switches; others join by waiting for the next.
                if gathering {
                    let arrived = wake.wait(lock, nanoseconds: Self.groupCommitWindow)
                    if !state.gatheringEnded(arrived: arrived) { continue }
                }
                write()
            case .wait:
                if !progress.wait(lock, until: deadline) && monotonicNanoseconds() >= deadline { break loop }
            }
        }
        return state.stopWaiting(for: ticket)
    }

    // MARK: Callers of flush and close

    /// Waits until everything enqueued so far is committed.
    ///
    /// - Throws: ``JournalError/writeFailed(path:pending:cause:)`` when a write attempt fails
    ///   first (the records stay buffered and are retried), ``JournalError/closed(path:)``
    ///   after ``close()``.
    func flush() throws(JournalError) {
        lock.lock()
        defer { lock.unlock() }
        let mark = try state.beginFlush()
        defer { state.endFlush() }
        wake.signal()
        while try !state.isFlushed(mark) { progress.wait(lock) }
    }

    /// The bytes the writer's reused buffers hold on to between writes (read once no
    /// write is under way: the writer thread cannot start one while the lock is held).
    var retainedBufferBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        while state.isWriting { progress.wait(lock) }
        return rows?.retainedBufferBytes ?? 0
    }

    /// Commits what is pending, retrying failed writes for at most `options.closeTimeout`,
    /// then stops the writer thread and closes the connection. Raisers waiting for room are
    /// released: their records are counted as unrecorded.
    ///
    /// - Throws: ``JournalError/recordsLost(path:count:cause:)`` when records could not be
    ///   written in time: they are lost with the process, and the error says how many.
    func close() throws(JournalError) {
        lock.lock()
        if state.beginClose(now: monotonicNanoseconds()) {
            lock.unlock()
            return
        }
        wake.broadcast()
        progress.broadcast()
        while !state.isFinished { progress.wait(lock) }
        let lost = state.lostAtClose
        let cause = state.failure?.last
        lock.unlock()
        if lost > 0 { throw .recordsLost(path: path, count: lost, cause: cause) }
    }

    /// Changes the journal's size limit before the next write (and retries at once).
    func setMaximumSize(_ bytes: Int?) {
        lock.withLock {
            state.requestMaximumSize(bytes)
            wake.signal()
        }
    }

    /// The writer's current state.
    var status: JournalStatus {
        lock.withLock { state.status }
    }

    // MARK: Writing

    /// Writes one transaction of the pending batches. Called with the lock held and no other
    /// write under way; returns with the lock held.
    private func write() {
        // The batches that arrived since the last transaction are settled first, all under
        // one lock (a raise hands its batch over without taking the sequence's lock).
        let unopened = sequence.settle(state.arrivedFirstSeqs)
        let transaction = state.beginTransaction(
            unopened: unopened, settledBelow: sequence.settledBelow, now: monotonicNanoseconds())
        lock.unlock()

        var writeError: SQLiteError?
        var endsSession = false
        do {
            if let sizeChange = transaction.sizeChange { try rows?.setMaximumSize(sizeChange) }
            endsSession = try rows?.write(
                transaction.batches, drops: transaction.drops, trouble: transaction.trouble,
                publishingCounts: transaction.publishingCounts, settledBelow: transaction.settledBelow,
                closing: transaction.closing) ?? false
        } catch {
            writeError = error
        }
        // Retention runs when a session ends, and makes room when the size limit is reached.
        var pruned: Result<JournalPrune?, JournalError> = .success(nil)
        if !options.retention.isUnlimited, let rows, writeError == nil ? endsSession : writeError?.isDiskFull == true {
            pruned = Result { () throws(JournalError) in
                // After a failed write, nothing new is chained: its records are not written yet.
                try RetentionEnforcer.enforce(
                    options.retention, rows: rows, path: path, sequence: sequence,
                    settledBelow: writeError == nil ? transaction.settledBelow : 0, makingRoom: writeError != nil)
            }
        }
        let head = writeError == nil ? rows?.head : nil
        if case .success(let prune?) = pruned { options.onPrune?(prune) }

        lock.lock()
        if case .failure(let error) = pruned { state.notePruneFailure(error) }
        let result: WriterState.TransactionResult
        if let writeError {
            var roomMade = false
            if case .success(_?) = pruned { roomMade = true }
            result = .failed(writeError, roomMade: roomMade)
        } else {
            result = .committed(head: head, endsSession: endsSession)
        }
        let announcements = state.transactionEnded(transaction, result, now: monotonicNanoseconds())
        // The app hears first: a flush or durable raise that returns finds the status and the
        // checkpoint already told.
        if let status = announcements.status { notify(status) }
        if let checkpoint = announcements.checkpoint { handOut(checkpoint) }
        progress.broadcast()
        wake.broadcast()
    }

    // MARK: The writer thread

    private func run() {
        lock.lock()
        loop: while true {
            switch state.nextStep(now: monotonicNanoseconds()) {
            case .waitForWork:
                wake.wait(lock)
            case .wait(let deadline):
                wake.wait(lock, until: deadline)
            case .idle(let nanoseconds):
                // Durable raisers commit their own batches; the thread steps in only for
                // batches nobody waits for any more (after a timeout), on flush and close.
                let woken = wake.wait(lock, nanoseconds: nanoseconds)
                if state.writesAfterIdling(woken: woken) { write() }
            case .write:
                write()
            case .finish:
                // The last word: the sessions' counts, the exact next seq, a checkpoint.
                state.beginFinalWrite()
                lock.unlock()
                _ = try? rows?.write(
                    [], drops: [:], trouble: [], publishingCounts: true, settledBelow: sequence.settledBelow,
                    closing: true)
                rows?.checkpoint()
                let head = rows?.head
                lock.lock()
                if let checkpoint = state.finalWriteEnded(head: head, now: monotonicNanoseconds()) { handOut(checkpoint) }
                break loop
            case .stop:
                break loop
            }
        }
        rows = nil
        let (unsettled, buffers) = state.stop()
        // Never to be written: settled as dropped.
        sequence.settle(unsettled)
        // The app hears of the close before `close()` returns.
        notify(state.status)
        state.finish()
        progress.broadcast()
        lock.unlock()
        // No raise takes a buffer any more: they are freed here, on this thread, once the
        // lock is released (not by whichever thread lets the journal go last).
        _ = consume buffers
    }

    /// Writes `checkpoint` to the checkpoint file and hands it to `onCheckpoint`. Called
    /// with the lock held; calls out without it.
    private func handOut(_ checkpoint: JournalCheckpoint) {
        lock.unlock()
        if let file = options.checkpointFile {
            // Replaced whole (written aside, then renamed), never seen half written.
            try? Data((checkpoint.line + "\n").utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        }
        options.onCheckpoint?(checkpoint)
        lock.lock()
    }

    /// Calls the status handler without holding the lock.
    private func notify(_ status: JournalStatus) {
        guard let handler = options.onStatusChange else { return }
        lock.unlock()
        handler(status)
        lock.lock()
    }
}

extension Duration {
    var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
