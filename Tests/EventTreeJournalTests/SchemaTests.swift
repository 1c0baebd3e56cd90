import CEventTreeSQLite
import EventTree
@testable import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Keeps every fact handed to the journal, in memory too.
final class Capturing: Recorder, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [FactRecord] = []
    let journal: Journal
    init(_ journal: Journal) { self.journal = journal }
    var sequence: SequenceCounter { journal.sequence }
    func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        lock.withLock { kept.append(contentsOf: records) }
        return journal.record(records, session: session)
    }
    var records: [FactRecord] { lock.withLock { kept }.sorted { $0.seq < $1.seq } }
}

@Suite struct SchemaTests {
    /// A fact as one line, the way ``line(_:)`` renders what the reader reads back.
    static func line(_ record: FactRecord, handlers: [HandlerID: Int], ends: [EventID: (Int, RaiseStatus)]) -> String? {
        let seq = record.seq
        switch record.fact {
        case .sessionStarted(let info):
            return "\(seq) session \(info.process) \(info.host) \(info.appVersion ?? "-") \(info.startedAt)"
        case .sessionEnded(let id, _): return "\(seq) end session \(id.rawValue)"
        case let .nodeCreated(node, name): return "\(seq) change \(node.rawValue) created(name: \"\(name)\")"
        case let .nodeAttached(node, parent, index):
            return "\(seq) change \(node.rawValue) attached(parent: \(parent), index: \(index))"
        case let .nodeDetached(node, _): return "\(seq) change \(node.rawValue) detached"
        case let .nodeMoved(node, parent, index): return "\(seq) change \(node.rawValue) moved(parent: \(parent), index: \(index))"
        case let .nodeRenamed(node, name): return "\(seq) change \(node.rawValue) renamed(name: \"\(name)\")"
        case .nodeReleased(let node, _): return "\(seq) change \(node.rawValue) released"
        case .handlerAdded(let r):
            return "\(seq) handler \(r.label) on \(r.node.rawValue) \(r.eventType ?? "*") \(r.channel) \(r.phases.rawValue) \(r.fileID):\(r.line)"
        case .handlerRemoved(let id): return "\(seq) removed \(id.rawValue)"
        case .handlerMatched, .raiseFinished: return nil
        case .raised(let raised):
            let (end, status) = ends[raised.id]!
            return "\(seq) raise \(raised.typeName) \(raised.kind) at \(raised.origin.rawValue) \(raised.mode) "
                + "cause \(raised.cause.map { "\($0.rawValue)" } ?? "-") from \(raised.transformedFrom.map { "\($0.rawValue)" } ?? "-") "
                + "end \(end) \(status.kind) \(raised.policy)"
        case .handlerCalled(let call, _):
            return "\(seq) call \(call.event.rawValue) \(call.node.rawValue) \(call.phase) #\(handlers[call.handler]!) \(call.outcome)"
        case let .stepUndelivered(event, node, phase, lost):
            return "\(seq) undelivered \(event.rawValue) \(node.rawValue) \(phase) \(lost.count)"
        case .deadLetter(let event): return "\(seq) dead letter \(event.rawValue)"
        case .unhandledError(let event): return "\(seq) unhandled \(event.rawValue)"
        }
    }

    /// A record read back, as one line.
    static func line(_ record: JournalRecord) -> String {
        let seq = record.seq
        switch record {
        case .sessionStarted(let s): return "\(seq) session \(s.process) \(s.host) \(s.appVersion ?? "-") \(s.startedAt)"
        case .sessionEnded(let id, _): return "\(seq) end session \(id.rawValue)"
        case .treeChange(let c): return "\(seq) change \(c.node.rawValue) \(c.change)"
        case .handlerAdded(let h):
            return "\(seq) handler \(h.label) on \(h.node.rawValue) \(h.eventType ?? "*") \(h.channel) \(h.phases.rawValue) \(h.location)"
        case .handlerRemoved(let id, _): return "\(seq) removed \(id.rawValue)"
        case .raise(let e):
            return "\(seq) raise \(e.typeName) \(e.kind) at \(e.origin.rawValue) \(e.mode) "
                + "cause \(e.cause.map { "\($0.rawValue)" } ?? "-") from \(e.transformedFrom.map { "\($0.rawValue)" } ?? "-") "
                + "end \(e.finishedSeq ?? -1) \(e.status.map { "\($0)" } ?? "-") \(e.policy)"
        case .step(let s):
            switch s.kind {
            case let .call(number, outcome): return "\(seq) call \(s.event.rawValue) \(s.node.rawValue) \(s.phase) #\(number) \(outcome)"
            case .undelivered(let lost): return "\(seq) undelivered \(s.event.rawValue) \(s.node.rawValue) \(s.phase) \(lost)"
            }
        case .deadLetter(let event, _): return "\(seq) dead letter \(event.rawValue)"
        case .unhandledError(let event, _): return "\(seq) unhandled \(event.rawValue)"
        case .trouble(let t): return "\(seq) trouble \(t.kind) \(t.records)"
        }
    }

