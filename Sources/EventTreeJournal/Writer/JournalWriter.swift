import EventTree
import Foundation

/// The buffer between raising threads and the disk, and the thread that drains it.
///
/// Raising threads append whole batches under a short lock and return (or, in durable
/// mode, wait for their commit). One writer thread takes everything pending, whole batches
/// only, and commits it in one transaction; while it writes, new batches gather for the
/// next transaction (group commit). A failed transaction is rolled back and retried with
/// the same batches; nothing is dropped unless the options ask for it, and then it is
/// counted and journaled.
final class JournalWriter: @unchecked Sendable {
    // Safe: every mutable property is read and written only with `lock` held, except
    // `rows`, which only the writer thread touches once it has started.
    private let lock = Lock()
    private let wake = Condition()
    private let progress = Condition()
    private let options: JournalOptions
    private let path: String
    private let sequence: SequenceCounter
    private var rows: RowWriter?

    private var pending: [PendingBatch] = []
    private var pendingRecords = 0
    private var oldestPending: ContinuousClock.Instant?
    private var nextTicket = 1
    private var committedTicket = 0
    private var flushes = 0
    private var drops: [SessionID: Int] = [:]
    private var failedAttempts = 0
    private var lastError: JournalError?
    private var troubleSince: (message: String, records: Int)?
    private var isStopping = false
    private var isStopped = false
    private var droppedAfterClose = 0
    /// Durable raisers waiting for their commit now, and the most seen waiting together
    /// since the last commit that found only one (for group commit).
    private var durableWaiters = 0
    /// Whether a transaction is being written (by the writer thread or a durable raiser).
    private var isWriting = false
    private var concurrentRaisers = 0
    /// When the sessions' counts were last written.
    private var countsPublished = ContinuousClock.now
    /// A new size limit for the writer thread to apply before its next write.
    private var requestedMaximumSize: Int??

    /// How long a durable commit waits for other raising threads to join it (a fraction of
    /// an fsync, which is what joining saves them).
    static let groupCommitWindow = 60_000

    init(rows: RowWriter, options: JournalOptions, path: String, sequence: SequenceCounter) {
        self.rows = rows
        self.options = options
        self.path = path
        self.sequence = sequence
        let thread = Thread { [self] in run() }
        thread.name = "EventTree journal writer"
        thread.start()
    }

    // MARK: Raising threads

    /// Appends a batch; blocks while the buffer is full (policy `block`), and in durable
    /// mode until the batch is committed or a write attempt has failed.
    func enqueue(_ records: [Record], session: SessionID) {
        guard !records.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        while pendingRecords + records.count > options.capacity && pendingRecords > 0
            && options.whenFull == .block && !isStopped
        {
            progress.wait(lock)
        }
        if isStopped {
            droppedAfterClose += records.count
            return
        }
        if pendingRecords + records.count > options.capacity && pendingRecords > 0 {
            drops[session, default: 0] += records.count
            return
        }
        let ticket = nextTicket
        nextTicket += 1
        let wasEmpty = pending.isEmpty
        pending.append(PendingBatch(records: records, session: session, ticket: ticket))
        pendingRecords += records.count
        if oldestPending == nil { oldestPending = .now }
        // Wake the writer only when it waits for work (an empty buffer) or must not wait
        // any longer: a buffered raise costs no system call while a batch is gathering.
        if options.durability == .durable || wasEmpty || pendingRecords >= options.transactionSize {
            wake.broadcast()
        }
        guard options.durability == .durable else { return }
        let failuresBefore = failedAttempts
        durableWaiters += 1
        concurrentRaisers = max(concurrentRaisers, durableWaiters)
        while committedTicket < ticket && failedAttempts == failuresBefore && !isStopped {
            if !isWriting && !pending.isEmpty {
                commitAsLeader()
            } else {
                progress.wait(lock)
            }
        }
        durableWaiters -= 1
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
        let failuresBefore = failedAttempts
        flushes += 1
        defer { flushes -= 1 }
        wake.signal()
        while committedTicket < target || !drops.isEmpty {
            if failedAttempts != failuresBefore, let lastError {
                throw lastError.asWriteFailure(path: path, pending: pendingRecords)
            }
            if isStopped { throw .closed(path: path) }
            progress.wait(lock)
        }
    }

    /// Commits what is pending (retrying a few times if writes fail), then stops the
    /// writer thread and closes the connection.
    ///
    /// - Throws: The last write error when records could not be committed; they are lost
    ///   with the process, and the error says how many.
    func close() throws(JournalError) {
        lock.lock()
        if isStopped {
            lock.unlock()
            return
        }
        isStopping = true
        wake.signal()
        while !isStopped { progress.wait(lock) }
        let leftover = pendingRecords
        let error = lastError
        lock.unlock()
        if leftover > 0, let error { throw error.asWriteFailure(path: path, pending: leftover) }
    }

