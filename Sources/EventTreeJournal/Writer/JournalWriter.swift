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
final class JournalWriter: @unchecked Sendable {
    // Safe: every mutable property is read and written only with `lock` held, except
    // `rows`, which only the thread holding `isWriting` touches.
    private let lock = Lock()
    /// The writer thread waits here for work.
    private let wake = Condition()
    /// Raisers, `flush` and `close` wait here for commits and room.
    private let progress = Condition()
    private let options: JournalOptions
    private let path: String
    private let sequence: SequenceCounter
    private var rows: RowWriter?

    /// Guarded by `lock` (as everything mutable here), so the per-access dynamic
    /// exclusivity check is left out of the raising thread's path.
    @exclusivity(unchecked) private var pending: [PendingBatch] = []
    /// How many of the `pending` batches, from the first, the sequence knows are here
    /// (settled): the others arrived since the writer last took batches.
    private var settledPending = 0
    /// Emptied buffers of committed batches, handed back to raises (guarded by `lock`).
    @exclusivity(unchecked) private var recycled: [RecordBatch] = []
    /// The room of the kept buffers, in records: at most ``recycledLimit``.
    private var recycledRoom = 0
    /// As much room as the batches in flight while raisers are paced to the writer take: a
    /// transaction's (up to a backlog) and the backlog gathering meanwhile, in buffers with up
    /// to twice the room their records take (a raise of 12 records gets room for 16). Fewer,
    /// and the rest would be freed here and allocated anew by raises, on their threads: the
    /// allocation the recycling exists to keep off the raising thread. The buffers are what
    /// those batches take anyway at the peak, kept rather than freed.
    private var recycledLimit: Int { max(4 * options.maxBacklog, 32_768) }
    /// Larger buffers (of unusually large raises) are not kept.
    private static let recycledCapacity = 32
    private var pendingRecords = 0
    /// Records of the transaction being written (still counted in `pendingRecords`).
    private var writingRecords = 0
    /// When the oldest pending batch arrived (monotonic nanoseconds).
    private var oldestPending: Int?
    private var nextTicket = 1
    /// Every batch up to this ticket is committed (batches commit in ticket order).
    private var committedTicket = 0
    private var flushes = 0
    /// Records dropped by a full buffer, by session (unchecked: guarded by `lock`).
    @exclusivity(unchecked) private var drops: [SessionID: Int] = [:]
    /// Notes about batches left out (``refuseUnnumbered(_:)``, ``setAside(_:refusedWith:)``),
    /// for the next transaction.
    private var refusals: [TroubleNote] = []
    /// Durable raises whose batch was refused, and why: what their waiting raisers answer.
    private var refusedTickets: [(ticket: Int, reason: String)] = []
    /// How many records the next transaction may hold: halved by each failed write (down
    /// to one batch), doubled by each success (up to `options.transactionSize`).
    private var transactionLimit: Int
    /// The failure under way, if writes are failing.
    private var failure: Failure?
    /// Write attempts started so far, and the number of the last one that failed (what
    /// `flush` watches: only an attempt that started after it was called can fail it).
    private var attemptsStarted = 0
    private var lastFailedAttempt = 0
    /// When the writer thread may retry after a failure (monotonic nanoseconds).
    private var nextRetry = 0
    private var isStopping = false
    private var isStopped = false
    /// Whether the writer thread has stopped and told the status handler.
    private var isFinished = false
    /// When `close` stops retrying failed writes (monotonic nanoseconds).
    private var closeDeadline = 0
    /// Records left unwritten when the journal closed, or handed over after it closed.
    private var unrecorded = 0
    /// What `close` reports: records it could not write.
    private var lostAtClose = 0
    /// Durable raisers waiting for their commit now, and the most seen waiting together
    /// since the last commit that found only one (for group commit).
    private var durableWaiters = 0
    private var concurrentRaisers = 0
    /// Whether a transaction is being written (by the writer thread or a durable raiser).
    private var isWriting = false
    /// When the sessions' counts were last written (monotonic nanoseconds).
    private var countsPublished = monotonicNanoseconds()
    /// A new size limit for the writer thread to apply before its next write.
    private var requestedMaximumSize: Int??
    /// The last checkpoint handed out, and when (monotonic nanoseconds).
    private var lastCheckpoint: JournalHead?
    private var lastCheckpointAt = 0

