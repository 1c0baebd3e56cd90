import EventTree
import Foundation

/// What the journal writer knows and decides, without threads, locks, clocks or the
/// database: the pending batches, the transaction under way, failures and retries,
/// flushes, the close, and when to hand out a checkpoint.
///
/// It takes inputs (a batch handed over, a transaction's result, the time, a flush or a
/// close) and answers what to do (wait, write this transaction, tell the app this status,
/// hand out this checkpoint). ``JournalWriter`` holds one under its lock and performs the
/// answers: it waits on conditions, writes through its `RowWriter`, and calls out.
struct WriterState {
    let options: JournalOptions
    /// The journal's path, for messages.
    let path: String

    // MARK: The buffer

    /// Batches handed over and not yet committed, in the order they arrived.
    private(set) var pending: [PendingBatch] = []
    /// How many of the `pending` batches, from the first, the sequence knows are here
    /// (settled): the others arrived since the writer last took batches.
    private(set) var settledPending = 0
    /// Emptied buffers of committed batches, handed back to raises.
    private(set) var recycled: [RecordBatch] = []
    /// The room of the kept buffers, in records: at most ``recycledLimit``.
    private(set) var recycledRoom = 0
    /// Records in `pending`.
    private(set) var pendingRecords = 0
    /// Records of the transaction being written (still counted in `pendingRecords`).
    private(set) var writingRecords = 0
    /// When the oldest pending batch arrived (monotonic nanoseconds).
    private(set) var oldestPending: Int?
    private(set) var nextTicket = 1
    /// Every batch up to this ticket is committed (batches commit in ticket order).
    private(set) var committedTicket = 0
    /// Records dropped by a full buffer, by session.
    private(set) var drops: [SessionID: Int] = [:]
    /// Notes about batches left out (``refuseUnnumbered(_:)``, ``setAside(_:refusedWith:)``)
    /// and failed prunes, for the next transaction.
    private(set) var refusals: [TroubleNote] = []
    /// Durable raises whose batch was refused, and why: what their waiting raisers answer.
    private var refusedTickets: [(ticket: Int, reason: String)] = []

    // MARK: Writing and failing

    /// Whether a transaction is being written (by the writer thread or a durable raiser).
    private(set) var isWriting = false
    /// How many records the next transaction may hold: halved by each failed write (down
    /// to one batch), doubled by each success (up to `options.transactionSize`).
    private(set) var transactionLimit: Int
    /// The failure under way, if writes are failing.
    private(set) var failure: Failure?
    /// Write attempts started so far, and the number of the last one that failed (what a
    /// flush watches: only an attempt that started after it was called can fail it).
    private(set) var attemptsStarted = 0
    private(set) var lastFailedAttempt = 0
    /// When the writer thread may retry after a failure (monotonic nanoseconds).
    private(set) var nextRetry = 0
    /// A new size limit to apply before the next write.
    private var requestedMaximumSize: Int??
    /// When the sessions' counts were last written (monotonic nanoseconds).
    private var countsPublished: Int

    // MARK: Waiters, flushes and the close

    /// Flushes under way.
    private(set) var flushes = 0
    /// Durable raisers waiting for their commit now, and the most seen waiting together
    /// since the last commit that found only one (for group commit).
    private(set) var durableWaiters = 0
    private var concurrentRaisers = 0
    private(set) var isStopping = false
    private(set) var isStopped = false
    /// Whether the writer thread has stopped and told the status handler.
    private(set) var isFinished = false
    /// When the close stops retrying failed writes (monotonic nanoseconds).
    private var closeDeadline = 0
    /// Records left unwritten when the journal closed, or handed over after it closed.
    private(set) var unrecorded = 0
    /// What the close reports: records it could not write.
    private(set) var lostAtClose = 0
    /// The last checkpoint handed out, and when (monotonic nanoseconds).
    private var lastCheckpoint: JournalHead?
    private var lastCheckpointAt = 0

