import CEventTreeSQLite
import EventTree
import Foundation

/// Turns records into rows: owns the read-write connection and its prepared statements,
/// and keeps what it must remember between facts (the tree for paths, handler numbers,
/// type ids). Used by the writer thread only.
final class RowWriter {
    private let db: Connection
    private let sequence: SequenceCounter
    private var model: WriterModel

    private let begin: Statement
    private let commit: Statement
    private let insertSession: Statement
    private let endSession: Statement
    private let countSession: Statement
    private let insertNode: Statement
    private let insertPath: Statement
    private let insertChange: Statement
    private let insertType: Statement
    private let insertHandler: Statement
    private let removeHandler: Statement
    private let insertMatch: Statement
    private let insertEvent: Statement
    private let insertEventDetails: Statement
    private let markEventUnattended: Statement
    private let insertCall: Statement
    private let insertCalls: Statement
    private let insertDetail: Statement
    private let insertUndelivered: Statement
    private let insertLostCall: Statement
    private let insertRelease: Statement
    private let insertTrouble: Statement
    private let advanceSequence: Statement
    private let settleSequence: Statement

    /// Calls are inserted this many rows per statement.
    static let callsPerStatement = 64
    private static let callColumns = 5
    /// Call rows waiting for a full multi-row statement, flattened.
    private var callValues: [Int] = []