    @Test func everyKindOfRecordReadsBackAsItWasWritten() async throws {
        var options = JournalOptions()
        options.recordsHostName = true
        try await withTemporaryJournal(options: options) { journal in
            let capturing = Capturing(journal)
            let bus = EventBus(recorder: capturing, appVersion: "9.9", process: "round-trip")
            let owners = (app: EventNode("app", bus: bus), a: EventNode("a", bus: bus), b: EventNode("b", bus: bus))
            try owners.app.attach(owners.a)
            try owners.app.attach(owners.b)
            let doomed = Owner(EventNode("doomed", parent: owners.b))
            owners.a.rename(to: "alpha")
            try owners.b.move(to: owners.a)
            owners.b.detach()
            try owners.app.attach(owners.b, at: 0)
            let removed = owners.app.on(Pong.self, label: "gone") { _, _ in .handled }
            removed.remove()
            owners.app.on(Ping.self, phases: .all, label: "all") { _, _ in .handled }
            owners.a.on(Pong.self, label: "to-ping") { _, _ in .transformed(Ping(n: 5)) }
            owners.app.on(UserName.self, label: "answer") { _, _ in .answered("ada") }
            owners.b.on(Ping.self, phases: .propagate, label: "thrower") { _, _ in throw Boom() }
            owners.app.onError(label: "catch") { _, _ in .handled }
            doomed.node?.on(Ping.self, phases: .propagate, label: "doomed") { _, _ in .handled }
            owners.app.on(NamedEvent.self, label: "release") { _, _ in
                doomed.letGo()
                return .ignored
            }
            owners.a.raise(Ping(), mode: .dispatch)
            owners.a.raise(Pong())
            _ = owners.a.request(UserName())
            owners.app.raise(Ping(n: 2), mode: .broadcast)
            owners.b.report(Boom())
            owners.b.raise(Ping(n: 4), onFailure: .stop)
            owners.app.raise(NamedEvent("release"), mode: .broadcast)
            owners.b.raise(Ping(n: 3), mode: .descend)
            bus.end()
            try journal.flush()

            let written = capturing.records
            var handlers: [HandlerID: Int] = [:]
            var ends: [EventID: (Int, RaiseStatus)] = [:]
            for record in written {
                if case .handlerAdded(let registration) = record.fact { handlers[registration.id] = handlers.count + 1 }
                if case let .raiseFinished(event, status) = record.fact { ends[event] = (record.seq, status) }
            }
            let expected = written.compactMap { Self.line($0, handlers: handlers, ends: ends) }
            let reader = try JournalReader(path: journal.path)
            let stream = try reader.records()
            var read: [String] = []
            while let record = stream.current {
                read.append(Self.line(record))
                try stream.advance()
            }
            #expect(read == expected)
            #expect(expected.contains { $0.contains("undelivered") } && expected.contains { $0.contains("unhandled") }
                && expected.contains { $0.contains("dead letter") } && expected.contains { $0.contains("released") })
        }
    }

    /// Calls live in two places (event rows and `j_call_runs`): a condition on a call view's
    /// `event_id` must still reach both places' keys, never unpack every run of the journal
    /// (a reader beside a writer that did so held its read for seconds and let the log grow).
    @Test func aCallViewFilteredByEventReadsBothPlacesByTheirKeys() async throws {
        try await withTemporaryJournal { journal in
            for view in ["j_calls", "call_history", "delivery_history"] {
                for condition in ["event_id = 5", "event_id > 5"] {
                    let plan = try lines(journal.path, "EXPLAIN QUERY PLAN SELECT * FROM \(view) WHERE \(condition)")
                    #expect(plan.contains { $0.contains("SEARCH j_call_runs USING INDEX j_call_runs_by_event") }, "\(view) \(condition): \(plan)")
                    #expect(plan.contains { $0.contains("SEARCH j_events USING INTEGER PRIMARY KEY") }, "\(view) \(condition): \(plan)")
                    #expect(!plan.contains { $0.contains("SCAN j_events") || $0.contains("SCAN j_call_runs") }, "\(view) \(condition): \(plan)")
                }
            }
        }
    }

    /// The point queries under `explain` and `query`: each reads from indexes, never a scan
    /// of a table that grows with the journal (at 10⁷ events a scan took seconds).
    @Test func pointQueriesReadFromIndexesOnly() async throws {
        try await withTemporaryJournal { journal in
            // query: where the next failed call, lost step or dead letter is, and an event's last row.
            let landmarks: [DeliveryHistoryLandmark] = [
                .failedOrAnsweringCall, .undeliveredStep(phase: nil), .undeliveredStep(phase: .bubble), .unattendedReport,
            ]
            let lookups = landmarks.map { JournalReader.nextSeqQuery(of: $0) } + [JournalReader.lastHistorySeqQuery]
            for sql in [JournalReader.extentQuery, JournalReader.causedByQuery]
                + lookups.map({ $0.replacingOccurrences(of: "?2", with: "2") }) {
                let sql = sql.replacingOccurrences(of: "?1", with: "5")
                let plan = try lines(journal.path, "EXPLAIN QUERY PLAN " + sql)
                // (A recursive query's own queue, `chain`, is scanned as it is filled.)
                #expect(!plan.contains { $0.contains("SCAN ") && !$0.contains("SCAN CONSTANT ROW") && !$0.hasSuffix("SCAN chain") }, "\(plan)")
            }
            // The runs of calls from a seq on: a range of the key from the longest run before it.
            let runs = try lines(journal.path, "EXPLAIN QUERY PLAN " + JournalReader.callRunsSQL)
            #expect(runs.contains { $0.contains("SEARCH j_call_runs USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(runs)")
            let causes = try lines(journal.path, "EXPLAIN QUERY PLAN " + JournalReader.causedByQuery.replacingOccurrences(of: "?1", with: "5"))
            #expect(causes.contains { $0.contains("USING INDEX j_event_details_by_transform (transformed_from=?)") }, "\(causes)")
            let extent = try lines(journal.path, "EXPLAIN QUERY PLAN " + JournalReader.extentQuery)
            #expect(extent.contains { $0.contains("j_call_runs USING INDEX j_call_runs_by_length") }, "\(extent)")
            #expect(extent.contains { $0.contains("j_call_runs USING COVERING INDEX j_call_runs_by_end") }, "\(extent)")
            // (A maximum read without its index says SEARCH, not SCAN: each is named.)
            #expect(extent.contains { $0.contains("j_event_details USING COVERING INDEX j_event_details_by_unattended") }, "\(extent)")
            // topology: the nearest snapshot, and the handlers of the tree's nodes.
            let snapshot = try lines(journal.path, "EXPLAIN QUERY PLAN " + JournalReader.nearestSnapshotQuery
                .replacingOccurrences(of: "?1", with: "1").replacingOccurrences(of: "?2", with: "9"))
            #expect(snapshot.contains { $0.contains("SEARCH j_tree_snapshots USING") && $0.contains("j_tree_snapshots_by_session (session_id=? AND seq<?)") }, "\(snapshot)")
            let labels = try lines(journal.path, "EXPLAIN QUERY PLAN " + JournalReader.handlerLabelsQuery
                .replacingOccurrences(of: "?1", with: "'[2,3]'").replacingOccurrences(of: "?2", with: "9"))
            #expect(labels.contains { $0.contains("SEARCH j_handlers USING INDEX j_handlers_by_node (node_id=?)") }, "\(labels)")
            #expect(!labels.contains { $0.contains("SCAN j_handlers") }, "\(labels)")
        }
    }

    /// Every code of every enumeration, written into the tables, must read as the same word
    /// in every view as in Swift.
    @Test func everyCodeReadsAsTheSameWordInSwiftAndInTheViews() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/codes.eventtree"
            try Journal(path: path).close()
            var sql = """
                INSERT INTO j_sessions (session_id, started_at, process, host) VALUES (1, 0, 'p', 'h');
                INSERT INTO j_types (type_id, name) VALUES (1, 'T');
                INSERT INTO j_nodes (node_id, session_id, name) VALUES (2, 1, 'n');
                """
            for channel in 0...1 {
                for phases in 0...15 {
                    let number = 1 + channel * 16 + phases
                    sql += "INSERT INTO j_handlers (handler_no, handler_id, node_id, type_id, channel, phases, label, file, line) VALUES (\(number), \(100 + number), 2, 1, \(channel), \(phases), 'h\(number)', 'f', 1);\n"
                }
            }
            // Events 1000…: every mode, kind and result code (and a raise that never ended).
            for index in 0..<42 {
                let result = index % 7 == 6 ? "NULL" : "\(index % 7)"
                sql += "INSERT INTO j_events (event_id, session_id, type_id, kind, origin_id, mode, finished_back, result) VALUES (\(1000 + index * 100), 1, 1, \(index % 3), 2, \(index % 6), 50, \(result));\n"
            }
            // Calls: every phase and outcome, on event 1000.
            let outcomes = Outcome.Kind.allCases.count
            for phase in 0...3 {
                for outcome in 0..<outcomes {
                    let seq = 1001 + phase * outcomes + outcome
                    sql += "INSERT INTO j_call_runs (seq, event_id, last_seq, calls) VALUES (\(seq), 1000, \(seq), '[[\(1 << 6 | phase << 4 | outcome),0,null]]');\n"
                }
            }
            for kind in 0...5 {
                sql += "INSERT INTO j_changes (seq, node_id, change, parent_id, position, name) VALUES (\(200 + kind), 2, \(kind), 2, 0, 'n');\n"
            }
            execute(path, sql)
            let reader = try JournalReader(path: path)
            let registrations = try reader.registrations()

            let events = try lines(path, "SELECT event_id, mode, kind, result FROM event_history ORDER BY event_id")
            #expect(events.count == 42)
            for line in events {
                let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                let event = try #require(try reader.event(EventID(rawValue: Int(parts[0])!)))
                #expect(parts[1] == event.mode.description)
                #expect(parts[2] == event.kind.description)
                #expect(parts[3] == event.result.rawValue)
            }
            #expect(Set(events.map { $0.split(separator: "|")[1] }).count == JournalCodes.modes.count)
            #expect(Set(events.map { $0.split(separator: "|")[3] }).count == EventResult.allCases.count)

            let calls = try lines(path, "SELECT seq, phase, outcome FROM call_history ORDER BY seq")
            #expect(calls.count == 4 * outcomes)
            #expect(Set(calls.map { $0.split(separator: "|")[2] }).count == outcomes)
            let steps = try reader.steps(in: 1001...1000 + 4 * outcomes)
            for line in calls {
                let parts = line.split(separator: "|").map(String.init)
                let step = try #require(steps.current)
                guard case .call(_, let outcome) = step.kind else {
                    Issue.record("not a call: \(step)")
                    return
                }
                #expect(parts == ["\(step.seq)", step.phase.description, outcome.description])
                try steps.advance()
            }

            let changes = try lines(path, "SELECT seq, change FROM tree_changes ORDER BY seq")
            for (kind, line) in zip(JournalTree.Change.Kind.allCases, changes) {
                #expect(line == "\(200 + kind.rawValue)|\(kind)")
            }
            #expect(changes.count == JournalTree.Change.Kind.allCases.count)

            let handlers = try lines(path, "SELECT label, phases, channel FROM handler_registrations ORDER BY handler_id")
            for (handler, line) in zip(registrations.handlers, handlers) {
                let phases = Phase.allCases.filter { handler.phases.contains(Phases(rawValue: 1 << $0.rawValue)) }
                #expect(line == "\(handler.label)|\(phases.map(\.description).joined(separator: ","))|\(JournalCodes.word(handler.channel))")
            }
            #expect(handlers.count == 32)
        }
    }
}