    /// A run of failed writes, from the first failure to the commit that writes the last
    /// of the records that were waiting (smaller transactions may succeed in between).
    struct Failure {
        let first: SQLiteError
        let since: Date
        var last: SQLiteError
        var attempts = 1
        /// Records that waited in memory during the failure: those pending at its start
        /// and every record accepted since.
        var waited: Int
    }

    /// As much room as the batches in flight while raisers are paced to the writer take: a
    /// transaction's (up to a backlog) and the backlog gathering meanwhile, in buffers with up
    /// to twice the room their records take (a raise of 12 records gets room for 16). Fewer,
    /// and the rest would be freed here and allocated anew by raises, on their threads: the
    /// allocation the recycling exists to keep off the raising thread.
    var recycledLimit: Int { max(4 * options.maxBacklog, 32_768) }
    /// Larger buffers (of unusually large raises) are not kept.
    static let recycledCapacity = 32

    /// A writer's state with nothing pending, at `now` (monotonic nanoseconds).
    init(options: JournalOptions, path: String, now: Int) {
        self.options = options
        self.path = path
        transactionLimit = max(1, options.transactionSize)
        countsPublished = now
    }

    /// Whether there is anything to write: batches, or notes about drops and refusals.
    var hasWork: Bool { !pending.isEmpty || !drops.isEmpty || !refusals.isEmpty }

    /// The writer's status, as the app sees it.
    var status: JournalStatus {
        if isStopped { return .closed(unrecorded: unrecorded) }
        if let failure { return .failing(.writeFailed(path: path, pending: pendingRecords, cause: failure.last)) }
        return .healthy
    }

    // MARK: Raising threads

    /// Whether a raise handing over `count` records must wait for room first: the buffer
    /// would overflow, or (buffered, while writes succeed) the unwritten backlog is over its
    /// bound, which is what bounds the records a crash can lose. Only with the `block`
    /// policy, and never for a change (`isChange`), which is small.
    @inline(__always)
    func mustWaitForRoom(adding count: Int, isChange: Bool) -> Bool {
        guard options.whenFull == .block && !isChange && !isStopped && pendingRecords > 0 else { return false }
        if pendingRecords + count > options.capacity { return true }
        return options.durability == .buffered && failure == nil && !isStopping
            && pendingRecords - writingRecords >= options.maxBacklog
    }

    /// Why a batch of `count` records cannot be taken (the journal is closed, or the buffer
    /// is full), counting them as unrecorded or dropped; `nil` when it can. A refused
    /// batch's seq must be settled by the caller.
    @inline(__always)
    mutating func refusal(ofAdding count: Int, session: SessionID, isChange: Bool) -> String? {
        if isStopped {
            unrecorded += count
            return "the journal \(path) is closed; \(count) records of this raise were not written"
        }
        if !isChange && pendingRecords > 0 && pendingRecords + count > options.capacity {
            drops[session, default: 0] += count
            return "the journal's buffer is full (\(options.capacity) records); \(count) records of this raise were dropped and counted"
        }
        return nil
    }

