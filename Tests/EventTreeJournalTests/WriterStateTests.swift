import EventTree
@testable import EventTreeJournal
import Testing

/// The writer's decisions, step by step, without a thread, a lock or a database: each test
/// feeds `WriterState` inputs (batches, times, transaction results) and checks its answers.
@Suite struct WriterStateTests {
    static let ms = 1_000_000
    let session = SessionID(rawValue: 1)
    let diskFull = SQLiteError(code: 13, message: "database or disk is full", sql: nil)
    let constraint = SQLiteError(code: 19, message: "CHECK constraint failed", sql: nil)

    /// A state with these options (50 ms delay, 100 ms retry, 5 s close by default).
    func state(_ change: (inout JournalOptions) -> Void = { _ in }) -> WriterState {
        var options = JournalOptions()
        change(&options)
        return WriterState(options: options, path: "/tmp/app.eventtree", now: 0)
    }

    /// A batch of `count` records numbered from `first`.
    func batch(from first: Int, count: Int) -> RecordBatch {
        RecordBatch(records: (first..<first + count).map {
            FactRecord(seq: $0, fact: .raiseFinished(EventID(rawValue: $0), status: .unhandled))
        })
    }

    /// Hands over a batch at `now`; returns its ticket and whether it woke the writer.
    @discardableResult
    func hand(_ state: inout WriterState, from first: Int, count: Int, at now: Int = 0, thread: Int? = 1)
        -> (ticket: Int, wakesWriter: Bool)
    {
        #expect(!state.mustWaitForRoom(adding: count, isChange: false))
        #expect(state.refusal(ofAdding: count, session: session, isChange: false) == nil)
        return state.append(batch(from: first, count: count), session: session, thread: thread, handingBack: false) { now }
    }

    /// Starts a transaction whose batches the sequence numbered.
    func begin(_ state: inout WriterState, settledBelow: Int = 1_000, at now: Int = 0) -> WriterState.Transaction {
        state.beginTransaction(unopened: [], settledBelow: settledBelow, now: now)
    }

    @Test func aBufferedBatchWaitsForTheDelayUnlessTheBacklogIsDue() {
        var state = state { $0.maxBacklog = 10 }
        #expect(state.nextStep(now: 0) == .waitForWork)
        // Only the first batch into an empty buffer wakes the writer; it waits out the delay.
        #expect(hand(&state, from: 1, count: 4, at: 7 * Self.ms).wakesWriter)
        #expect(!hand(&state, from: 5, count: 4, at: 8 * Self.ms).wakesWriter)
        #expect(state.nextStep(now: 9 * Self.ms) == .wait(until: 57 * Self.ms))
        #expect(state.nextStep(now: 57 * Self.ms) == .write)
        // A backlog of 10 is due at once, and wakes the writer.
        #expect(hand(&state, from: 9, count: 2, at: 9 * Self.ms).wakesWriter)
        #expect(state.nextStep(now: 9 * Self.ms) == .write)
        let transaction = begin(&state, at: 9 * Self.ms)
        #expect(transaction.batches.map(\.ticket) == [1, 2, 3])
        #expect(transaction.records == 10 && transaction.publishingCounts && !transaction.closing)
        #expect(state.nextStep(now: 9 * Self.ms) == .waitForWork)
        let announced = state.transactionEnded(transaction, .committed(head: nil, endsSession: false), now: 10 * Self.ms)
        #expect(announced.status == nil && announced.checkpoint == nil)
        #expect(state.pendingRecords == 0 && state.committedTicket == 3 && state.oldestPending == nil)
        #expect(state.nextStep(now: 10 * Self.ms) == .waitForWork)
    }

    @Test func failedWritesHalveTheTransactionRetryLaterAndEndWithANote() throws {
        var state = state { $0.transactionSize = 8 }
        for first in [1, 5, 9] { hand(&state, from: first, count: 4) }
        // A transaction takes whole batches up to its size: two of the three.
        let first = begin(&state, settledBelow: 13)
        #expect(first.batches.map(\.ticket) == [1, 2] && first.settledBelow == 9)
        let failing = state.transactionEnded(first, .failed(diskFull, roomMade: false), now: 1_000)
        #expect(failing.status == .failing(.writeFailed(path: "/tmp/app.eventtree", pending: 12, cause: diskFull)))
        #expect(state.status == failing.status)
        // Retried after the delay, in half the size: one batch. Its success ends nothing yet.
        #expect(state.nextStep(now: 2_000) == .wait(until: 1_000 + 100 * Self.ms))
        #expect(state.nextStep(now: 1_000 + 100 * Self.ms) == .write)
        let second = begin(&state)
        #expect(second.batches.map(\.ticket) == [1] && !second.endsFailure && second.failureNote == nil)
        #expect(state.transactionEnded(second, .committed(head: nil, endsSession: false), now: 0).status == nil)
        // The next takes what is left (the size doubled back to 8) and ends the failure.
        let third = begin(&state)
        #expect(third.batches.map(\.ticket) == [2, 3] && third.endsFailure)
        let note = try #require(third.failureNote)
        #expect(note.kind == "write-failed" && note.records == 12)
        #expect(note.message.hasSuffix(" s (1 attempts); 12 records waited in memory and writing resumed. First error: \(diskFull)"))
        #expect(state.transactionEnded(third, .committed(head: nil, endsSession: false), now: 0).status == .healthy)
        #expect(state.status == .healthy && state.committedTicket == 3)
    }