    init(db: consuming Connection, sequence: SequenceCounter) throws(SQLiteError) {
        self.sequence = sequence
        let callRow = "(?, ?, ?, ?, ?)"
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
        insertSession = try db.prepare(
            "INSERT INTO j_sessions (session_id, started_at, process, host, app_version) VALUES (?, ?, ?, ?, ?)")
        endSession = try db.prepare("UPDATE j_sessions SET ended_seq = ?, ended_at = ? WHERE session_id = ?")
        countSession = try db.prepare(
            "UPDATE j_sessions SET events = events + ?, steps = steps + ?, dropped = dropped + ? WHERE session_id = ?")
        insertNode = try db.prepare("INSERT INTO j_nodes (node_id, session_id, name) VALUES (?, ?, ?)")
        insertPath = try db.prepare("INSERT OR REPLACE INTO j_node_paths (node_id, since_seq, path) VALUES (?, ?, ?)")
        insertChange = try db.prepare(
            "INSERT INTO j_changes (seq, node_id, change, parent_id, position, name) VALUES (?, ?, ?, ?, ?, ?)")
        insertType = try db.prepare("INSERT INTO j_types (type_id, name) VALUES (?, ?)")
        insertHandler = try db.prepare("""
            INSERT INTO j_handlers (handler_no, handler_id, node_id, type_id, channel, phases, label, file, line)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        removeHandler = try db.prepare("UPDATE j_handlers SET removed_seq = ? WHERE handler_no = ?")
        insertMatch = try db.prepare("INSERT OR IGNORE INTO j_matches (handler_no, type_id, seq) VALUES (?, ?, ?)")
        insertEvent = try db.prepare("""
            INSERT INTO j_events (event_id, session_id, type_id, kind, origin_id, mode, payload, finished_back, result, raised_us)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertEventDetails = try db.prepare("""
            INSERT INTO j_event_details (event_id, cause_id, transformed_from, stop_handler_no, stop_node_id, stop_phase,
                message, unattended_seq, lost_calls, on_failure)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        markEventUnattended = try db.prepare("""
            INSERT INTO j_event_details (event_id, unattended_seq) VALUES (?, ?)
            ON CONFLICT (event_id) DO UPDATE SET unattended_seq = excluded.unattended_seq
            """)
        insertCall = try db.prepare("INSERT INTO j_calls (seq, handler_no, code, nanos, offset_us) VALUES \(callRow)")
        insertCalls = try db.prepare(
            "INSERT INTO j_calls (seq, handler_no, code, nanos, offset_us) VALUES "
                + Array(repeating: callRow, count: Self.callsPerStatement).joined(separator: ", "))
        insertDetail = try db.prepare("INSERT INTO j_call_details (seq, text) VALUES (?, ?)")
        insertUndelivered = try db.prepare(
            "INSERT INTO j_undelivered (seq, event_id, node_id, phase, lost_calls) VALUES (?, ?, ?, ?, ?)")
        insertLostCall = try db.prepare("INSERT INTO j_lost_calls (seq, handler_no) VALUES (?, ?)")
        insertRelease = try db.prepare("INSERT INTO j_releases (seq, event_id, handler_no) VALUES (?, ?, ?)")
        insertTrouble = try db.prepare(
            "INSERT INTO j_trouble (seq, session_id, at, kind, message, records) VALUES (?, ?, ?, ?, ?, ?)")
        advanceSequence = try db.prepare("UPDATE j_sequence SET next_seq = ? WHERE id = 1")
        settleSequence = try db.prepare("UPDATE j_sequence SET settled_seq = ? WHERE id = 1")
        model = try WriterModel(loadingFrom: db)
        self.db = db
    }

    /// Sets `PRAGMA max_page_count` for a size limit in bytes (`nil`: SQLite's maximum).
    func setMaximumSize(_ bytes: Int?) throws(SQLiteError) {
        try Self.limitSize(of: db, to: bytes)
    }

    static func limitSize(of db: borrowing Connection, to bytes: Int?) throws(SQLiteError) {
        let pageSize = try db.integer("PRAGMA page_size") ?? 4096
        try db.execute("PRAGMA max_page_count = \(bytes.map { max(1, $0 / pageSize) } ?? 4_294_967_294)")
    }

    /// Copies the write-ahead log into the database and truncates it, so that a closed
    /// journal leaves no large `-wal` behind. Best effort: a reader still inside a read
    /// transaction keeps the log, and SQLite deletes it when the last connection closes.
    func checkpoint() {
        // "TRUNCATE: This mode works the same way as RESTART with the addition that it also
        // truncates the log file to zero bytes just prior to a successful return."
        _ = sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }

    /// How far past the last seq written the journal reserves numbers: a reopened journal
    /// continues after the reservation, so that the reservation needs rewriting only once in
    /// this many numbers (and a durable commit touches no extra page for it).
    static let sequenceReserve = 100_000

    /// Writes `batches`, the drop counts and the trouble notes in one transaction. On
    /// failure nothing is written and the writer's memory is as before, so the same
    /// batches can be retried.
    ///
    /// - Parameters:
    ///   - publishingCounts: Whether to write the sessions' event and step counts now (the
    ///     writer does at least once a second, on flush, on close, and when a session ends),
    ///     rather than rewrite the session row in every small durable transaction.
    ///   - settledBelow: Every record numbered lower is in this transaction or an earlier
    ///     one (see ``SequenceCounter/settledBelow``); stored for readers that follow.
    ///   - closing: Whether this is the last write: the sequence reservation is trimmed to
    ///     the exact next number.
    func write(
        _ batches: [PendingBatch], drops: [SessionID: Int], trouble: [TroubleNote], publishingCounts: Bool,
        settledBelow: Int, closing: Bool = false
    ) throws(SQLiteError) {
        let saved = model
        do {
            try begin.run()
            var publish = publishingCounts
            for batch in batches {
                var count = model.pendingCounts[batch.session] ?? (0, 0, 0)
                for record in batch.records {
                    if case .sessionEnded = record.fact { publish = true }
                    try apply(record, session: batch.session, count: &count)
                }
                model.pendingCounts[batch.session] = count
            }
            try flushCalls()
            try insertUnfinishedEvents()
            for (session, dropped) in drops {
                model.pendingCounts[session, default: (0, 0, 0)].dropped += dropped
                try note(TroubleNote(
                    session: session, kind: "dropped",
                    message: "the journal's buffer was full; \(dropped) records were dropped", records: dropped))
            }
            for item in trouble { try note(item) }
            if publish {
                for (session, count) in model.pendingCounts where count != (0, 0, 0) {
                    try countSession.bind(count.events, at: 1)
                    try countSession.bind(count.steps, at: 2)
                    try countSession.bind(count.dropped, at: 3)
                    try countSession.bind(session.rawValue, at: 4)
                    try countSession.run()
                }
                model.pendingCounts = [:]
            }
            if settledBelow > model.settledBelow {
                model.settledBelow = settledBelow
                try settleSequence.bind(settledBelow, at: 1)
                try settleSequence.run()
            }
            let next = sequence.peek
            if closing || next >= model.reservedSequence {
                model.reservedSequence = closing ? next : next + Self.sequenceReserve
                try advanceSequence.bind(model.reservedSequence, at: 1)
                try advanceSequence.run()
            }
            try commit.run()
        } catch {
            callValues.removeAll(keepingCapacity: true)
            model = saved
            if db.isInTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Facts to rows

    private func apply(
        _ record: FactRecord, session: SessionID, count: inout (events: Int, steps: Int, dropped: Int)
    ) throws(SQLiteError) {
        let seq = record.seq
        switch record.fact {
        case .handlerCalled(let call):
            count.steps += 1
            callValues.append(seq)
            callValues.append(try handlerNumber(call.handler))
            callValues.append(JournalCodes.callCode(
                eventBack: seq - call.event.rawValue, phase: call.phase, outcome: call.outcome))
            callValues.append(call.nanoseconds)
            // Microseconds from its event's raise (its event is always in the same batch).
            let raisedAt = model.openEvents[call.event]?.raised.raisedAt ?? call.startedAt
            callValues.append(max(0, call.startedAt - raisedAt) / 1_000)
            if callValues.count == Self.callsPerStatement * Self.callColumns { try flushCalls() }
            if let detail = call.detail {
                try insertDetail.bind(seq, at: 1)
                try insertDetail.bind(detail.text, at: 2)
                try insertDetail.run()
            }
        case .raised(let raised):
            count.events += 1
            model.openEvents[raised.id] = EventRow(
                raised: raised, session: session, type: try typeID(raised.typeName))
        case let .raiseFinished(event, status):
            guard var row = model.openEvents[event] else { return }
            row.finishedSeq = seq
            row.status = status
            model.openEvents[event] = row
            try insertEvent(row)
            model.openEvents[event] = nil
        case .deadLetter(let event), .unhandledError(let event):
            try markUnattended(event, seq: seq)
        case let .stepUndelivered(event, node, phase, lostHandlers):
            let lostCalls = lostHandlers.count
            count.steps += 1
            // The loss counts for the whole transform chain, which shares one status.
            var link: EventID? = event
            while let id = link, model.openEvents[id] != nil {
                model.openEvents[id]!.lostCalls += lostCalls
                link = model.openEvents[id]!.raised.transformedFrom
            }
            try insertUndelivered.bind(seq, at: 1)
            try insertUndelivered.bind(event.rawValue, at: 2)
            try insertUndelivered.bind(node.rawValue, at: 3)
            try insertUndelivered.bind(JournalCodes.code(phase), at: 4)
            try insertUndelivered.bind(lostCalls, at: 5)
            try insertUndelivered.run()
            for handler in Set(lostHandlers) {
                try insertLostCall.bind(seq, at: 1)
                try insertLostCall.bind(try handlerNumber(handler), at: 2)
                try insertLostCall.run()
            }
        case .sessionStarted(let info):
            model.sessionClocks[info.id] = (info.startedAt, info.startedAtNanoseconds)
            try insertSession.bind(info.id.rawValue, at: 1)
            try insertSession.bind(info.startedAt, at: 2)
            try insertSession.bind(info.process, at: 3)
            try insertSession.bind(info.host, at: 4)
            try insertSession.bind(info.appVersion, at: 5)
            try insertSession.run()
        case let .sessionEnded(id, at):
            try endSession.bind(seq, at: 1)
            let clock = model.sessionClocks[id]
            try endSession.bind(clock.map { $0.wall + Double(at - $0.nanoseconds) / 1e9 } ?? Date().timeIntervalSince1970, at: 2)
            try endSession.bind(id.rawValue, at: 3)
            try endSession.run()
        case let .nodeCreated(node, name):
            try insertNode.bind(node.rawValue, at: 1)
            try insertNode.bind(session.rawValue, at: 2)
            try insertNode.bind(name, at: 3)
            try insertNode.run()
            try change(seq, node: node, .created(name: name))
        case let .nodeAttached(node, parent, index):
            try change(seq, node: node, .attached(parent: parent, index: index))
        case let .nodeDetached(node, parent):
            try change(seq, node: node, .detached, formerParent: parent)
        case let .nodeMoved(node, parent, index):
            try change(seq, node: node, .moved(parent: parent, index: index))
        case let .nodeRenamed(node, name):
            try change(seq, node: node, .renamed(name: name))
        case let .nodeReleased(node, by):
            try change(seq, node: node, .released)
            if let by {
                try insertRelease.bind(seq, at: 1)
                try insertRelease.bind(by.event.rawValue, at: 2)
                try insertRelease.bind(try handlerNumber(by.handler), at: 3)
                try insertRelease.run()
            }
        case .handlerAdded(let registration):
            let number = model.nextHandlerNumber
            model.nextHandlerNumber += 1
            model.handlerNumbers.set(number, for: registration.id.rawValue)
            try insertHandler.bind(number, at: 1)
            try insertHandler.bind(registration.id.rawValue, at: 2)
            try insertHandler.bind(registration.node.rawValue, at: 3)
            try insertHandler.bind(try registration.eventType.map(typeID), at: 4)
            try insertHandler.bind(JournalCodes.code(registration.channel), at: 5)
            try insertHandler.bind(registration.phases.rawValue, at: 6)
            try insertHandler.bind(registration.label, at: 7)
            try insertHandler.bind(registration.fileID, at: 8)
            try insertHandler.bind(registration.line, at: 9)
            try insertHandler.run()
        case .handlerRemoved(let handler):
            try removeHandler.bind(seq, at: 1)
            try removeHandler.bind(try handlerNumber(handler), at: 2)
            try removeHandler.run()
        case let .handlerMatched(handler, eventType):
            try insertMatch.bind(try handlerNumber(handler), at: 1)
            try insertMatch.bind(try typeID(eventType), at: 2)
            try insertMatch.bind(seq, at: 3)
            try insertMatch.run()
        }
    }

    /// Records a tree change, applies it to the writer's tree, and records the new paths
    /// (a released node's path stays frozen: no new path rows).
    private func change(
        _ seq: Int, node: NodeID, _ change: JournalTree.Change, formerParent: NodeID? = nil
    ) throws(SQLiteError) {
        var parent = formerParent
        var position: Int?
        var name: String?
        switch change {
        case let .attached(newParent, index), let .moved(newParent, index):
            parent = newParent
            position = index
        case let .created(newName), let .renamed(newName):
            name = newName
        case .detached, .released:
            break
        }
        try insertChange.bind(seq, at: 1)
        try insertChange.bind(node.rawValue, at: 2)
        try insertChange.bind(change.kind.rawValue, at: 3)
        try insertChange.bind(parent?.rawValue, at: 4)
        try insertChange.bind(position, at: 5)
        try insertChange.bind(name, at: 6)
        try insertChange.run()
        model.tree.apply(change, to: node)
        if change != .released { try writePaths(below: node, seq: seq) }
    }

    /// Records the new path of `node` and of every node below it, from `seq` on.
    private func writePaths(below node: NodeID, seq: Int) throws(SQLiteError) {
        var pending = [(node, model.tree.path(of: node))]
        while let (current, path) = pending.popLast() {
            try insertPath.bind(current.rawValue, at: 1)
            try insertPath.bind(seq, at: 2)
            try insertPath.bind(path, at: 3)
            try insertPath.run()
            for child in model.tree.nodes[current]?.children ?? [] {
                pending.append((child, path + "/" + (model.tree.nodes[child]?.name ?? "?")))
            }
        }
    }

    /// The handler's number. A handler whose registration never reached the journal (it
    /// was dropped) gets a placeholder row, so that its calls are still kept and shown.
    private func handlerNumber(_ handler: HandlerID) throws(SQLiteError) -> Int {
        if let number = model.handlerNumbers[handler.rawValue] { return number }
        let number = model.nextHandlerNumber
        model.nextHandlerNumber += 1
        model.handlerNumbers.set(number, for: handler.rawValue)
        try db.execute("""
            INSERT INTO j_handlers (handler_no, handler_id, node_id, type_id, channel, phases, label, file, line)
            VALUES (\(number), \(handler.rawValue), 0, NULL, 0, 15, 'unknown (registration not journaled)', '?', 0)
            """)
        return number
    }

    private func typeID(_ name: String) throws(SQLiteError) -> Int {
        if let id = model.typeIDs[name] { return id }
        let id = model.nextTypeID
        model.nextTypeID += 1
        model.typeIDs[name] = id
        try insertType.bind(id, at: 1)
        try insertType.bind(name, at: 2)
        try insertType.run()
        return id
    }

    private func markUnattended(_ event: EventID, seq: Int) throws(SQLiteError) {
        if model.openEvents[event] != nil {
            model.openEvents[event]?.unattendedSeq = seq
        } else {
            try markEventUnattended.bind(event.rawValue, at: 1)
            try markEventUnattended.bind(seq, at: 2)
            try markEventUnattended.run()
        }
    }

    private func insertEvent(_ row: EventRow) throws(SQLiteError) {
        let raised = row.raised
        try insertEvent.bind(raised.id.rawValue, at: 1)
        try insertEvent.bind(row.session.rawValue, at: 2)
        try insertEvent.bind(row.type, at: 3)
        try insertEvent.bind(raised.kind.rawValue, at: 4)
        try insertEvent.bind(raised.origin.rawValue, at: 5)
        try insertEvent.bind(JournalCodes.code(raised.mode), at: 6)
        try insertEvent.bind(utf8: Self.payloadJSON(raised.payload), at: 7)
        try insertEvent.bind(row.finishedSeq.map { $0 - raised.id.rawValue }, at: 8)
        try insertEvent.bind(row.status?.kind.rawValue, at: 9)
        let start = model.sessionClocks[row.session]?.nanoseconds
        try insertEvent.bind(start.map { max(0, raised.raisedAt - $0) / 1_000 }, at: 10)
        try insertEvent.run()

        let site = row.status?.site
        var message: String?
        if case .failed(let failure)? = row.status { message = failure.message }
        guard raised.cause != nil || raised.transformedFrom != nil || site != nil || row.unattendedSeq != nil
            || row.lostCalls > 0 || raised.policy == .stop
        else { return }
        try insertEventDetails.bind(raised.id.rawValue, at: 1)
        try insertEventDetails.bind(raised.cause?.rawValue, at: 2)
        try insertEventDetails.bind(raised.transformedFrom?.rawValue, at: 3)
        try insertEventDetails.bind(try site.map { (site) throws(SQLiteError) in try handlerNumber(site.handler) }, at: 4)
        try insertEventDetails.bind(site?.node.rawValue, at: 5)
        try insertEventDetails.bind(site.map { JournalCodes.code($0.phase) }, at: 6)
        try insertEventDetails.bind(message, at: 7)
        try insertEventDetails.bind(row.unattendedSeq, at: 8)
        try insertEventDetails.bind(row.lostCalls, at: 9)
        try insertEventDetails.bind(raised.policy == .stop ? 1 : 0, at: 10)
        try insertEventDetails.run()
    }

    /// Events whose end has not come in this transaction (cannot happen for whole raises;
    /// kept so that nothing is ever silently left out).
    private func insertUnfinishedEvents() throws(SQLiteError) {
        for row in model.openEvents.values.sorted(by: { $0.raised.id < $1.raised.id }) {
            try insertEvent(row)
        }
        model.openEvents = [:]
    }

    private func flushCalls() throws(SQLiteError) {
        let columns = Self.callColumns
        let full = Self.callsPerStatement * columns
        var start = 0
        while callValues.count - start >= full {
            for offset in 0..<full {
                try insertCalls.bind(callValues[start + offset], at: Int32(offset + 1))
            }
            try insertCalls.run()
            start += full
        }
        while start < callValues.count {
            for offset in 0..<columns {
                try insertCall.bind(callValues[start + offset], at: Int32(offset + 1))
            }
            try insertCall.run()
            start += columns
        }
        callValues.removeAll(keepingCapacity: true)
    }

    private func note(_ trouble: TroubleNote) throws(SQLiteError) {
        try insertTrouble.bind(sequence.advance(), at: 1)
        try insertTrouble.bind(trouble.session?.rawValue, at: 2)
        try insertTrouble.bind(Date().timeIntervalSince1970, at: 3)
        try insertTrouble.bind(trouble.kind, at: 4)
        try insertTrouble.bind(trouble.message, at: 5)
        try insertTrouble.bind(trouble.records, at: 6)
        try insertTrouble.run()
    }

    /// The payload as JSON text: the event encoded, or the error's description as a JSON
    /// string. An event that fails to encode is stored as a JSON object saying why.
    static func payloadJSON(_ payload: RaisedEvent.Payload) -> [UInt8] {
        switch payload {
        case .event(let event):
            do {
                return try PayloadEncoder.utf8(event)
            } catch {
                return Array(("{\"unencodable\":" + JSONText.quoted("\(error)") + "}").utf8)
            }
        case .error(let error):
            return Array(JSONText.quoted(String(describing: error)).utf8)
        }
    }
}

/// An event row kept until its raise ends (always within the same batch).
struct EventRow {
    let raised: RaisedEvent
    let session: SessionID
    let type: Int
    var finishedSeq: Int?
    var status: RaiseStatus?
    var unattendedSeq: Int?
    var lostCalls = 0
}