    /// Takes `batch`, as the next pending batch; returns its ticket and whether to wake the
    /// writer thread.
    ///
    /// - Parameters:
    ///   - handingBack: Whether the records move to a committed batch's buffer (or a new
    ///     one), whose room `batch` takes: the raise's batch stays its thread's alone.
    ///     Without, the writer keeps `batch` itself.
    ///   - now: The time (monotonic nanoseconds), read only when the buffer was empty.
    @inline(__always)
    mutating func append(
        _ batch: RecordBatch, session: SessionID, thread: Int?, handingBack: Bool, now: () -> Int
    ) -> (ticket: Int, wakesWriter: Bool) {
        let count = batch.count
        let ticket = nextTicket
        nextTicket += 1
        let wasEmpty = pending.isEmpty
        if handingBack {
            let carrier: RecordBatch
            if let emptied = recycled.popLast() {
                recycledRoom -= emptied.capacity
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
        if oldestPending == nil { oldestPending = now() }
        // Wake the writer only when it waits for work (an empty buffer) or must not wait any
        // longer: a buffered raise costs no system call while a batch is gathering.
        return (ticket, options.durability == .durable || wasEmpty || isBacklogDue)
    }

    /// Counts records that were never handed over (numbered by another sequence).
    mutating func countUnrecorded(_ count: Int) {
        unrecorded += count
    }

    /// Whether the backlog is large enough to write without waiting for `maxDelay`.
    private var isBacklogDue: Bool {
        pendingRecords - writingRecords >= min(options.transactionSize, options.maxBacklog)
    }

    // MARK: Durable raisers

    /// What a durable raiser waiting for its batch does next.
    enum DurableStep: Equatable {
        /// Its batch is committed, refused, or the journal stopped: take the answer.
        case answer
        /// No write is under way: write the pending batches itself (``beginTransaction``),
        /// after waiting a moment for others to join when `gathering`.
        case lead(gathering: Bool)
        /// A write is under way or failing: wait for progress.
        case wait
    }

    /// A durable raiser starts waiting for its batch's commit.
    mutating func startWaiting() {
        durableWaiters += 1
        concurrentRaisers = max(concurrentRaisers, durableWaiters)
    }

    /// What the durable raiser waiting for `ticket` does next.
    func durableStep(for ticket: Int) -> DurableStep {
        if committedTicket >= ticket || isStopped { return .answer }
        guard failure == nil && !isWriting && !pending.isEmpty else { return .wait }
        // Group commit: other threads have been raising durably; give the next of them a
        // moment (less than a commit takes) to join this transaction.
        return .lead(gathering: pending.count < concurrentRaisers && flushes == 0 && !isStopping)
    }

    /// A leader's moment for others to join ended (`arrived`: one did); returns whether it
    /// still writes.
    mutating func gatheringEnded(arrived: Bool) -> Bool {
        if !arrived && pending.count < 2 { concurrentRaisers = durableWaiters }
        return !isWriting && !pending.isEmpty && failure == nil
    }

    /// A durable raiser stops waiting for `ticket`: what its raise answers.
    mutating func stopWaiting(for ticket: Int) -> RecordingStatus {
        durableWaiters -= 1
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

    // MARK: The writer thread

    /// What the writer thread does next.
    enum Step: Equatable {
        /// Wait until woken.
        case waitForWork
        /// Wait until woken or the deadline (monotonic nanoseconds).
        case wait(until: Int)
        /// Durable: raisers commit their own batches; wait this long, then write what nobody
        /// waits for any more (``writesAfterIdling(woken:)``).
        case idle(nanoseconds: Int)
        /// Write the pending batches (``beginTransaction``).
        case write
        /// Nothing is left: write the last word (``beginFinalWrite()``), then stop.
        case finish
        /// Closing, and writes still fail past the close's deadline: stop.
        case stop
    }

    /// What the writer thread does next, at `now` (monotonic nanoseconds).
    func nextStep(now: Int) -> Step {
        if isWriting { return .waitForWork }
        guard hasWork else { return isStopping ? .finish : .waitForWork }
        if failure != nil {
            if isStopping && now >= closeDeadline { return .stop }
            if now < nextRetry { return .wait(until: isStopping ? min(nextRetry, closeDeadline) : nextRetry) }
            return .write
        }
        let urgent = flushes > 0 || isStopping || isBacklogDue
        if urgent { return .write }
        if options.durability == .durable { return .idle(nanoseconds: options.maxDelay.nanoseconds) }
        if let oldest = oldestPending, now - oldest < options.maxDelay.nanoseconds {
            return .wait(until: oldest + options.maxDelay.nanoseconds)
        }
        return .write
    }

    /// After a durable idle wait: whether to write now (nobody woke the thread, no raiser
    /// waits to write its own batch, and there is something to write).
    func writesAfterIdling(woken: Bool) -> Bool {
        !woken && durableWaiters == 0 && !isWriting && hasWork
    }

    /// One transaction: what to write, and what to put back if it fails.
    struct Transaction {
        let attempt: Int
        /// Whole batches, at least one when any is pending.
        let batches: [PendingBatch]
        /// Their records.
        let records: Int
        let drops: [SessionID: Int]
        /// The note that ends a failure, if this transaction ends one.
        let failureNote: TroubleNote?
        /// The notes of refusals and failed prunes.
        let refusals: [TroubleNote]
        /// Whether to write the sessions' counts.
        let publishingCounts: Bool
        /// Below this seq, every record is in this transaction or an earlier one.
        let settledBelow: Int
        /// Whether it is the last before the journal closes.
        let closing: Bool
        /// A size limit to apply first.
        let sizeChange: Int??
        /// Whether it ends the failure under way.
        let endsFailure: Bool

        /// The notes to write.
        var trouble: [TroubleNote] { (failureNote.map { [$0] } ?? []) + refusals }
    }

    /// The first seqs of the batches that arrived since the last transaction, for the
    /// sequence to settle (all at once) before ``beginTransaction(unopened:settledBelow:now:)``.
    var arrivedFirstSeqs: [Int] {
        pending[settledPending...].map { $0.records[0].seq }
    }

    /// Starts a transaction of the pending batches (whole batches, up to `transactionLimit`
    /// records, at least one batch).
    ///
    /// - Parameters:
    ///   - unopened: The first seqs of ``arrivedFirstSeqs`` that opened no batch of the
    ///     journal's sequence (another numbered them): those batches are not written.
    ///   - settledBelow: The sequence's settled bound, after settling them.
    ///   - now: The time (monotonic nanoseconds).
    mutating func beginTransaction(unopened: [Int], settledBelow: Int, now: Int) -> Transaction {
        isWriting = true
        attemptsStarted += 1
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
        let refusedNow = refusals
        refusals = []
        // A failure ends with the transaction that writes what was left of its backlog; that
        // transaction says how long it lasted and how many records waited.
        let endsFailure = failure != nil && taken == pending.count
        var failureNote: TroubleNote?
        if endsFailure, let failure {
            let seconds = Date().timeIntervalSince(failure.since)
            failureNote = TroubleNote(
                session: nil, kind: "write-failed",
                message: "writes failed for \(String(format: "%.3f", seconds)) s (\(failure.attempts) attempts); "
                    + "\(failure.waited) records waited in memory and writing resumed. First error: \(failure.first)",
                records: failure.waited)
        }
        let closing = isStopping && taken == pending.count
        var settled = settledBelow
        for batch in pending[taken...] { settled = min(settled, batch.records[0].seq) }
        let publishing = options.durability == .buffered || flushes > 0 || closing
            || now - countsPublished >= 1_000_000_000
        return Transaction(
            attempt: attemptsStarted, batches: batches, records: count, drops: droppedNow, failureNote: failureNote,
            refusals: refusedNow, publishingCounts: publishing, settledBelow: settled, closing: closing,
            sizeChange: sizeChange, endsFailure: endsFailure)
    }

    /// How a transaction ended.
    enum TransactionResult {
        /// Committed: the chain's head after it, and whether it ended a session.
        case committed(head: JournalHead?, endsSession: Bool)
        /// Rolled back with `error`; `roomMade`: retention made room, so it is tried again at once.
        case failed(SQLiteError, roomMade: Bool)
    }

    /// What the writer tells the app after a transaction.
    struct Announcements {
        /// A new status for the status handler.
        var status: JournalStatus?
        /// A checkpoint to hand out.
        var checkpoint: JournalCheckpoint?
    }

    /// Keeps a note that retention failed, for the next transaction.
    mutating func notePruneFailure(_ error: JournalError) {
        refusals.append(TroubleNote(
            session: nil, kind: "prune-failed", message: "retention could not prune the journal: \(error)", records: 0))
    }

    /// A transaction ended with `result`, at `now` (monotonic nanoseconds).
    mutating func transactionEnded(_ transaction: Transaction, _ result: TransactionResult, now: Int) -> Announcements {
        isWriting = false
        writingRecords = 0
        let taken = transaction.batches.count
        switch result {
        case .failed(let error, let roomMade):
            for (session, dropped) in transaction.drops { drops[session, default: 0] += dropped }
            refusals = transaction.refusals + refusals
            if error.refusesTheData && taken > 0 {
                // Not the disk: one of these batches (or more) cannot be written at all. Each
                // is tried alone, and the one refused alone is set aside; the others commit.
                if taken == 1 { setAside(transaction.batches[0], refusedWith: error) } else { transactionLimit = 1 }
                return Announcements()
            }
            if roomMade {
                // Retention made room: the same transaction is tried again at once, and nothing
                // failed as far as raisers and flushes can tell.
                nextRetry = 0
                return Announcements()
            }
            lastFailedAttempt = transaction.attempt
            transactionLimit = max(1, transaction.records / 2)
            nextRetry = now + options.retryDelay.nanoseconds
            if failure == nil {
                failure = Failure(first: error, since: Date(), last: error, waited: pendingRecords)
                return Announcements(status: status)
            }
            failure?.last = error
            failure?.attempts += 1
            return Announcements()
        case .committed(let head, let endsSession):
            pending.removeFirst(taken)
            settledPending -= taken
            unrecorded += transaction.batches.reduce(0) { $0 + ($1.refusal != nil ? $1.records.count : 0) }
            recycle(transaction.batches)
            pendingRecords -= transaction.records
            if transaction.publishingCounts { countsPublished = now }
            oldestPending = pending.isEmpty ? nil : now
            committedTicket = transaction.batches.last?.ticket ?? committedTicket
            transactionLimit = min(max(1, options.transactionSize), transactionLimit * 2)
            var announcements = Announcements()
            if transaction.endsFailure {
                failure = nil
                announcements.status = .healthy
            }
            announcements.checkpoint = checkpoint(at: head, due: transaction.closing || endsSession, now: now)
            return announcements
        }
    }

    /// Starts the last word before the close: the sessions' counts, the exact next seq, a
    /// checkpoint.
    mutating func beginFinalWrite() {
        isWriting = true
    }

    /// The last word is written; the chain's head is `head`. The writer stays busy until
    /// ``stop()``: handing out the checkpoint releases the lock, and a durable raiser must
    /// not start a transaction on a connection about to close.
    mutating func finalWriteEnded(head: JournalHead?, now: Int) -> JournalCheckpoint? {
        checkpoint(at: head, due: true, now: now)
    }

    /// The writer thread stops: what was not written is counted as lost. Returns the first
    /// seqs of the batches the sequence has not settled (never to be written: the caller
    /// settles them as dropped) and the kept buffers (to free outside the lock).
    mutating func stop() -> (unsettled: [Int], buffers: [RecordBatch]) {
        // (A set-aside batch's records are only in its note; an unnumbered batch's are still
        // pending.)
        lostAtClose = pendingRecords + drops.values.reduce(0, +)
            + refusals.reduce(0) { $0 + ($1.countsAsDropped ? $1.records : 0) }
        unrecorded += lostAtClose
        let unsettled = arrivedFirstSeqs
        pending = []
        settledPending = 0
        pendingRecords = 0
        drops = [:]
        let buffers = recycled
        recycled = []
        recycledRoom = 0
        isWriting = false
        isStopped = true
        return (unsettled, buffers)
    }

    /// The app has heard of the close: `close()` may return.
    mutating func finish() {
        isFinished = true
    }

    // MARK: Flushes, the close, the size limit

    /// Where a flush started: the last ticket it waits for, and the attempts before it.
    struct FlushMark {
        let ticket: Int
        let attemptsBefore: Int
    }

    /// A flush starts: it waits for every batch handed over so far.
    mutating func beginFlush() throws(JournalError) -> FlushMark {
        if isStopped { throw .closed(path: path) }
        flushes += 1
        return FlushMark(ticket: nextTicket - 1, attemptsBefore: attemptsStarted)
    }

    /// Whether the flush started at `mark` is done; throws when a write that started after
    /// it failed, or the journal closed.
    func isFlushed(_ mark: FlushMark) throws(JournalError) -> Bool {
        if committedTicket >= mark.ticket && drops.isEmpty && refusals.isEmpty { return true }
        if lastFailedAttempt > mark.attemptsBefore, let failure {
            throw .writeFailed(path: path, pending: pendingRecords, cause: failure.last)
        }
        if isStopped { throw .closed(path: path) }
        return false
    }

    /// A flush ended (done or thrown).
    mutating func endFlush() {
        flushes -= 1
    }

    /// The close starts at `now` (monotonic nanoseconds): writes are retried until
    /// `options.closeTimeout` has passed. Returns whether the journal had already stopped.
    mutating func beginClose(now: Int) -> Bool {
        if isStopped { return true }
        if !isStopping {
            isStopping = true
            closeDeadline = now + options.closeTimeout.nanoseconds
        }
        return false
    }

    /// Asks for a new size limit before the next write (and a retry at once).
    mutating func requestMaximumSize(_ bytes: Int?) {
        requestedMaximumSize = .some(bytes)
        nextRetry = 0
    }

    // MARK: Refusals

    /// Marks the batches just arrived whose first seq is one of `firsts`, which opened no
    /// batch of the journal's sequence: another sequence numbered them (the journal would
    /// issue their ids again, and the database may hold rows under them already). The
    /// transaction that takes such a batch writes a note instead of its records, which are
    /// counted as unrecorded; a durable raiser waiting for it is answered `dropped`.
    private mutating func refuseUnnumbered(_ firsts: Set<Int>) {
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
    static let recordThroughOwnSequence =
        "record into a journal only through a bus whose recorder it is, or a FanOutRecorder whose primary it is"

    /// Keeps `reason` for the durable raiser (if any) waiting for `batch`.
    private mutating func answerRefusal(of batch: PendingBatch, _ reason: String) {
        // Changes (no thread) never wait.
        guard options.durability == .durable, batch.thread != nil else { return }
        refusedTickets.append((batch.ticket, reason))
        // A raiser that stopped waiting (its timeout) never takes its answer.
        if refusedTickets.count > 1_024 { refusedTickets.removeFirst() }
    }

    /// Takes `batch`, the first pending one, which the database refused in a transaction of
    /// its own with `error`, out of the buffer: its records are counted as dropped by its
    /// session and a note in the journal says which and why (written with the next
    /// transaction); a durable raiser waiting for it is answered `dropped`.
    private mutating func setAside(_ batch: PendingBatch, refusedWith error: SQLiteError) {
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

    // MARK: Buffers and checkpoints

    /// Keeps the committed batches, emptied (their records are released here, on the
    /// writer's thread), for ``append(_:session:thread:handingBack:now:)`` to hand their room
    /// back to raises.
    private mutating func recycle(_ batches: [PendingBatch]) {
        for batch in batches where recycledRoom < recycledLimit {
            guard batch.records.capacity <= Self.recycledCapacity else { continue }
            let emptied = batch.records
            emptied.removeAll()
            recycledRoom += emptied.capacity
            recycled.append(emptied)
        }
    }

    /// The checkpoint to hand out for `head`, when it moved and it is `due` (a session
    /// ended, the journal closes) or the interval has passed since the last.
    private mutating func checkpoint(at head: JournalHead?, due: Bool, now: Int) -> JournalCheckpoint? {
        guard let head, head != lastCheckpoint, options.onCheckpoint != nil || options.checkpointFile != nil else { return nil }
        guard due || now - lastCheckpointAt >= options.checkpointInterval.nanoseconds else { return nil }
        lastCheckpoint = head
        lastCheckpointAt = now
        return JournalCheckpoint(head: head, signingKey: options.checkpointSigningKey)
    }
}