    @Test func aBatchTheDatabaseRefusesAloneIsSetAsideAndItsDurableRaiserAnswered() throws {
        var state = state { $0.durability = .durable }
        hand(&state, from: 1, count: 2)
        let ticket = hand(&state, from: 3, count: 3).ticket
        state.startWaiting()
        // Refused together: each batch is tried alone, and no failure is declared.
        let together = begin(&state)
        #expect(state.transactionEnded(together, .failed(constraint, roomMade: false), now: 0).status == nil)
        #expect(state.failure == nil && state.transactionLimit == 1)
        let alone = begin(&state)
        #expect(alone.batches.map(\.ticket) == [1])
        _ = state.transactionEnded(alone, .committed(head: nil, endsSession: false), now: 0)
        let refused = begin(&state)
        #expect(refused.batches.map(\.ticket) == [2])
        _ = state.transactionEnded(refused, .failed(constraint, roomMade: false), now: 0)
        // Set aside: its note goes with the next transaction, its raiser is answered.
        let reason = "the database refused 3 records (seq 3 to 5), which were set aside and not written: \(constraint)"
        #expect(state.pending.isEmpty && state.committedTicket == ticket)
        #expect(state.durableStep(for: ticket) == .answer)
        #expect(state.stopWaiting(for: ticket) == .dropped(reason: reason))
        let notes = begin(&state)
        #expect(notes.batches.isEmpty)
        #expect(notes.trouble.map(\.message) == [reason] && notes.trouble.map(\.countsAsDropped) == [true])
    }

    @Test func aFullBufferDropsOrBlocksByPolicyAndAClosedJournalCountsWhatCameLate() {
        var dropping = state {
            $0.capacity = 6
            $0.whenFull = .drop
        }
        hand(&dropping, from: 1, count: 4)
        #expect(!dropping.mustWaitForRoom(adding: 4, isChange: false))
        #expect(dropping.refusal(ofAdding: 4, session: session, isChange: false)
            == "the journal's buffer is full (6 records); 4 records of this raise were dropped and counted")
        #expect(dropping.drops == [session: 4])
        // A change is never dropped.
        #expect(dropping.refusal(ofAdding: 4, session: session, isChange: true) == nil)

        var blocking = state { $0.capacity = 6 }
        hand(&blocking, from: 1, count: 4)
        #expect(blocking.mustWaitForRoom(adding: 4, isChange: false))
        #expect(!blocking.mustWaitForRoom(adding: 4, isChange: true))
        #expect(!blocking.mustWaitForRoom(adding: 2, isChange: false))