    /// A run of failed writes, from the first failure to the commit that writes the last
    /// of the records that were waiting (smaller transactions may succeed in between).
    private struct Failure {
        let first: SQLiteError
        let since = Date()
        var last: SQLiteError
        var attempts = 1
        /// Records that waited in memory during the failure: those pending at its start
        /// and every record accepted since.
        var waited: Int
    }

    /// How long a durable commit waits for other raising threads to join it (a fraction of
    /// an fsync, which is what joining saves them).
    static let groupCommitWindow = 60_000

    init(rows: RowWriter, options: JournalOptions, path: String, sequence: SequenceCounter) {
        self.rows = rows
        self.sequence = sequence
        self.options = options
        self.path = path
        transactionLimit = max(1, options.transactionSize)
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
        // The batch stays open in the sequence until the writer takes it (see
        // `commitPending`), which settles every batch that arrived at once: to the writer, a
        // batch is open and not here, or open and pending, or settled (written or dropped).
        if options.whenFull == .block && !isChange {
            while !isStopped && pendingRecords > 0 && mustWaitForRoom(adding: count) { progress.wait(lock) }
        }
        if isStopped {
            unrecorded += count
            sequence.settle(first)
            return .dropped(reason: "the journal \(path) is closed; \(count) records of this raise were not written")
        }
        if !isChange && pendingRecords > 0 && pendingRecords + count > options.capacity {
            drops[session, default: 0] += count
            sequence.settle(first)
            return .dropped(reason: "the journal's buffer is full (\(options.capacity) records); \(count) records of this raise were dropped and counted")
        }
        let ticket = nextTicket
        nextTicket += 1
        let wasEmpty = pending.isEmpty
        isTaken = true
        if handsBackBuffer {
            // The records move to a committed batch (or, when none is kept, a new one), whose
            // room `batch` takes: the raise's batch stays its thread's alone.
            let carrier: RecordBatch
            if let emptied = recycled.popLast() {
                let room = emptied.capacity
                recycledRoom -= room
                carrier = emptied
            } else {
                carrier = RecordBatch(capacity: 1)
            }
            carrier.exchangeContents(with: batch)
            pending.append(PendingBatch(records: carrier, session: session, ticket: ticket, thread: thread))
        } else {
            pending.append(PendingBatch(records: batch, session: session, ticket: ticket, thread: thread))
        }
        pendingRecords += count
        failure?.waited += count
        if oldestPending == nil { oldestPending = monotonicNanoseconds() }
        // Wake the writer only when it waits for work (an empty buffer) or must not wait
        // any longer: a buffered raise costs no system call while a batch is gathering.
        if options.durability == .durable || wasEmpty || isBacklogDue { wake.broadcast() }
        guard options.durability == .durable, !isChange else { return .accepted }
        return awaitCommit(of: ticket)
    }

    /// Refuses a batch of `count` records whose `last` seq the journal's sequence never
    /// issued: counted as unrecorded, and the reason says how to record into a journal.
    private func refuseForeign(_ count: Int, last: Int) -> RecordingStatus {
        lock.withLock { unrecorded += count }
        return .dropped(reason: "\(count) records were not numbered by the journal's sequence (it never issued seq \(last)): "
            + Self.recordThroughOwnSequence)
    }

    /// Whether a raiser must wait before adding `count` records: the buffer would overflow,
    /// or (buffered, while writes succeed) the unwritten backlog is over its bound, which
    /// is what bounds the records a crash can lose.
    private func mustWaitForRoom(adding count: Int) -> Bool {
        if pendingRecords + count > options.capacity { return true }
        return options.durability == .buffered && failure == nil && !isStopping
            && pendingRecords - writingRecords >= options.maxBacklog
    }

