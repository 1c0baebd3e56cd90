import CEventTreeSQLite
import EventTree
import Foundation

/// Turns records into rows: owns the read-write connection and its prepared statements,
/// and keeps what it must remember between facts (the tree for paths, handler numbers,
/// type ids). Used by the writer thread only.
final class RowWriter {
    private let db: Connection
    private let sequence: SequenceCounter
    /// Used by the writing thread only: the per-access dynamic exclusivity check is left
    /// out (it would run on every access of every record).
    @exclusivity(unchecked) private var model: WriterModel

    private let begin: Statement
    private let commit: Statement
    private let insertSession: Statement
    private let endSession: Statement
    private let countSession: Statement
    private let insertNode: Statement
    private let insertChange: Statement
    private let insertSnapshot: Statement
    private let insertType: Statement
    private let insertHandler: Statement
    private let removeHandler: Statement
    private let insertMatch: Statement
    /// An ended event's raise time and session, for a call made after its raise ended.
    private let selectRaise: Statement
    /// Event rows and runs of calls, inserted several to a statement.
    private let eventRows: PendingRows
    private let runRows: PendingRows
    private let insertThread: Statement
    private let insertEventDetails: Statement
    private let markEventUnattended: Statement
    private let insertDetail: Statement
    private let insertUndelivered: Statement
    private let insertLostCall: Statement
    private let insertRelease: Statement
    private let insertTrouble: Statement
    private let advanceSequence: Statement
    private let settleSequence: Statement

    /// The calls of the event whose call came last in the batch being written: its event
    /// row's `calls` when the event ends in the batch (and the run starts right after its
    /// raise), otherwise one row of `j_call_runs` at the batch's end (see ``CallRun``).
    private let run = CallRun()
    /// The runs of the batch's other events (a raise inside a handler interrupts its cause's
    /// calls): each event's calls in a batch make one run, one row. (This and the next:
    /// writer thread only, unchecked as `model` is.)
    @exclusivity(unchecked) private var otherRuns: [Int: CallRun] = [:]
    /// Emptied runs, kept for their buffers.
    @exclusivity(unchecked) private var spareRuns: [CallRun] = []
    /// Runs that reached ``CallRun/longestSpan`` in the batch, written with its other runs.
    @exclusivity(unchecked) private var fullRuns: [CallRun] = []
    /// Scratch space for one record's chain bytes.
    private let encoder: ChainEncoder
    /// The last event a call was written for, and its raise time: consecutive calls mostly
    /// belong to one event, so the dictionary of open events is looked up once per event.
    /// (This, the next and `payloadEncoder`: writer thread only, unchecked as `model` is.)
    @exclusivity(unchecked) private var lastCallEvent: (id: EventID, raisedAt: Int)?
    /// Thread names by number (see `threadName(_:)`).
    @exclusivity(unchecked) private var threadNames: [String?] = []
    /// The payload of the event row being written (one buffer for every row).
    private let payload = ByteBuffer(capacity: 256)
    /// The payloads' top-level encoder, reused from one event to the next.
    @exclusivity(unchecked) private var payloadEncoder: TreeEncoder?
    private let insertChain: Statement
    /// The journal's redaction (`nil`: none).
    private let redactor: Redactor?
    /// Whether sessions keep their host's name (otherwise stored empty).
    private let recordsHostName: Bool

