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
                guard case .writeFailed(_, let pending, let cause) = error else {
                    Issue.record("expected writeFailed, got \(error)")
                    return
                }
                #expect(cause.isDiskFull)
                #expect(pending > 0)
                #expect(error.description.contains("records kept in memory and retried"))
            }
            try expectRecovery(journal, raises: 200)
            let trouble = try lines(journal.path, "SELECT kind, records > 0, message LIKE '%none lost%' FROM journal_trouble")
            #expect(trouble == ["write-failed|1|1"])
        }
        #expect(statuses.values.first?.hasPrefix("failing: ") == true)
        #expect(statuses.values.last == "healthy")
    }

    @Test func aDurableRaiseOnAFullJournalReturnsAndItsRecordsAreRetried() async throws {
        var options = JournalOptions()
        options.durability = .durable
        options.retryDelay = .milliseconds(5)
        options.maxDelay = .milliseconds(5)
        try await withTemporaryJournal(options: options) { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            try journal.flush()
            journal.setMaximumSize(try #require(bytes(journal.path)).count)
            let filler = String(repeating: "z", count: 3_000)
            // Each raise waits for its commit; when the commit fails it returns rather than hang.
            for index in 0..<20 { app.raise(NamedEvent("e\(index)", ["filler": filler])) }
            try expectRecovery(journal, raises: 20)
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
}