    /// Whether the backlog is large enough to write without waiting for `maxDelay`.
    private var isBacklogDue: Bool {
        pendingRecords - writingRecords >= min(options.transactionSize, options.maxBacklog)
    }

    /// Waits (at most `options.durableTimeout`) until the batch `ticket` is committed,
    /// committing it itself when no write is under way.
    private func awaitCommit(of ticket: Int) -> RecordingStatus {
        durableWaiters += 1
        concurrentRaisers = max(concurrentRaisers, durableWaiters)
        defer { durableWaiters -= 1 }
        let deadline = monotonicNanoseconds() + options.durableTimeout.nanoseconds
        while committedTicket < ticket && !isStopped {
            if failure == nil && !isWriting && !pending.isEmpty {
                commitAsLeader()
            } else if !progress.wait(lock, until: deadline) && monotonicNanoseconds() >= deadline {
                break
            }
        }
        if let refused = refusedTickets.firstIndex(where: { $0.ticket == ticket }) {
            return .dropped(reason: refusedTickets.remove(at: refused).reason)
        }
        if committedTicket >= ticket { return .durable }
        if isStopped {
            return .dropped(reason: "the journal \(path) closed before this raise's records could be written")
        }
        let cause = failure.map { ": \($0.last)" } ?? ""
        return .notDurable(reason: "not committed within \(options.durableTimeout); the records wait in memory and are retried\(cause)")
    }

    /// In durable mode, a raiser commits its own batch (and any that joined it) when no
    /// write is under way, rather than hand it to the writer thread and wait for it to
    /// wake: a commit without two thread switches. Others join by waiting for the next.
    private func commitAsLeader() {
        if pending.count < concurrentRaisers && flushes == 0 && !isStopping {
            // Group commit: other threads have been raising durably; give the next of them
            // a moment (less than a commit takes) to join this transaction.
            let arrived = wake.wait(lock, nanoseconds: Self.groupCommitWindow)
            if !arrived && pending.count < 2 { concurrentRaisers = durableWaiters }
            if isWriting || pending.isEmpty || failure != nil { return }
        }
        _ = commitPending()
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
        if isStopped { throw .closed(path: path) }
        let target = nextTicket - 1
        let attemptsBefore = attemptsStarted
        flushes += 1
        defer { flushes -= 1 }
        wake.signal()
        while committedTicket < target || !drops.isEmpty || !refusals.isEmpty {
            if lastFailedAttempt > attemptsBefore, let failure {
                throw .writeFailed(path: path, pending: pendingRecords, cause: failure.last)
            }
            if isStopped { throw .closed(path: path) }
            progress.wait(lock)
        }
    }

