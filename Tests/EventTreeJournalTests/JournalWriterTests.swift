import Dispatch
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Collects status changes from the writer thread.
final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ status: JournalStatus) {
        lock.withLock {
            switch status {
            case .healthy: stored.append("healthy")
            case .failing(let error): stored.append("failing: \(error)")
            case .closed(let unrecorded): stored.append("closed, \(unrecorded) unrecorded")
            }
        }
    }
    var values: [String] { lock.withLock { stored } }
}

/// Expects `journal` to be failing, lifts its size limit, and expects it to recover with
/// every one of `raises` raises (one handler call each) committed.
func expectRecovery(_ journal: Journal, raises: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
    guard case .failing = journal.status else {
        Issue.record("expected a failing status, got \(journal.status)", sourceLocation: sourceLocation)
        return
    }
    journal.setMaximumSize(nil)
    try journal.flush()
    #expect(journal.status == .healthy, sourceLocation: sourceLocation)
    #expect(try lines(journal.path, "SELECT count(*) FROM event_history") == ["\(raises)"], sourceLocation: sourceLocation)
    #expect(try lines(journal.path, "SELECT count(*) FROM delivery_history") == ["\(raises)"], sourceLocation: sourceLocation)
}

@Suite struct JournalWriterTests {
    @Test func aDurableRaiseReturnsOnlyOnceItsRecordsAreCommitted() async throws {
        var options = JournalOptions()
        options.durability = .durable
        options.maxDelay = .seconds(3600)
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Ping.self, label: "h") { _, _ in .handled }
            for round in 1...3 {
                app.raise(Ping(n: round))
                // No flush: another connection sees the raise at once.
                #expect(try lines(journal.path, "SELECT count(*) FROM event_history") == ["\(round)"])
            }
        }
    }

    @Test func aLargePayloadIsWrittenWholeAndItsBuffersAreGivenBack() async throws {
        struct Note: Event { let text: String }
        try await withTemporaryJournal { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Note.self, label: "h") { _, _ in .handled }
            app.raise(Note(text: "small"))
            try journal.flush()
            #expect(journal.retainedBufferBytes < 256 * 1_024)
            // 4 MiB of text, with a quote and a line break (each escaped) every 64 KiB.
            let large = String(repeating: String(repeating: "x", count: 65_534) + "\"\n", count: 64)
            app.raise(Note(text: large))
            app.raise(Note(text: "small again"))
            try journal.flush()
            // Made for the 4 MiB payload (its literal, its row, its chain record), the writer's
            // buffers would keep several times its size until the journal closes.
            #expect(journal.retainedBufferBytes < 256 * 1_024)
            #expect(try lines(journal.path, "SELECT json_extract(payload, '$.text') = 'small' FROM j_events ORDER BY event_id LIMIT 1") == ["1"])
            #expect(try lines(journal.path, "SELECT length(json_extract(payload, '$.text')) FROM j_events ORDER BY event_id") == ["5", "4194304", "11"])
            #expect(try lines(journal.path, "SELECT count(*) FROM j_events WHERE json_extract(payload, '$.text') LIKE '%x\"' || char(10) || 'x%'") == ["1"])
            #expect(try JournalVerifier(journal: journal.path).verify().isIntact)
        }
    }

    @Test func committedBuffersAreHandedBackEmptyAndKeepNoValueAlive() async throws {
        /// An event holding an object: the object lives exactly as long as someone keeps the event.
        final class Token: Sendable {}
        struct Holding: Event {
            let token: Token
            init(token: Token) { self.token = token }
            init(from decoder: any Decoder) throws { token = Token() }
            func encode(to encoder: any Encoder) throws {}
        }
        weak var kept: Token?
        try await withTemporaryJournal { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Holding.self, label: "h") { _, _ in .handled }
            // (The bus keeps the first value of each type it meets, as its type's sample.)
            app.raise(Holding(token: Token()))
            do {
                let token = Token()
                kept = token
                app.raise(Holding(token: token))
            }
            try journal.flush()
            // Neither the buffers nor the writer keep the raised value alive.
            #expect(kept == nil)
            #expect(try lines(journal.path, "SELECT count(*) FROM delivery_history") == ["2"])
            // A raise's records handed over as a bus hands them leave a committed batch's room
            // behind: empty, with room for the next raise's records, and not the room handed over.
            let id = EventID(rawValue: journal.sequence.open())
            let raised = RaisedEvent(
                id: id, typeName: "Ping", payload: .event(Ping(n: 3)), origin: app.id, mode: .bubble, cause: nil,
                transformedFrom: nil)
            let batch = RecordBatch(records: [
                FactRecord(seq: id.rawValue, fact: .raised(raised)),
                FactRecord(seq: journal.sequence.advance(), fact: .raiseFinished(id, status: .unhandled)),
            ])
            let handed = batch.withUnsafeBufferPointer { $0.baseAddress }
            #expect(journal.record(takingFrom: batch, session: bus.session) == .accepted)
            #expect(batch.isEmpty && batch.capacity >= 3)
            #expect(batch.withUnsafeBufferPointer { $0.baseAddress } != handed)
            try journal.flush()
            #expect(try lines(journal.path, "SELECT event_id, result FROM event_history WHERE event_id = \(id.rawValue)")
                == ["\(id.rawValue)|unhandled"])
        }
    }

    @Test func recordsNumberedByAnotherSequenceAreRefusedAndCounted() async throws {
        // A bus recording elsewhere (its own sequence) whose batches are forwarded by hand:
        // written, they would never be chained (verify would call them a writer's unchained
        // tail) and the journal would issue their ids again.
        let elsewhere = TraceRecorder()
        let bus = EventBus(recorder: elsewhere)
        let app = EventNode("app", bus: bus)
        app.on(Ping.self, label: "h") { _, _ in .handled }
        app.raise(Ping(n: 1))
        let records = elsewhere.records
        let log = StatusLog()
        var options = JournalOptions()
        options.onStatusChange = { log.append($0) }
        try await withTemporaryJournal(options: options) { journal throws in
            #expect(journal.sequence.peek == 1)
            let status = journal.record(records, session: bus.session)
            #expect(status == .dropped(reason: """
                \(records.count) records were not numbered by the journal's sequence (it never issued seq \
                \(records.last!.seq)): record into a journal only through a bus whose recorder it is, or a \
                FanOutRecorder whose primary it is
                """))
            try journal.flush()
            #expect(try lines(journal.path, "SELECT count(*) FROM j_events") == ["0"])
            #expect(journal.sequence.peek == 1)
            try journal.close()
            #expect(log.values.last == "closed, \(records.count) unrecorded")
        }
    }

    /// A raise's batch recorded by another bus (its own sequence, from 1), and that bus.
    static func foreignBatch() -> (records: [FactRecord], session: SessionID) {
        let elsewhere = TraceRecorder()
        let other = EventBus(recorder: elsewhere)
        EventNode("other", bus: other).raise(Ping(n: 1))
        return (elsewhere.records, other.session)
    }

    /// A node of a new bus recording into `journal`, with one handler for `Ping`.
    static func app(on journal: Journal) -> EventNode {
        let app = EventNode("app", bus: EventBus(recorder: journal))
        app.on(Ping.self, label: "h") { _, _ in .handled }
        return app
    }

    @Test(arguments: [JournalOptions.Durability.buffered, .durable])
    func aBatchAnotherSequenceNumberedBelowTheJournalsIsNotWritten(durability: JournalOptions.Durability) async throws {
        // Another bus's batch, numbered below the journal's sequence: the hand-over cannot
        // tell it by its numbers, but its first seq opened no batch of the journal's
        // sequence. Written, its rows would collide with the journal's (the seqs are taken),
        // and retried forever it would hold back every later batch, then lose them all.
        let (foreign, session) = Self.foreignBatch()
        let log = StatusLog()
        var options = JournalOptions()
        options.durability = durability
        options.onStatusChange = { log.append($0) }
        try await withTemporaryJournal(options: options) { journal throws in
            let app = Self.app(on: journal)
            for n in 0..<3 { app.raise(Ping(n: n)) }
            try journal.flush()
            #expect(foreign.last!.seq < journal.sequence.peek)
            let reason = """
                \(foreign.count) records (seq 1 to \(foreign.last!.seq)) were not numbered by the journal's sequence (seq 1 \
                opened no batch of it) and were not written: record into a journal only through a bus whose recorder it is, \
                or a FanOutRecorder whose primary it is
                """
            #expect(journal.record(foreign, session: session) == (durability == .durable ? .dropped(reason: reason) : .accepted))
            #expect(app.raise(Ping(n: 99)).recording == (durability == .durable ? .durable : .accepted))
            try journal.flush()
            #expect(try lines(journal.path, "SELECT payload FROM j_events ORDER BY event_id").suffix(2) == [#"{"n":2}"#, #"{"n":99}"#])
            #expect(try lines(journal.path, "SELECT session_id, kind, message, records FROM j_trouble")
                == ["|refused|\(reason)|\(foreign.count)"])
            #expect(journal.status == .healthy)
            try journal.close()
            // Not the journal's records: unrecorded, not dropped by a session of the journal.
            #expect(log.values == ["closed, \(foreign.count) unrecorded"])
            #expect(try lines(journal.path, "SELECT dropped FROM j_sessions") == ["0"])
            let report = try JournalVerifier(journal: journal.path).verify()
            #expect(report.isIntact)
            #expect(report.unchained == 0)
        }
    }

    @Test func anUnnumberedBatchAmongOthersIsTheOnlyOneNotWritten() async throws {
        // One transaction of five batches, the foreign one in the middle.
        let (foreign, session) = Self.foreignBatch()
        var options = JournalOptions()
        options.maxDelay = .seconds(3600)
        try await withTemporaryJournal(options: options) { journal throws in
            let app = Self.app(on: journal)
            for n in 0..<8 { app.raise(Ping(n: n)) }
            try journal.flush()
            for n in 10..<12 { app.raise(Ping(n: n)) }
            #expect(journal.record(foreign, session: session) == .accepted)
            for n in 12..<14 { app.raise(Ping(n: n)) }
            try journal.flush()
            #expect(try lines(journal.path, "SELECT payload FROM j_events ORDER BY event_id").suffix(5)
                == [#"{"n":7}"#, #"{"n":10}"#, #"{"n":11}"#, #"{"n":12}"#, #"{"n":13}"#])
            #expect(try lines(journal.path, "SELECT kind, records FROM j_trouble") == ["refused|\(foreign.count)"])
            try journal.close()
            #expect(try JournalVerifier(journal: journal.path).verify().isIntact)
        }
    }

    @Test(arguments: [JournalOptions.Durability.buffered, .durable])
    func aBatchTheDatabaseRefusesIsSetAsideAndTheRestIsWritten(durability: JournalOptions.Durability) async throws {
        // A batch numbered by the journal's sequence whose row the database refuses (a node
        // created again under a taken id): retried, it would fail forever. Raised among
        // others in one transaction, it is found by trying the batches one by one.
        let log = StatusLog()
        var options = JournalOptions()
        options.durability = durability
        options.maxDelay = .seconds(3600)
        options.onStatusChange = { log.append($0) }
        try await withTemporaryJournal(options: options) { journal throws in
            let app = Self.app(on: journal)
            app.raise(Ping(n: 0))
            try journal.flush()
            app.raise(Ping(n: 1))
            let seq = journal.sequence.open()
            let refused = [FactRecord(seq: seq, fact: .nodeCreated(app.id, name: "again"))]
            let reason = """
                the database refused 1 record (seq \(seq) to \(seq)), which were set aside and not written: SQLite error \
                1555 (constraint failed): UNIQUE constraint failed: j_nodes.node_id [while running: INSERT INTO j_nodes \
                (node_id, session_id, name) VALUES (?, ?, ?)]
                """
            #expect(journal.record(refused, session: app.bus.session) == (durability == .durable ? .dropped(reason: reason) : .accepted))
            app.raise(Ping(n: 2))
            try journal.flush()
            #expect(try lines(journal.path, "SELECT payload FROM j_events ORDER BY event_id") == [#"{"n":0}"#, #"{"n":1}"#, #"{"n":2}"#])
            #expect(try lines(journal.path, "SELECT session_id, kind, message, records FROM j_trouble")
                == ["\(app.bus.session.rawValue)|refused|\(reason)|1"])
            #expect(journal.status == .healthy)
            try journal.close()
            // Counted as dropped by its session, once the counts are written.
            #expect(try lines(journal.path, "SELECT dropped FROM j_sessions") == ["1"])
            #expect(log.values == ["closed, 0 unrecorded"])
            #expect(try JournalVerifier(journal: journal.path).verify().isIntact)
        }
    }

    @Test func aFlushReturnsOnlyOnceTheAppHasHeardOfItsCommit() async throws {
        // Waiters are woken after the status handler and the checkpoint hand-over, so that
        // what a flush returns to has already been told (a checkpoint per commit here).
        let handed = StatusLog()
        var options = JournalOptions()
        options.maxDelay = .seconds(3600)
        options.checkpointInterval = .zero
        options.onCheckpoint = { _ in handed.append(.healthy) }
        try await withTemporaryJournal(options: options) { journal throws in
            let app = Self.app(on: journal)
            var previous = 0
            for index in 0..<300 {
                app.raise(Ping(n: index))
                try journal.flush()
                let count = handed.values.count
                #expect(count > previous, "flush \(index) returned before its checkpoint was handed out")
                previous = count
            }
        }
    }

    @Test func bufferedRecordsAreCommittedByFlush() async throws {
        var options = JournalOptions()
        options.maxDelay = .seconds(3600)
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.raise(Ping())
            #expect(try lines(journal.path, "SELECT count(*) FROM event_history") == ["0"])
            try journal.flush()
            #expect(try lines(journal.path, "SELECT count(*) FROM event_history") == ["1"])
        }
    }

    @Test func aFullJournalIsSurfacedRetriedAndLosesNothing() async throws {
        let statuses = StatusLog()
        var options = JournalOptions()
        options.retryDelay = .milliseconds(5)
        options.onStatusChange = { statuses.append($0) }
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            try journal.flush()
            // Limit the file to what it holds now: the next transaction cannot grow it.
            let size = try #require(bytes(journal.path)).count
            journal.setMaximumSize(max(size, 4096 * 40))
            let filler = String(repeating: "x", count: 2_000)
            for index in 0..<200 { app.raise(NamedEvent("e\(index)", ["filler": filler])) }
            do {
                try journal.flush()
                Issue.record("flush succeeded on a full journal")
            } catch let error as JournalError {
                guard error.code == .writeFailed, let pending = error.count, let cause = error.cause else {
                    Issue.record("expected writeFailed, got \(error)")
                    return
                }
                #expect(cause.isDiskFull)
                #expect(pending > 0)
                #expect(error.description.contains("records wait in memory and are retried"))
            }
            try expectRecovery(journal, raises: 200)
            let trouble = try lines(journal.path, "SELECT kind, records, message LIKE '%records waited in memory and writing resumed%' FROM journal_trouble")
            // Every raise records 3 facts (raise, call, end), and the first one the handler's
            // first meeting with the type: all 601 records waited, none was lost.
            #expect(trouble == ["write-failed|601|1"])
        }
        #expect(statuses.values.count == 3)
        #expect(statuses.values.first?.hasPrefix("failing: ") == true)
        #expect(statuses.values.dropFirst() == ["healthy", "closed, 0 unrecorded"])
    }

    @Test func aDurableRaiseOnAFullJournalSaysItIsNotDurableAndItsRecordsAreRetried() async throws {
        var options = JournalOptions()
        options.durability = .durable
        options.retryDelay = .milliseconds(5)
        options.maxDelay = .milliseconds(5)
        options.durableTimeout = .milliseconds(40)
        try await withTemporaryJournal(options: options) { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            #expect(app.raise(NamedEvent("before")).recording == .durable)
            journal.setMaximumSize(try #require(bytes(journal.path)).count)
            let filler = String(repeating: "z", count: 3_000)
            // Each raise waits for its commit; when it cannot happen in time it returns, and
            // says so, rather than hang or pretend.
            let results = (0..<20).map { app.raise(NamedEvent("e\($0)", ["filler": filler])) }
            // The file's free pages take the first raises; from the first that finds it
            // full, none is durable.
            let full = try #require(results.firstIndex { !$0.isDurable })
            #expect(full < 5)
            for result in results[full...] {
                guard case .notDurable(let reason) = result.recording else {
                    Issue.record("expected notDurable, got \(result.recording)")
                    continue
                }
                #expect(reason.hasPrefix("not committed within 0.04 seconds; the records wait in memory and are retried: SQLite error 13"))
            }
            try expectRecovery(journal, raises: 21)
            #expect(app.raise(NamedEvent("after")).recording == .durable)
        }
    }

    @Test func theDroppingPolicyCountsAndJournalsWhatItDrops() async throws {
        var options = JournalOptions()
        options.whenFull = .drop
        options.capacity = 50
        options.retryDelay = .milliseconds(5)
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            try journal.flush()
            let size = try #require(bytes(journal.path)).count
            journal.setMaximumSize(size)
            // Each raise of an unhandled event records 3 facts (raise, end, dead letter); the
            // writer cannot commit, so the buffer fills and later raises are dropped.
            let filler = String(repeating: "y", count: 4_000)
            for index in 0..<100 { app.raise(NamedEvent("e\(index)", ["filler": filler])) }
            journal.setMaximumSize(nil)
            try journal.flush()
            let kept = try #require(Int(try lines(journal.path, "SELECT count(*) FROM event_history")[0]))
            let dropped = try #require(Int(try lines(journal.path, "SELECT dropped FROM sessions")[0]))
            #expect(kept > 0 && kept < 100)
            #expect(kept * 3 + dropped == 300)
            let noted = try lines(journal.path, "SELECT sum(records) FROM journal_trouble WHERE kind = 'dropped'")
            #expect(noted == ["\(dropped)"])
        }
    }

    @Test func threadsRaisingIntoOneJournalLoseNothing() async throws {
        try await withTemporaryJournal { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let children = (0..<4).map { EventNode("c\($0)", parent: app) }
            app.on(Ping.self, label: "root") { _, _ in .handled }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<1_000 { children[thread].raise(Ping(n: index)) }
            }
            try journal.flush()
            #expect(try lines(journal.path, "SELECT count(*), count(DISTINCT seq) FROM delivery_history") == ["4000|4000"])
            #expect(try lines(journal.path, "SELECT events, steps FROM sessions") == ["4000|4000"])
            for thread in 0..<4 {
                let order = try lines(journal.path, """
                    SELECT json_extract(payload, '$.n') FROM event_history WHERE origin_path = ? ORDER BY seq
                    """.replacingOccurrences(of: "?", with: "'app/c\(thread)'"))
                #expect(order == (0..<1_000).map(String.init), "thread \(thread) keeps its order")
            }
        }
    }

    @Test func closingCommitsEverythingAndLaterRecordsAreCountedNotWritten() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory + "/closing.eventtree"
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.raise(Ping())
            try journal.close()
            try journal.close()
            #expect(throws: JournalError.closed(path: path)) { try journal.flush() }
            app.raise(Ping())
            #expect(try lines(path, "SELECT count(*) FROM event_history") == ["1"])
        }
    }

    @Test func aTransactionTooLargeForTheFreedSpaceIsRetriedInSmallerOnes() async throws {
        var options = JournalOptions()
        options.maxDelay = .seconds(3600)
        options.retryDelay = .milliseconds(5)
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            try journal.flush()
            let size = try #require(bytes(journal.path)).count
            journal.setMaximumSize(size)
            let filler = String(repeating: "w", count: 2_000)
            // 300 raises of ~2 kB wait as one batch of transactions: ~600 kB.
            for index in 0..<300 { app.raise(NamedEvent("e\(index)", ["filler": filler])) }
            #expect(throws: JournalError.self) { try journal.flush() }
            // Free room for about a third of them: one transaction of all 300 would still
            // fail, smaller ones use the room.
            journal.setMaximumSize(size + 240_000)
            var committed = 0
            for _ in 0..<400 where committed == 0 {
                try await Task.sleep(for: .milliseconds(5))
                committed = try #require(Int(try lines(journal.path, "SELECT count(*) FROM event_history")[0]))
            }
            #expect(committed > 0 && committed < 300)
            guard case .failing = journal.status else {
                Issue.record("expected failing, got \(journal.status)")
                return
            }
            try expectRecovery(journal, raises: 300)
        }
    }

    @Test func closeReleasesRaisersWaitingForRoomAndSaysExactlyWhatWasLost() async throws {
        let statuses = StatusLog()
        var options = JournalOptions()
        options.capacity = 30
        options.retryDelay = .milliseconds(5)
        options.closeTimeout = .milliseconds(100)
        options.onStatusChange = { statuses.append($0) }
        try await withTemporaryDirectory { directory throws in
            let path = directory + "/closing.eventtree"
            let journal = try Journal(path: path, options: options)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            try journal.flush()
            journal.setMaximumSize(try #require(bytes(path)).count)
            let filler = String(repeating: "v", count: 4_000)
            // Unhandled raises of 3 records each (raise, end, dead letter). The file's free
            // pages take the first ones; raise until a flush fails: then 3 records wait.
            var raised = 0
            repeat {
                app.raise(NamedEvent("e\(raised)", ["filler": filler]))
                raised += 1
            } while (try? journal.flush()) != nil && raised < 50
            // 9 more fill the buffer of 30; the next waits for room the full disk never makes.
            for index in 0..<9 { app.raise(NamedEvent("f\(index)", ["filler": filler])) }
            let waiting = BackgroundThread { app.raise(NamedEvent("e10", ["filler": filler])) }
            do throws(JournalError) {
                try journal.close()
                Issue.record("close succeeded on a full disk")
            } catch {
                guard error.code == .recordsLost, error.path == path, error.count == 30, let cause = error.cause, cause.isDiskFull
                else {
                    Issue.record("expected 30 records lost to a full disk, got \(error)")
                    return
                }
                #expect(error.description == "closed \(path) with 30 records it could not write; they are lost: \(cause)")
            }
            let released = waiting.result()
            #expect(released.recording == .dropped(reason: "the journal \(path) is closed; 3 records of this raise were not written"))
            #expect(journal.status == .closed(unrecorded: 33))
            #expect(app.raise(NamedEvent("late")).recording == .dropped(reason: "the journal \(path) is closed; 3 records of this raise were not written"))
            #expect(journal.status == .closed(unrecorded: 36))
        }
        #expect(statuses.values.last == "closed, 30 unrecorded")
    }

    @Test func aBufferedRaiseWaitsWhenTheUnwrittenBacklogIsOverItsBound() async throws {
        var options = JournalOptions()
        options.maxDelay = .seconds(3600)
        options.maxBacklog = 90
        try await withTemporaryJournal(options: options) { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Ping.self, label: "h") { _, _ in .handled }
            for index in 0..<1_000 { app.raise(Ping(n: index)) }
            // 3 records a raise: at most the backlog (90) and the transaction being written
            // (at most 90 + one raise) wait unwritten: a crash now loses at most 61 raises.
            let committed = try #require(Int(try lines(journal.path, "SELECT count(*) FROM event_history")[0]))
            #expect(committed >= 1_000 - 61)
        }
    }

    @Test func aRaiseStillBeingDeliveredHoldsBackTheSettledSeqSoAFollowerNeverSkipsIt() async throws {
        try await withTemporaryJournal { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            app.on(Ping.self, label: "slow") { ping, _ in
                if ping.n == 1 {
                    entered.signal()
                    release.wait()
                }
                return .handled
            }
            let slow = BackgroundThread { app.raise(Ping(n: 1)) }
            entered.wait()
            // A later raise on another thread commits first, with higher seqs.
            let quick = app.raise(Ping(n: 2))
            try journal.flush()
            let reader = try JournalReader(path: journal.path)
            let committed = try lines(journal.path, "SELECT event_id FROM event_history")
            #expect(committed == ["\(quick.eventID.rawValue)"])
            let settledWhileSlow = try reader.settledBelow()
            #expect(settledWhileSlow < quick.eventID.rawValue)
            release.signal()
            let first = slow.result()
            #expect(first.eventID < quick.eventID)
            #expect(settledWhileSlow <= first.eventID.rawValue)
            try journal.flush()
            let last = try #require(Int(try lines(journal.path, "SELECT max(seq) FROM delivery_history")[0]))
            #expect(try reader.settledBelow() > last)
        }
    }
}