        var closed = state()
        let wasStopped = closed.beginClose(now: 0)
        #expect(!wasStopped)
        #expect(closed.nextStep(now: 0) == .finish)
        closed.beginFinalWrite()
        #expect(closed.finalWriteEnded(head: nil, now: 0) == nil)
        _ = closed.stop()
        #expect(closed.refusal(ofAdding: 3, session: session, isChange: false)
            == "the journal /tmp/app.eventtree is closed; 3 records of this raise were not written")
        #expect(closed.status == .closed(unrecorded: 3))
        let isStopped = closed.beginClose(now: 0)
        #expect(isStopped)
    }

    @Test func aFlushFailsOnlyOnAWriteThatStartedAfterIt() throws {
        var state = state()
        hand(&state, from: 1, count: 2)
        let early = begin(&state)
        let mark = try state.beginFlush()
        #expect(state.nextStep(now: 0) == .waitForWork)
        // The write under way when the flush started fails: the flush waits for the retry.
        _ = state.transactionEnded(early, .failed(diskFull, roomMade: false), now: 0)
        #expect(try !state.isFlushed(mark))
        // Flushing, the writer does not wait out the delay; the retry still waits its own.
        #expect(state.nextStep(now: 0) == .wait(until: 100 * Self.ms))
        let retry = begin(&state, at: 100 * Self.ms)
        _ = state.transactionEnded(retry, .failed(diskFull, roomMade: false), now: 100 * Self.ms)
        #expect(throws: JournalError.writeFailed(path: "/tmp/app.eventtree", pending: 2, cause: diskFull)) {
            try state.isFlushed(mark)
        }
        state.endFlush()
        // A flush that starts after a commit is done at once.
        let last = begin(&state, at: 200 * Self.ms)
        _ = state.transactionEnded(last, .committed(head: nil, endsSession: false), now: 200 * Self.ms)
        let later = try state.beginFlush()
        #expect(try state.isFlushed(later))
    }

    @Test func aDurableRaiseArrivingAsTheWriterFinishesNeverLeadsAWrite() {
        // Handing out the last checkpoint releases the lock: a durable raiser that hands over
        // a batch then must not start a transaction on the connection about to close.
        var state = state { $0.durability = .durable }
        let wasStopped = state.beginClose(now: 0)
        #expect(!wasStopped && state.nextStep(now: 0) == .finish)
        state.beginFinalWrite()
        _ = state.finalWriteEnded(head: nil, now: 0)
        let late = hand(&state, from: 1, count: 2).ticket
        state.startWaiting()
        #expect(state.durableStep(for: late) == .wait)
        _ = state.stop()
        #expect(state.durableStep(for: late) == .answer)
        #expect(state.stopWaiting(for: late)
            == .dropped(reason: "the journal /tmp/app.eventtree closed before this raise's records could be written"))
        #expect(state.status == .closed(unrecorded: 2) && !state.isWriting)
    }

    @Test func closingRetriesUntilItsDeadlineThenCountsWhatIsLost() {
        var state = state { $0.closeTimeout = .milliseconds(300) }
        hand(&state, from: 1, count: 3)
        hand(&state, from: 4, count: 2)
        let failed = begin(&state)
        _ = state.transactionEnded(failed, .failed(diskFull, roomMade: false), now: 0)
        let wasStopped = state.beginClose(now: 50 * Self.ms)
        #expect(!wasStopped)
        #expect(state.nextStep(now: 60 * Self.ms) == .wait(until: 100 * Self.ms))
        // Each retry takes half as much: the first of the two batches, then its half.
        let retry = begin(&state, at: 100 * Self.ms)
        #expect(retry.batches.map(\.ticket) == [1] && !retry.closing)
        _ = state.transactionEnded(retry, .failed(diskFull, roomMade: false), now: 100 * Self.ms)
        #expect(state.nextStep(now: 150 * Self.ms) == .wait(until: 200 * Self.ms))
        let third = begin(&state, at: 300 * Self.ms)
        _ = state.transactionEnded(third, .failed(diskFull, roomMade: false), now: 300 * Self.ms)
        // The next retry would come after the deadline: the wait ends at the deadline.
        #expect(state.nextStep(now: 320 * Self.ms) == .wait(until: 350 * Self.ms))
        #expect(state.nextStep(now: 350 * Self.ms) == .stop)
        let (unsettled, _) = state.stop()
        #expect(unsettled.isEmpty)
        #expect(state.lostAtClose == 5 && state.status == .closed(unrecorded: 5))
    }

    @Test func durableRaisersLeadCommitsAndGatherOnlyWhenOthersHaveBeenRaising() {
        var state = state { $0.durability = .durable }
        let one = hand(&state, from: 1, count: 1)
        #expect(one.wakesWriter)
        state.startWaiting()
        // Alone: it leads at once.
        #expect(state.durableStep(for: one.ticket) == .lead(gathering: false))
        let first = begin(&state)
        #expect(state.durableStep(for: one.ticket) == .wait)
        _ = state.transactionEnded(first, .committed(head: nil, endsSession: false), now: 0)
        #expect(state.stopWaiting(for: one.ticket) == .durable)
        // Two raisers waiting together, committed together.
        let two = hand(&state, from: 2, count: 1).ticket
        state.startWaiting()
        let three = hand(&state, from: 3, count: 1).ticket
        state.startWaiting()
        #expect(state.durableStep(for: three) == .lead(gathering: false))
        let both = begin(&state)
        #expect(both.batches.map(\.ticket) == [two, three])
        _ = state.transactionEnded(both, .committed(head: nil, endsSession: false), now: 0)
        #expect(state.stopWaiting(for: two) == .durable && state.stopWaiting(for: three) == .durable)
        // The next leader, alone for now, waits a moment for the other to join.
        let four = hand(&state, from: 4, count: 1).ticket
        state.startWaiting()
        #expect(state.durableStep(for: four) == .lead(gathering: true))
        // Nobody came, and one batch is pending: it stops gathering next time.
        let leads = state.gatheringEnded(arrived: false)
        #expect(leads)
        #expect(state.durableStep(for: four) == .lead(gathering: false))
        // The durable writer thread idles; it writes only what no raiser waits for.
        #expect(state.nextStep(now: 0) == .idle(nanoseconds: 50 * Self.ms))
        #expect(!state.writesAfterIdling(woken: false))
        #expect(state.stopWaiting(for: four) == .notDurable(
            reason: "not committed within 2.0 seconds; the records wait in memory and are retried"))
        #expect(state.writesAfterIdling(woken: false) && !state.writesAfterIdling(woken: true))
    }
}