    /// The bytes the writer's reused buffers hold on to between writes (read once no
    /// write is under way: the writer thread cannot start one while the lock is held).
    var retainedBufferBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        while isWriting { progress.wait(lock) }
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
        if isStopped {
            lock.unlock()
            return
        }
        if !isStopping {
            isStopping = true
            closeDeadline = monotonicNanoseconds() + options.closeTimeout.nanoseconds
        }
        wake.broadcast()
        progress.broadcast()
        while !isFinished { progress.wait(lock) }
        let lost = lostAtClose
        let cause = failure?.last
        lock.unlock()
        if lost > 0 { throw .recordsLost(path: path, count: lost, cause: cause) }
    }

    /// Changes the journal's size limit before the next write (and retries at once).
    func setMaximumSize(_ bytes: Int?) {
        lock.withLock {
            requestedMaximumSize = .some(bytes)
            nextRetry = 0
            wake.signal()
        }
    }

    /// The writer's current state.
    var status: JournalStatus {
        lock.withLock { currentStatus }
    }

    private var currentStatus: JournalStatus {
        if isStopped { return .closed(unrecorded: unrecorded) }
        if let failure { return .failing(.writeFailed(path: path, pending: pendingRecords, cause: failure.last)) }
        return .healthy
    }

    // MARK: Writing

    /// Keeps the committed batches, emptied (the records are released here, on the writer's
    /// thread), for ``enqueue(_:session:thread:isChange:handsBackBuffer:)`` to hand their
    /// room back to raises. Called with the lock held.
    private func recycle(_ batches: [PendingBatch]) {
        for batch in batches where recycledRoom < recycledLimit {
            guard batch.records.capacity <= Self.recycledCapacity else { continue }
            let emptied = batch.records
            emptied.removeAll()
            let room = emptied.capacity
            recycledRoom += room
            recycled.append(emptied)
        }
    }

    /// Commits pending batches (whole batches, up to `transactionLimit` records, at least
    /// one batch) in one transaction. Called with the lock held and no other write under
    /// way; returns with the lock held.
    ///
    /// - Returns: Whether the transaction committed.
    private func commitPending() -> Bool {
        isWriting = true
        attemptsStarted += 1
        let attempt = attemptsStarted
        // The batches that arrived since the last transaction are settled first, all under
        // one lock (a raise hands its batch over without taking the sequence's lock). One
        // that opened no batch of the sequence was numbered by another: it is not written.
        let unopened = sequence.settle(pending[settledPending...].map { $0.records[0].seq })
        if !unopened.isEmpty { refuseUnnumbered(Set(unopened)) }
        settledPending = pending.count
        var taken = 0
        var count = 0
        while taken < pending.count && (taken == 0 || count + pending[taken].records.count <= transactionLimit) {
            count += pending[taken].records.count
            taken += 1
        }
        writingRecords = count
        let sizeChange = requestedMaximumSize
        requestedMaximumSize = nil
        // Copied batch by batch: an array made of a slice that spans all of `pending` would
        // share its buffer, and the first raise to hand over a batch while this transaction
        // is written would then copy every pending batch on its own thread.
        var batches: [PendingBatch] = []
        batches.reserveCapacity(taken)
        batches.append(contentsOf: pending[..<taken])
        let droppedNow = drops
        drops = [:]
        var trouble: [TroubleNote] = []
        let refusedNow = refusals
        refusals = []
        // A failure ends with the transaction that writes what was left of its backlog;
        // that transaction says how long it lasted and how many records waited.
        let endsFailure = failure != nil && taken == pending.count
        if endsFailure, let failure {
            let seconds = Date().timeIntervalSince(failure.since)
            trouble.append(TroubleNote(
                session: nil, kind: "write-failed",
                message: "writes failed for \(String(format: "%.3f", seconds)) s (\(failure.attempts) attempts); "
                    + "\(failure.waited) records waited in memory and writing resumed. First error: \(failure.first)",
                records: failure.waited))
        }
        let closing = isStopping && taken == pending.count
        // Below this seq, every record is in this transaction or an earlier one: what a
        // reader following the journal may print without ever skipping a later commit.
        var settled = sequence.settledBelow
        for batch in pending[taken...] { settled = min(settled, batch.records[0].seq) }
        let publishing = options.durability == .buffered || flushes > 0 || closing
            || monotonicNanoseconds() - countsPublished >= 1_000_000_000
        lock.unlock()

        var writeError: SQLiteError?
        var endsSession = false
        do {
            if let sizeChange { try rows?.setMaximumSize(sizeChange) }
            endsSession = try rows?.write(
                batches, drops: droppedNow, trouble: trouble + refusedNow, publishingCounts: publishing,
                settledBelow: settled, closing: closing) ?? false
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
                    settledBelow: writeError == nil ? settled : 0, makingRoom: writeError != nil)
            }
        }
        let head = writeError == nil ? rows?.head : nil

        switch pruned {
        case .success(let prune?): options.onPrune?(prune)
        case .success(nil): break
        case .failure(let error):
            lock.withLock {
                refusals.append(TroubleNote(
                    session: nil, kind: "prune-failed", message: "retention could not prune the journal: \(error)", records: 0))
            }
        }
        lock.lock()
        isWriting = false
        writingRecords = 0
        defer {
            progress.broadcast()
            wake.broadcast()
        }
        if let writeError {
            for (session, dropped) in droppedNow { drops[session, default: 0] += dropped }
            refusals = refusedNow + refusals
            if writeError.refusesTheData && taken > 0 {
                // Not the disk: one of these batches (or more) cannot be written at all. Each
                // is tried alone, and the one refused alone is set aside; the others commit.
                if taken == 1 { setAside(batches[0], refusedWith: writeError) } else { transactionLimit = 1 }
                return false
            }
            if case .success(_?) = pruned {
                // Retention made room: the same transaction is tried again at once, and
                // nothing failed as far as raisers and `flush` can tell.
                nextRetry = 0
                return false
            }
            lastFailedAttempt = attempt
            transactionLimit = max(1, count / 2)
            nextRetry = monotonicNanoseconds() + options.retryDelay.nanoseconds
            if failure == nil {
                failure = Failure(first: writeError, last: writeError, waited: pendingRecords)
                notify(currentStatus)
            } else {
                failure?.last = writeError
                failure?.attempts += 1
            }
            return false
        }
        pending.removeFirst(taken)
        settledPending -= taken
        let refused = batches.reduce(0) { $0 + ($1.refusal != nil ? $1.records.count : 0) }
        unrecorded += refused
        recycle(batches)
        pendingRecords -= count
        if publishing { countsPublished = monotonicNanoseconds() }
        oldestPending = pending.isEmpty ? nil : monotonicNanoseconds()
        committedTicket = batches.last?.ticket ?? committedTicket
        transactionLimit = min(max(1, options.transactionSize), transactionLimit * 2)
        if endsFailure {
            failure = nil
            notify(.healthy)
        }
        handOutCheckpoint(head, now: closing || endsSession)
        return true
    }

    /// Marks the batches just arrived whose first seq is one of `firsts`, which opened no
    /// batch of the journal's sequence: another sequence numbered them (the journal would
    /// issue their ids again, and the database may hold rows under them already). The
    /// transaction that takes such a batch writes a note instead of its records, which are
    /// counted as unrecorded; a durable raiser waiting for it is answered `dropped`. Called
    /// with the lock held, before `settledPending` moves past the batches.
    private func refuseUnnumbered(_ firsts: Set<Int>) {
        for index in pending.indices[settledPending...] where firsts.contains(pending[index].records[0].seq) {
            let batch = pending[index]
            let reason = "\(batch.span) were not numbered by the journal's sequence (seq \(batch.records[0].seq) opened no "
                + "batch of it) and were not written: " + Self.recordThroughOwnSequence
            pending[index].refusal = reason
            refusals.append(TroubleNote(session: nil, kind: "refused", message: reason, records: batch.records.count))
            answerRefusal(of: batch, reason)
        }
    }

    /// What to do about records another sequence numbered.
    private static let recordThroughOwnSequence =
        "record into a journal only through a bus whose recorder it is, or a FanOutRecorder whose primary it is"

    /// Keeps `reason` for the durable raiser (if any) waiting for `batch`.
    private func answerRefusal(of batch: PendingBatch, _ reason: String) {
        // Changes (no thread) never wait.
        guard options.durability == .durable, batch.thread != nil else { return }
        refusedTickets.append((batch.ticket, reason))
        // A raiser that stopped waiting (its timeout) never takes its answer.
        if refusedTickets.count > 1_024 { refusedTickets.removeFirst() }
    }

    /// Takes `batch`, the first pending one, which the database refused in a transaction
    /// of its own with `error`, out of the buffer: its records are counted as dropped by
    /// its session and a note in the journal says which and why (written with the next
    /// transaction); a durable raiser waiting for it is answered `dropped`. Called with the
    /// lock held.
    private func setAside(_ batch: PendingBatch, refusedWith error: SQLiteError) {
        let count = batch.records.count
        let reason = "the database refused \(batch.span), which were set aside and not written: \(error)"
        pending.removeFirst()
        settledPending -= 1
        pendingRecords -= count
        committedTicket = batch.ticket
        oldestPending = pending.isEmpty ? nil : oldestPending
        refusals.append(TroubleNote(session: batch.session, kind: "refused", message: reason, records: count, countsAsDropped: true))
        answerRefusal(of: batch, reason)
    }

    // MARK: The writer thread

    private func run() {
        lock.lock()
        while true {
            if isWriting {
                wake.wait(lock)
                continue
            }
            if pending.isEmpty && drops.isEmpty && refusals.isEmpty {
                if isStopping {
                    // The last word: the sessions' counts, the exact next seq, a checkpoint.
                    isWriting = true
                    lock.unlock()
                    _ = try? rows?.write(
                        [], drops: [:], trouble: [], publishingCounts: true, settledBelow: sequence.settledBelow,
                        closing: true)
                    rows?.checkpoint()
                    let head = rows?.head
                    lock.lock()
                    isWriting = false
                    handOutCheckpoint(head, now: true)
                    break
                }
                wake.wait(lock)
                continue
            }
            let now = monotonicNanoseconds()
            if failure != nil {
                if isStopping && now >= closeDeadline { break }
                if now < nextRetry {
                    wake.wait(lock, until: isStopping ? min(nextRetry, closeDeadline) : nextRetry)
                    continue
                }
                _ = commitPending()
                continue
            }
            let urgent = flushes > 0 || isStopping || isBacklogDue
            if options.durability == .durable && !urgent {
                // Durable raisers commit their own batches; the thread steps in only for
                // batches nobody waits for any more (after a timeout), on flush and close.
                let signalled = wake.wait(lock, nanoseconds: options.maxDelay.nanoseconds)
                if signalled || durableWaiters > 0 { continue }
            }
            if !urgent, options.durability == .buffered, let oldest = oldestPending,
                now - oldest < options.maxDelay.nanoseconds
            {
                wake.wait(lock, until: oldest + options.maxDelay.nanoseconds)
                continue
            }
            if isWriting || (pending.isEmpty && drops.isEmpty && refusals.isEmpty) { continue }
            _ = commitPending()
        }
        rows = nil
        // (A set-aside batch's records are only in its note; an unnumbered batch's are still
        // pending.)
        lostAtClose = pendingRecords + drops.values.reduce(0, +)
            + refusals.reduce(0) { $0 + ($1.countsAsDropped ? $1.records : 0) }
        unrecorded += lostAtClose
        // Never to be written: settled as dropped.
        sequence.settle(pending[settledPending...].map { $0.records[0].seq })
        pending = []
        settledPending = 0
        pendingRecords = 0
        drops = [:]
        // No raise takes a buffer any more: they are freed here, on this thread, once the
        // lock is released (not by whichever thread lets the journal go last).
        let buffers = recycled
        recycled = []
        recycledRoom = 0
        isStopped = true
        // The app hears of the close before `close()` returns.
        notify(currentStatus)
        isFinished = true
        progress.broadcast()
        lock.unlock()
        _ = consume buffers
    }

    /// Hands the chain's head to `onCheckpoint` and the checkpoint file, when it moved and
    /// `now` (a session ended, the journal closes) or the interval has passed. Called with
    /// the lock held; calls out without it.
    private func handOutCheckpoint(_ head: JournalHead?, now: Bool) {
        guard let head, head != lastCheckpoint, options.onCheckpoint != nil || options.checkpointFile != nil else { return }
        let time = monotonicNanoseconds()
        guard now || time - lastCheckpointAt >= options.checkpointInterval.nanoseconds else { return }
        lastCheckpoint = head
        lastCheckpointAt = time
        let checkpoint = JournalCheckpoint(head: head, signingKey: options.checkpointSigningKey)
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