    init(
        db: consuming Connection, sequence: SequenceCounter, chainsRecords: Bool, redaction: Redaction,
        recordsHostName: Bool
    ) throws(SQLiteError) {
        self.sequence = sequence
        redactor = Redactor(redaction)
        self.recordsHostName = recordsHostName
        encoder = ChainEncoder(isEnabled: chainsRecords)
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
        insertSession = try db.prepare(
            "INSERT INTO j_sessions (session_id, started_at, process, host, app_version) VALUES (?, ?, ?, ?, ?)")
        endSession = try db.prepare("UPDATE j_sessions SET ended_seq = ?, ended_at = ? WHERE session_id = ?")
        countSession = try db.prepare(
            "UPDATE j_sessions SET events = events + ?, steps = steps + ?, dropped = dropped + ? WHERE session_id = ?")
        insertNode = try db.prepare("INSERT INTO j_nodes (node_id, session_id, name) VALUES (?, ?, ?)")
        insertChange = try db.prepare(
            "INSERT INTO j_changes (seq, node_id, change, parent_id, position, name) VALUES (?, ?, ?, ?, ?, ?)")
        insertSnapshot = try db.prepare("INSERT INTO j_tree_snapshots (seq, session_id, nodes) VALUES (?, ?, ?)")
        insertType = try db.prepare("INSERT INTO j_types (type_id, name) VALUES (?, ?)")
        insertHandler = try db.prepare("""
            INSERT INTO j_handlers (handler_no, handler_id, node_id, type_id, channel, phases, label, file, line)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        removeHandler = try db.prepare("UPDATE j_handlers SET removed_seq = ? WHERE handler_no = ?")
        insertMatch = try db.prepare("INSERT OR IGNORE INTO j_matches (handler_no, type_id, seq) VALUES (?, ?, ?)")
        selectRaise = try db.prepare("SELECT raised_us, session_id FROM j_events WHERE event_id = ?")
        eventRows = try PendingRows(
            into: "j_events",
            columns: [
                "event_id", "session_id", "type_id", "kind", "origin_id", "mode", "payload", "finished_back", "result", "raised_us",
                "thread_no", "calls",
            ],
            db: db)
        insertThread = try db.prepare("INSERT OR IGNORE INTO j_threads (session_id, thread_no, name) VALUES (?, ?, ?)")
        insertEventDetails = try db.prepare("""
            INSERT INTO j_event_details (event_id, cause_id, transformed_from, stop_handler_no, stop_node_id, stop_phase,
                message, unattended_seq, lost_calls, on_failure)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        markEventUnattended = try db.prepare("""
            INSERT INTO j_event_details (event_id, unattended_seq) VALUES (?, ?)
            ON CONFLICT (event_id) DO UPDATE SET unattended_seq = excluded.unattended_seq
            """)
        runRows = try PendingRows(into: "j_call_runs", columns: ["seq", "event_id", "last_seq", "calls"], db: db)
        insertDetail = try db.prepare("INSERT INTO j_call_details (seq, text) VALUES (?, ?)")
        insertUndelivered = try db.prepare(
            "INSERT INTO j_undelivered (seq, event_id, node_id, phase, lost_calls) VALUES (?, ?, ?, ?, ?)")
        insertLostCall = try db.prepare("INSERT INTO j_lost_calls (seq, handler_no) VALUES (?, ?)")
        insertRelease = try db.prepare("INSERT INTO j_releases (seq, event_id, handler_no) VALUES (?, ?, ?)")
        insertTrouble = try db.prepare(
            "INSERT INTO j_trouble (seq, session_id, at, kind, message, records) VALUES (?, ?, ?, ?, ?, ?)")
        advanceSequence = try db.prepare("UPDATE j_sequence SET next_seq = ? WHERE id = 1")
        insertChain = try db.prepare(
            "INSERT INTO j_chain (upto_seq, records, hash, tags, rule) VALUES (?, ?, ?, ?, \(ChainRule.checkpointDigests.rawValue))")
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
    /// - Returns: Whether a session ended in it.
    @discardableResult
    func write(
        _ batches: [PendingBatch], drops: [SessionID: Int], trouble: [TroubleNote], publishingCounts: Bool,
        settledBelow: Int, closing: Bool = false
    ) throws(SQLiteError) -> Bool {
        let saved = model
        defer { releaseExcessBuffers() }
        do {
            try begin.run()
            // A session's end publishes the counts.
            var endedSession = false
            // The counts of consecutive batches of one session add up in a local.
            var session = batches.first?.session
            var count = session.flatMap { model.pendingCounts[$0] } ?? (0, 0, 0)
            // (A refused batch is not written: its note, among `trouble`, says why.)
            for batch in batches where batch.refusal == nil {
                if batch.session != session {
                    if let session { model.pendingCounts[session] = count }
                    session = batch.session
                    count = model.pendingCounts[batch.session] ?? (0, 0, 0)
                }
                // Read in place: passed by value, each record would be copied out of the
                // array and the copy destroyed.
                try batch.records.withUnsafeBufferPointer { (records) throws(SQLiteError) in
                    guard let first = records.baseAddress else { return }
                    // Every raise of the batch is journaled where its outermost raise (the
                    // batch's first record) was made: on the main actor, awaited, or on the
                    // thread that handed the batch over.
                    var thread = batch.thread
                    if case .raised(let outermost) = first.pointee.fact {
                        thread = RaisingThread.number(of: outermost.isolation, on: thread)
                    }
                    for index in records.indices {
                        try apply(first + index, session: batch.session, thread: thread, count: &count, endsSession: &endedSession)
                    }
                }
                try closeRuns()
            }
            if let session { model.pendingCounts[session] = count }
            try insertUnfinishedEvents()
            try eventRows.flush()
            try runRows.flush()
            for (session, dropped) in drops {
                model.pendingCounts[session, default: (0, 0, 0)].dropped += dropped
                try note(TroubleNote(
                    session: session, kind: "dropped",
                    message: "the journal's buffer was full; \(dropped) records were dropped", records: dropped))
            }
            for item in trouble {
                if item.countsAsDropped, let session = item.session {
                    model.pendingCounts[session, default: (0, 0, 0)].dropped += item.records
                }
                try note(item)
            }
            if publishingCounts || endedSession {
                for (session, count) in model.pendingCounts where count != (0, 0, 0) {
                    try countSession.bind(count.events, at: 1)
                    try countSession.bind(count.steps, at: 2)
                    try countSession.bind(count.dropped, at: 3)
                    try countSession.bind(session.rawValue, at: 4)
                    try countSession.run()
                }
                model.pendingCounts = [:]
            }
            try chainRecords(below: settledBelow)
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
            return endedSession
        } catch {
            run.discard()
            for other in otherRuns.values {
                other.discard()
                spareRuns.append(other)
            }
            otherRuns.removeAll(keepingCapacity: true)
            for full in fullRuns { full.discard() }
            spareRuns.append(contentsOf: fullRuns)
            fullRuns.removeAll(keepingCapacity: true)
            eventRows.discard()
            runRows.discard()
            model = saved
            // (It may hold a time read from a row the rollback takes back.)
            lastCallEvent = nil
            if db.isInTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    /// Gives back what the reused buffers took for an unusually large record (a payload of
    /// megabytes), so that the writer does not keep the size of the largest one for good.
    private func releaseExcessBuffers() {
        payload.empty(keepingAtMost: ByteBuffer.keptCapacity)
        encoder.releaseExcess()
        run.releaseExcess()
    }

    /// The bytes the writer's reused buffers hold on to between writes.
    var retainedBufferBytes: Int {
        payload.capacity + encoder.capacity + eventRows.textCapacity + runRows.textCapacity + model.unchained.capacity
            + run.textCapacity
    }

    // MARK: Facts to rows

    /// The text of a call's error or answer, read in place: most calls have none, and
    /// binding the detail with the call would copy and destroy it for every call.
    private static func detailText(of record: UnsafePointer<FactRecord>) -> String? {
        // Asked first without binding it: bound, even an absent detail is copied (a call).
        if case .handlerCalled(_, nil) = record.pointee.fact { return nil }
        guard case .handlerCalled(_, let detail?) = record.pointee.fact else { return nil }
        return detail.text
    }

    private func apply(
        _ record: UnsafePointer<FactRecord>, session: SessionID, thread: Int?, count: inout (events: Int, steps: Int, dropped: Int),
        endsSession: inout Bool
    ) throws(SQLiteError) {
        let seq = record.pointee.seq
        switch record.pointee.fact {
        case .handlerCalled(let call, _):
            count.steps += 1
            let number = try handlerNumber(call.handler)
            let code = JournalCodes.callCode(eventBack: seq - call.event.rawValue, phase: call.phase, outcome: call.outcome)
            // Microseconds from its event's raise (a call enqueued on the main actor is made
            // after its raise ended: the raise's time is then read from its row).
            let raisedAt: Int
            if let last = lastCallEvent, last.id == call.event {
                raisedAt = last.raisedAt
            } else if let open = model.openEvents.raised(call.event) {
                raisedAt = open.raisedAt
                lastCallEvent = (call.event, raisedAt)
            } else if let ended = try raiseTime(ofEnded: call.event) {
                raisedAt = ended
                lastCallEvent = (call.event, raisedAt)
            } else {
                // Its raise is not written yet (a call the main actor ran before the batch of
                // the raise it was enqueued by arrived): no time to measure from. Not kept, so
                // that the event's own calls, when they come, are measured from its raise.
                raisedAt = call.startedAt
            }
            let offset = max(0, call.startedAt - raisedAt) / 1_000
            if !run.continues(call.event.rawValue, at: seq) { switchRun(to: call.event.rawValue, at: seq) }
            run.append(
                CallRun.Call(seq: seq, handlerNumber: number, code: code, nanoseconds: call.nanoseconds, offsetMicroseconds: offset),
                of: call.event.rawValue)
            let detail = Self.detailText(of: record)
            if let detail {
                try insertDetail.bind(seq, at: 1)
                try insertDetail.bind(detail, at: 2)
                try insertDetail.run()
            }
            if detail == nil && encoder.isEnabled {
                // Most calls: the record written where it is kept.
                model.unchained.append(seq: seq, atMost: ChainEncoder.callLimit) { bytes in
                    ChainEncoder.writeCall(
                        seq: seq, handler: number, code: code, nanoseconds: call.nanoseconds, offsetMicroseconds: offset,
                        into: bytes)
                }
            } else {
                encoder.call(
                    seq: seq, handler: number, code: code, nanoseconds: call.nanoseconds, offsetMicroseconds: offset,
                    detail: detail)
                keepForChain(seq)
            }
        case .raised(let raised):
            count.events += 1
            if let thread {
                let key = ThreadKey(session: session, number: thread)
                if key != model.lastNamedThread {
                    if model.namedThreads.insert(key).inserted {
                        try insertThread.bind(session.rawValue, at: 1)
                        try insertThread.bind(thread, at: 2)
                        try insertThread.bind(threadName(thread), at: 3)
                        try insertThread.run()
                    }
                    model.lastNamedThread = key
                }
            }
            model.openEvents.open(EventRow(
                raised: raised, session: session, type: try typeID(raised.typeName), thread: thread))
        case let .raiseFinished(event, status):
            guard var row = model.openEvents.finish(event) else { return }
            row.finishedSeq = seq
            row.status = status
            try insertEvent(row)
        case .deadLetter(let event), .unhandledError(let event):
            try markUnattended(event, seq: seq)
        case let .stepUndelivered(event, node, phase, lostHandlers):
            let lostCalls = lostHandlers.count
            count.steps += 1
            // The loss counts for the whole transform chain, which shares one status.
            var link: EventID? = event
            while let id = link {
                link = nil
                _ = model.openEvents.update(id) { row in
                    row.lostCalls += lostCalls
                    link = row.raised.transformedFrom
                }
            }
            try insertUndelivered.bind(seq, at: 1)
            try insertUndelivered.bind(event.rawValue, at: 2)
            try insertUndelivered.bind(node.rawValue, at: 3)
            try insertUndelivered.bind(JournalCodes.code(phase), at: 4)
            try insertUndelivered.bind(lostCalls, at: 5)
            try insertUndelivered.run()
            var numbers: [Int] = []
            for handler in Set(lostHandlers) { numbers.append(try handlerNumber(handler)) }
            numbers.sort()
            for number in numbers {
                try insertLostCall.bind(seq, at: 1)
                try insertLostCall.bind(number, at: 2)
                try insertLostCall.run()
            }
            encoder.undelivered(
                seq: seq, event: event.rawValue, node: node.rawValue, phase: JournalCodes.code(phase), lostCalls: lostCalls,
                lostHandlers: numbers)
            keepForChain(seq)
        case .sessionStarted(let info):
            model.sessionClocks[info.id] = (info.startedAt, info.startedAtNanoseconds)
            let host = recordsHostName ? info.host : ""
            try insertSession.bind(info.id.rawValue, at: 1)
            try insertSession.bind(info.startedAt, at: 2)
            try insertSession.bind(info.process, at: 3)
            try insertSession.bind(host, at: 4)
            try insertSession.bind(info.appVersion, at: 5)
            try insertSession.run()
            encoder.sessionStarted(
                seq: seq, startedAt: info.startedAt, process: info.process, host: host, appVersion: info.appVersion)
            keepForChain(seq)
            if encoder.isEnabled { model.unchainedSessionStarts.append(seq) }
            model.openSessions.insert(info.id.rawValue)
        case let .sessionEnded(id, at):
            endsSession = true
            model.openSessions.remove(id.rawValue)
            model.trees.end(id)
            try endSession.bind(seq, at: 1)
            let clock = model.sessionClocks[id]
            let endedAt = clock.map { $0.wall + Double(at - $0.nanoseconds) / 1e9 } ?? Date().timeIntervalSince1970
            try endSession.bind(endedAt, at: 2)
            try endSession.bind(id.rawValue, at: 3)
            try endSession.run()
            encoder.sessionEnded(seq: seq, session: id.rawValue, endedAt: endedAt)
            keepForChain(seq)
        case let .nodeCreated(node, name):
            try insertNode.bind(node.rawValue, at: 1)
            try insertNode.bind(session.rawValue, at: 2)
            try insertNode.bind(name, at: 3)
            try insertNode.run()
            try change(seq, node: node, .created(name: name), session: session)
        case let .nodeAttached(node, parent, index):
            try change(seq, node: node, .attached(parent: parent, index: index), session: session)
        case let .nodeDetached(node, parent):
            try change(seq, node: node, .detached, formerParent: parent, session: session)
        case let .nodeMoved(node, parent, index):
            try change(seq, node: node, .moved(parent: parent, index: index), session: session)
        case let .nodeRenamed(node, name):
            try change(seq, node: node, .renamed(name: name), session: session)
        case let .nodeReleased(node, by):
            var releasedBy: (event: Int, handler: Int)?
            if let by {
                releasedBy = (by.event.rawValue, try handlerNumber(by.handler))
                try insertRelease.bind(seq, at: 1)
                try insertRelease.bind(by.event.rawValue, at: 2)
                try insertRelease.bind(releasedBy!.handler, at: 3)
                try insertRelease.run()
            }
            try change(seq, node: node, .released, session: session, releasedBy: releasedBy)
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
            encoder.handlerAdded(
                seq: seq, number: number, node: registration.node.rawValue, eventType: registration.eventType,
                channel: JournalCodes.code(registration.channel), phases: registration.phases.rawValue,
                label: registration.label, file: registration.fileID, line: registration.line)
            keepForChain(seq)
        case .handlerRemoved(let handler):
            try removeHandler.bind(seq, at: 1)
            try removeHandler.bind(try handlerNumber(handler), at: 2)
            try removeHandler.run()
            encoder.handlerRemoved(seq: seq, handler: handler.rawValue)
            keepForChain(seq)
        case let .handlerMatched(handler, eventType):
            let number = try handlerNumber(handler)
            try insertMatch.bind(number, at: 1)
            try insertMatch.bind(try typeID(eventType), at: 2)
            try insertMatch.bind(seq, at: 3)
            try insertMatch.run()
            // INSERT OR IGNORE: a pair already recorded adds no row, and no record.
            if db.changes == 1 {
                encoder.handlerMatched(seq: seq, number: number, eventType: eventType)
                keepForChain(seq)
            }
        }
    }

    /// Records a change of `session`'s tree, and a snapshot of the tree after it when one is
    /// due (see ``LiveTrees``). Paths are not stored: the views derive a node's path at any
    /// seq from the changes (its parent and name then, up to its root), so that a change
    /// writes one row whatever the size of the subtree it moves.
    private func change(
        _ seq: Int, node: NodeID, _ change: JournalTree.Change, formerParent: NodeID? = nil, session: SessionID,
        releasedBy: (event: Int, handler: Int)? = nil
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
        let snapshot = model.trees.apply(change, to: node, in: session)
        if let snapshot {
            try insertSnapshot.bind(seq, at: 1)
            try insertSnapshot.bind(session.rawValue, at: 2)
            try insertSnapshot.bind(snapshot, at: 3)
            try insertSnapshot.run()
        }
        encoder.treeChange(
            seq: seq, node: node.rawValue, change: change.kind.rawValue, parent: parent?.rawValue, position: position,
            name: name, session: change.kind == .created ? session.rawValue : nil, releasedBy: releasedBy,
            snapshot: snapshot)
        keepForChain(seq)
    }

    /// Keeps the record just encoded until it is chained (once every lower seq is committed).
    private func keepForChain(_ seq: Int) {
        if encoder.isEnabled { model.unchained.append(seq: seq, encoder.bytes) }
    }

    /// The chain's head after the last write: the last chained seq and the hash after it.
    var head: JournalHead? {
        model.chainedThrough > 0 ? JournalHead(seq: model.chainedThrough, hash: model.chainHead.value) : nil
    }

    /// Continues a chain an earlier writer left: its head, and the records it wrote but
    /// could not chain (it stopped while lower seqs were still on their way).
    func resumeChain(head: JournalHead?, unchained: [(seq: Int, bytes: [UInt8])]) {
        if let head {
            model.chainHead = ChainHash(value: head.hash)
            model.chainedThrough = head.seq
        }
        for record in unchained { model.unchained.append(seq: record.seq, record.bytes) }
    }

    /// Chains, in seq order, every kept record numbered below `settledBelow` (all lower
    /// records are committed by now, in this transaction or earlier ones) and writes the
    /// checkpoints: one ending just before each session's start, then one for the rest. A
    /// session then begins a checkpoint, and the records before it end one, which is where
    /// retention may cut the journal (see ``JournalPruner``).
    private func chainRecords(below settledBelow: Int) throws(SQLiteError) {
        while let start = model.unchainedSessionStarts.first, start < settledBelow {
            model.unchainedSessionStarts.removeFirst()
            try writeCheckpoint(below: start)
        }
        try writeCheckpoint(below: settledBelow)
    }

    /// Chains the kept records numbered below `bound` into one checkpoint
    /// (``ChainRule/checkpointDigests``): the last seq, the count, the hash, and each
    /// record's two-byte tag.
    private func writeCheckpoint(below bound: Int) throws(SQLiteError) {
        guard !model.unchained.isEmpty else { return }
        var hasher = CheckpointHasher(
            after: model.chainHead, expectedBytes: model.unchained.byteCount)
        let taken = try model.unchained.take(below: bound) { entries, storage in
            let records = entries.reduce(0) { $0 + $1.records }
            let tags = [UInt8](unsafeUninitializedCapacity: 2 * records) { buffer, initialized in
                hasher.add(kept: entries, in: storage, tags: buffer.baseAddress!)
                initialized = 2 * records
            }
            return (tags: tags, last: entries[entries.count - 1].lastSeq)
        }
        guard let (tags, last) = taken else { return }
        let head = hasher.finish()
        model.chainHead = head
        try insertChain.bind(last, at: 1)
        try insertChain.bind(tags.count / 2, at: 2)
        try insertChain.bind(blob: head.value, at: 3)
        try insertChain.bind(blob: tags, at: 4)
        try insertChain.run()
        model.chainedThrough = last
    }

    // MARK: Retention

    /// Sessions started through this writer and not ended yet.
    var openSessions: Set<Int> { model.openSessions }

    /// The bytes the journal's pages hold, free pages left out.
    func usedBytes() throws(SQLiteError) -> Int {
        let pageSize = try db.integer("PRAGMA page_size") ?? 4096
        let pages = try db.integer("PRAGMA page_count") ?? 0
        let free = try db.integer("PRAGMA freelist_count") ?? 0
        return (pages - free) * pageSize
    }

    /// The bytes the journal's pages take, free ones included.
    func fileBytes() throws(SQLiteError) -> Int {
        (try db.integer("PRAGMA page_size") ?? 4096) * (try db.integer("PRAGMA page_count") ?? 0)
    }

    /// Removes every record through `plan.throughSeq` in one transaction, with a record at
    /// `seq` that says so, chained as soon as every lower seq is (`settledBelow`); then
    /// gives the freed pages back to the file system.
    ///
    /// - Returns: How many chained records were removed.
    func prune(_ plan: RetentionPlan, at seq: Int, prunedAt: Double, settledBelow: Int) throws(SQLiteError) -> Int {
        let saved = model
        let removed: Int
        do {
            try begin.run()
            removed = try db.integer("SELECT coalesce(sum(records), 0) FROM j_chain WHERE upto_seq <= \(plan.throughSeq)") ?? 0
            // The counts run from the journal's start: the latest prune's are added.
            let earlier = try db.prepare("SELECT sessions, records FROM j_prunes ORDER BY through_seq DESC LIMIT 1")
            let hasEarlier = try earlier.step()
            let sessions = plan.sessions.count + (hasEarlier ? earlier.int(0) : plan.carried.sessions)
            let records = removed + (hasEarlier ? earlier.int(1) : plan.carried.records)
            earlier.reset()
            try RecordRemoval.delete(db, through: plan.throughSeq)
            let insert = try db.prepare(
                "INSERT INTO j_prunes (seq, pruned_at, through_seq, hash, sessions, records, reason) VALUES (?, ?, ?, ?, ?, ?, ?)")
            try insert.bind(seq, at: 1)
            try insert.bind(prunedAt, at: 2)
            try insert.bind(plan.throughSeq, at: 3)
            try insert.bind(blob: plan.hash, at: 4)
            try insert.bind(sessions, at: 5)
            try insert.bind(records, at: 6)
            try insert.bind(plan.reason, at: 7)
            try insert.run()
            encoder.pruned(
                seq: seq, prunedAt: prunedAt, throughSeq: plan.throughSeq, hash: plan.hash, sessions: sessions,
                records: records, reason: plan.reason)
            keepForChain(seq)
            try chainRecords(below: settledBelow)
            try commit.run()
        } catch {
            model = saved
            if db.isInTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
        // A journal made before incremental vacuum was its mode is converted once.
        if try db.integer("PRAGMA auto_vacuum") != 2 {
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
        } else {
            try db.execute("PRAGMA incremental_vacuum")
        }
        checkpoint()
        return removed
    }

    /// The label of a placeholder handler row (see ``handlerNumber(_:)``).
    static let placeholderLabel = "unknown (registration not journaled)"

    /// The handler's number. A handler whose registration never reached the journal (it
    /// was dropped) gets a placeholder row, so that its calls are still kept and shown.
    @inline(__always)
    private func handlerNumber(_ handler: HandlerID) throws(SQLiteError) -> Int {
        // (Looked up once a call: inlined, with the placeholder's insert kept out of line.)
        if let number = model.handlerNumbers[handler.rawValue] { return number }
        return try placeholderNumber(for: handler)
    }

    /// The number of a handler the journal has no row for: a new one, its placeholder row
    /// written.
    @inline(never)
    private func placeholderNumber(for handler: HandlerID) throws(SQLiteError) -> Int {
        let number = model.nextHandlerNumber
        model.nextHandlerNumber += 1
        model.handlerNumbers.set(number, for: handler.rawValue)
        try db.execute("""
            INSERT INTO j_handlers (handler_no, handler_id, node_id, type_id, channel, phases, label, file, line)
            VALUES (\(number), \(handler.rawValue), 0, NULL, 0, 15, '\(Self.placeholderLabel)', '?', 0)
            """)
        return number
    }

    /// When an event that has ended was raised, on its session's monotonic clock (to the
    /// microsecond its row keeps), if its row is written and its session started in this
    /// process. Off the path of every other call: only a call made after its raise ended
    /// comes here.
    @inline(never)
    private func raiseTime(ofEnded event: EventID) throws(SQLiteError) -> Int? {
        // Its row may still wait among the transaction's pending rows.
        try eventRows.flush()
        try selectRaise.bind(event.rawValue, at: 1)
        defer { selectRaise.reset() }
        guard try selectRaise.step(), !selectRaise.isNull(0),
            let start = sessionStart(SessionID(rawValue: selectRaise.int(1)))
        else { return nil }
        return start + selectRaise.int(0) * 1_000
    }

    /// The monotonic start of `session`, if it started in this process.
    private func sessionStart(_ session: SessionID) -> Int? {
        if let last = model.lastSessionStart, last.session == session { return last.nanoseconds }
        guard let start = model.sessionClocks[session]?.nanoseconds else { return nil }
        model.lastSessionStart = (session, start)
        return start
    }

    /// The name thread `number` had when it was numbered (it never changes after), kept
    /// here after the first lookup.
    private func threadName(_ number: Int) -> String {
        guard number >= 0 else { return RaisingThread.name(of: number) }
        if number < threadNames.count, let name = threadNames[number] { return name }
        let name = RaisingThread.name(of: number)
        if number >= threadNames.count { threadNames += Array(repeating: nil, count: number + 1 - threadNames.count) }
        threadNames[number] = name
        return name
    }

    private func typeID(_ name: String) throws(SQLiteError) -> Int {
        if let last = model.lastType, last.name == name { return last.id }
        if let id = model.typeIDs[name] {
            model.lastType = (name, id)
            return id
        }
        let id = model.nextTypeID
        model.nextTypeID += 1
        model.typeIDs[name] = id
        try insertType.bind(id, at: 1)
        try insertType.bind(name, at: 2)
        try insertType.run()
        return id
    }

    private func markUnattended(_ event: EventID, seq: Int) throws(SQLiteError) {
        if !model.openEvents.update(event, { $0.unattendedSeq = seq }) {
            try markEventUnattended.bind(event.rawValue, at: 1)
            try markEventUnattended.bind(seq, at: 2)
            try markEventUnattended.run()
        }
        encoder.unattended(seq: seq, event: event.rawValue)
        keepForChain(seq)
    }

    private func insertEvent(_ row: EventRow) throws(SQLiteError) {
        let raised = row.raised
        Self.writePayloadJSON(raised.payload, type: row.type, into: payload, encoder: &payloadEncoder, redactor: redactor)
        let finishedBack = row.finishedSeq.map { $0 - raised.id.rawValue }
        let start = sessionStart(row.session)
        let raisedMicroseconds = start.map { max(0, raised.raisedAt - $0) / 1_000 }
        eventRows.append(raised.id.rawValue)
        eventRows.append(row.session.rawValue)
        eventRows.append(row.type)
        eventRows.append(raised.kind.rawValue)
        eventRows.append(raised.origin.rawValue)
        eventRows.append(JournalCodes.code(raised.mode))
        eventRows.append(text: payload.bytes)
        eventRows.append(finishedBack)
        eventRows.append(row.status?.kind.rawValue)
        eventRows.append(raisedMicroseconds)
        eventRows.append(row.thread)
        // (An event written before its end, at a transaction's end, or one that ends too far
        // from its raise for readers to find its row by its calls, keeps its calls in runs.)
        if let finished = row.finishedSeq, finished - raised.id.rawValue <= CallRun.eventRowReach {
            appendCalls(of: raised.id.rawValue)
        } else {
            eventRows.append(nil as Int?)
        }
        try eventRows.endRow()

        let site = row.status?.site
        var message: String?
        if case .failed(let failure)? = row.status { message = failure.message }
        let stopHandler = try site.map { (site) throws(SQLiteError) in try handlerNumber(site.handler) }
        // (Its arguments cost a lookup or two: not made at all when nothing is chained.)
        if encoder.isEnabled {
            encoder.raise(
                seq: raised.id.rawValue, session: row.session.rawValue, eventType: raised.typeName,
                kind: raised.kind.rawValue, origin: raised.origin.rawValue, mode: JournalCodes.code(raised.mode),
                payload: payload.bytes, finishedBack: finishedBack, result: row.status?.kind.rawValue,
                raisedMicroseconds: raisedMicroseconds, cause: raised.cause?.rawValue,
                transformedFrom: raised.transformedFrom?.rawValue, stopHandler: stopHandler, stopNode: site?.node.rawValue,
                stopPhase: site.map { JournalCodes.code($0.phase) }, message: message, lostCalls: row.lostCalls,
                onFailure: raised.policy == .stop ? 1 : 0, thread: row.thread,
                threadName: row.thread.map(threadName))
        }
        keepForChain(raised.id.rawValue)
        guard raised.cause != nil || raised.transformedFrom != nil || site != nil || row.unattendedSeq != nil
            || row.lostCalls > 0 || raised.policy == .stop
        else { return }
        try insertEventDetails.bind(raised.id.rawValue, at: 1)
        try insertEventDetails.bind(raised.cause?.rawValue, at: 2)
        try insertEventDetails.bind(raised.transformedFrom?.rawValue, at: 3)
        try insertEventDetails.bind(stopHandler, at: 4)
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
        for row in model.openEvents.finishAll() {
            try insertEvent(row)
        }
    }

    /// Ends `event`'s row being made with its `calls`: its open run when that starts right
    /// after its raise (closed here: no `j_call_runs` row), `NULL` otherwise.
    private func appendCalls(of event: Int) {
        let open = !run.isEmpty && run.event == event ? run : otherRuns[event]
        guard let open, open.firstSeq == event + 1 else {
            eventRows.append(nil as Int?)
            return
        }
        open.close { calls in eventRows.append(text: calls) }
        if open !== run {
            otherRuns[event] = nil
            spareRuns.append(open)
        }
    }

    /// Makes `event`'s run the one its call at `seq` is added to, keeping the current one
    /// open; a run of `event` that the call would make span ``CallRun/longestSpan`` seqs or
    /// more is set aside whole (written with the batch's other runs), and the call starts
    /// the next.
    private func switchRun(to event: Int, at seq: Int) {
        // The first calls of a batch (mostly its only event's): the empty run takes them.
        if run.isEmpty && otherRuns.isEmpty { return }
        if run.event != event || run.isEmpty {
            // `event`'s open run (or an empty one) and the current one trade places.
            let other = otherRuns.removeValue(forKey: event) ?? spareRuns.popLast() ?? CallRun()
            run.exchange(with: other)
            if other.isEmpty {
                spareRuns.append(other)
            } else {
                otherRuns[other.event] = other
            }
        }
        if !run.isEmpty && !run.continues(event, at: seq) {
            let full = spareRuns.popLast() ?? CallRun()
            run.exchange(with: full)
            fullRuns.append(full)
        }
    }

    /// Writes the runs of calls gathered in a batch that their events' rows did not take, each
    /// as one `j_call_runs` row.
    private func closeRuns() throws(SQLiteError) {
        try close(run)
        if !fullRuns.isEmpty {
            for full in fullRuns { try close(full) }
            // A raise of many calls sets many runs aside: a few are kept for their buffers.
            spareRuns.append(contentsOf: fullRuns.prefix(max(0, Self.spareRunsKept - spareRuns.count)))
            fullRuns.removeAll(keepingCapacity: true)
        }
        guard !otherRuns.isEmpty else { return }
        // Taken out first: a failure half way must not leave a run both open and spare.
        let others = otherRuns
        otherRuns.removeAll(keepingCapacity: true)
        for other in others.values {
            try close(other)
            spareRuns.append(other)
        }
    }

    /// How many emptied runs of set-aside calls are kept for their buffers.
    private static let spareRunsKept = 16

    private func close(_ run: CallRun) throws(SQLiteError) {
        guard !run.isEmpty else { return }
        runRows.append(run.firstSeq)
        runRows.append(run.event)
        runRows.append(run.lastSeq)
        run.close { calls in runRows.append(text: calls) }
        try runRows.endRow()
    }

    private func note(_ trouble: TroubleNote) throws(SQLiteError) {
        let seq = sequence.advance()
        let at = Date().timeIntervalSince1970
        try insertTrouble.bind(seq, at: 1)
        try insertTrouble.bind(trouble.session?.rawValue, at: 2)
        try insertTrouble.bind(at, at: 3)
        try insertTrouble.bind(trouble.kind, at: 4)
        try insertTrouble.bind(trouble.message, at: 5)
        try insertTrouble.bind(trouble.records, at: 6)
        try insertTrouble.run()
        encoder.trouble(
            seq: seq, session: trouble.session?.rawValue, at: at, kind: trouble.kind, message: trouble.message,
            records: trouble.records)
        keepForChain(seq)
    }

    /// Writes the payload, of the type numbered `type`, as JSON text into `bytes` (emptied
    /// first): the event encoded (the fields `redactor` redacts replaced), or
    /// the error's description as a JSON string. An event that fails to encode is stored as
    /// a JSON object saying why. `encoder` is the reused top-level encoder.
    static func writePayloadJSON(
        _ payload: RaisedEvent.Payload, type: Int, into bytes: ByteBuffer, encoder: inout TreeEncoder?, redactor: Redactor?
    ) {
        bytes.count = 0
        switch payload {
        case .event(let event):
            do {
                redactor?.prepare(for: event, typeID: type)
                try PayloadEncoder.append(event, to: bytes, reusing: &encoder, redactor: redactor)
            } catch {
                var text = "{\"unencodable\":" + JSONText.quoted("\(error)") + "}"
                text.withUTF8 { bytes.append(UnsafeRawBufferPointer($0)) }
            }
        case .error(let error):
            JSONText.appendQuoted(String(describing: error), to: bytes)
        }
    }
}

/// An event row kept until its raise ends (always within the same batch).
struct EventRow {
    let raised: RaisedEvent
    let session: SessionID
    let type: Int
    /// The number of the thread it was raised on.
    let thread: Int?
    var finishedSeq: Int?
    var status: RaiseStatus?
    var unattendedSeq: Int?
    var lostCalls = 0
}