    /// Changes the journal's size limit before the next write (and retries at once).
    func setMaximumSize(_ bytes: Int?) {
        lock.withLock {
            requestedMaximumSize = .some(bytes)
            wake.signal()
        }
    }

    /// The writer's current state.
    var status: JournalStatus {
        lock.withLock { lastError.map(JournalStatus.failing) ?? .healthy }
    }

    // MARK: Writing

    /// Commits what is pending (whole batches, up to a transaction's size) in one
    /// transaction. Called with the lock held and no other write under way; returns with
    /// the lock held.
    ///
    /// - Returns: Whether the transaction committed.
    private func commitPending() -> Bool {
        isWriting = true
        var taken = 0
        var count = 0
        while taken < pending.count && (taken == 0 || count + pending[taken].records.count <= options.transactionSize) {
            count += pending[taken].records.count
            taken += 1
        }
        let sizeChange = requestedMaximumSize
        requestedMaximumSize = nil
        let batches = Array(pending[..<taken])
        let droppedNow = drops
        drops = [:]
        var trouble: [TroubleNote] = []
        if let since = troubleSince {
            trouble.append(TroubleNote(
                session: nil, kind: "write-failed",
                message: "writes failed, then recovered; \(since.records) records waited in memory, none lost. First error: \(since.message)",
                records: since.records))
        }
        if droppedAfterClose > 0 {
            trouble.append(TroubleNote(
                session: nil, kind: "dropped", message: "\(droppedAfterClose) records arrived after close", records: droppedAfterClose))
        }
        let closing = isStopping && taken == pending.count
        let publishing = options.durability == .buffered || flushes > 0 || closing
            || ContinuousClock.now - countsPublished >= .seconds(1)
        lock.unlock()

        var failure: SQLiteError?
        do {
            if let sizeChange { try rows?.setMaximumSize(sizeChange) }
            try rows?.write(batches, drops: droppedNow, trouble: trouble, publishingCounts: publishing, closing: closing)
        } catch {
            failure = error
        }

        lock.lock()
        isWriting = false
        defer {
            progress.broadcast()
            wake.broadcast()
        }
        if let failure {
            for (session, count) in droppedNow { drops[session, default: 0] += count }
            failedAttempts += 1
            let error = JournalError.sqlite(path: path, cause: failure)
            let wasHealthy = lastError == nil
            lastError = error
            if troubleSince == nil { troubleSince = (failure.description, pendingRecords) }
            if wasHealthy { notify(.failing(error)) }
            return false
        }
        pending.removeFirst(taken)
        pendingRecords -= count
        if publishing { countsPublished = .now }
        oldestPending = pending.isEmpty ? nil : .now
        committedTicket = batches.last?.ticket ?? committedTicket
        troubleSince = nil
        droppedAfterClose = 0
        let recovered = lastError != nil
        lastError = nil
        if recovered { notify(.healthy) }
        return true
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
            if isWriting || pending.isEmpty { return }
        }
        _ = commitPending()
    }

    // MARK: The writer thread

    private func run() {
        lock.lock()
        var closingAttempts = 0
        while true {
            if isWriting {
                wake.wait(lock)
                continue
            }
            if pending.isEmpty && drops.isEmpty {
                if isStopping {
                    // The last word: the sessions' counts, and the exact next seq.
                    isWriting = true
                    lock.unlock()
                    try? rows?.write([], drops: [:], trouble: [], publishingCounts: true, closing: true)
                    lock.lock()
                    isWriting = false
                    break
                }
                wake.wait(lock)
                continue
            }
            let urgent = flushes > 0 || isStopping || pendingRecords >= options.transactionSize
            if options.durability == .durable && !urgent {
                // Durable raisers commit their own batches; the thread steps in only for
                // batches nobody waits for any more (after a failed write), on flush and close.
                let signalled = wake.wait(lock, nanoseconds: options.maxDelay.nanoseconds)
                if signalled || durableWaiters > 0 { continue }
            }
            if !urgent, options.durability == .buffered, let oldest = oldestPending {
                let waited = ContinuousClock.now - oldest
                if waited < options.maxDelay {
                    wake.wait(lock, nanoseconds: (options.maxDelay - waited).nanoseconds)
                    continue
                }
            }
            if isWriting || (pending.isEmpty && drops.isEmpty) { continue }
            if !commitPending() {
                if isStopping {
                    closingAttempts += 1
                    if closingAttempts >= 3 { break }
                }
                wake.wait(lock, nanoseconds: options.retryDelay.nanoseconds)
            }
        }
        rows = nil
        isStopped = true
        progress.broadcast()
        lock.unlock()
    }

    /// Calls the status handler without holding the lock.
    private func notify(_ status: JournalStatus) {
        guard let handler = options.onStatusChange else { return }
        lock.unlock()
        handler(status)
        lock.lock()
    }
}

extension JournalError {
    func asWriteFailure(path: String, pending: Int) -> JournalError {
        if case .sqlite(_, let cause) = self { return .writeFailed(path: path, pending: pending, cause: cause) }
        return self
    }
}

extension Duration {
    var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
