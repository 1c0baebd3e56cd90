import EventTree

/// The typed reader: the only code that knows how records are stored in the tables. It
/// decodes rows into ``RecordedEvent``, ``RecordedStep``, ``RecordedHandler`` and
/// ``RecordedTreeChange`` values, checking every code and every number before it is used:
/// a row that makes no sense is ``JournalError/damaged(path:seq:detail:)``.
extension JournalReader {
    // MARK: Registrations

    /// Every handler registration, type name and match the journal holds (read once, then kept).
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read or a registration is damaged.
    public func registrations() throws(JournalError) -> RecordedRegistrations {
        if let cached = cache.registrations { return cached }
        let typeNames = try typeNames()
        let numbers = try handlerNumbers()
        var handlers: [RecordedHandler] = []
        handlers.reserveCapacity(numbers.count)
        try each(Self.handlerColumns + " ORDER BY handler_id") { row throws(JournalError) in
            let handler = try decodeHandler(row, typeNames)
            guard numbers.contains(handler.number) else {
                throw damaged(handler.id.rawValue, "handler number \(handler.number) is outside \(numbers.lowerBound)...\(numbers.upperBound)")
            }
            handlers.append(handler)
        }
        var matches: [Int: [Int]] = [:]
        try each("SELECT handler_no, type_id, seq FROM j_matches") { row throws(JournalError) in
            guard numbers.contains(row.int(0)), typeNames[row.int(1)] != nil else {
                throw damaged(row.int(2), "a match names handler \(row.int(0)) and type \(row.int(1)), which do not exist")
            }
            matches[row.int(1), default: []].append(row.int(0))
        }
        let registrations = RecordedRegistrations(
            typeNames: typeNames, handlers: handlers, matches: matches, firstNumber: numbers.lowerBound)
        cache.registrations = registrations
        return registrations
    }

    /// The numbers the journal's handlers may have. They are dense, from 1 or from the first
    /// a prune kept: anything else would size arrays from the file.
    private func handlerNumbers() throws(JournalError) -> ClosedRange<Int> {
        let count = try integer("SELECT count(*) FROM j_handlers") ?? 0
        let first = try integer("SELECT min(handler_no) FROM j_handlers") ?? 1
        guard first >= 1 && first <= JournalReader.maximumSeq else {
            throw damaged(first, "handler numbers start at \(first)")
        }
        return first...(first + max(count, 1) - 1)
    }

    /// The columns ``decodeHandler(_:_:)`` reads, of `j_handlers`.
    private static let handlerColumns =
        "SELECT handler_no, handler_id, node_id, type_id, channel, phases, label, file, line, removed_seq FROM j_handlers"

    private func decodeHandler(_ row: JournalRow, _ typeNames: [Int: String]) throws(JournalError) -> RecordedHandler {
        let id = row.int(1)
        guard let channel = JournalCodes.channel(row.int(4)) else { throw damaged(id, "unknown channel \(row.int(4))") }
        let phases = row.int(5)
        guard (0...15).contains(phases) else { throw damaged(id, "unknown phases \(phases)") }
        let typeID = row.optionalInt(3)
        if let typeID, typeNames[typeID] == nil { throw damaged(id, "unknown type \(typeID)") }
        return RecordedHandler(
            id: HandlerID(rawValue: id), number: row.int(0), node: NodeID(rawValue: row.int(2)),
            eventType: typeID.flatMap { typeNames[$0] }, typeID: typeID, channel: channel,
            phases: Phases(rawValue: phases), label: row.text(6) ?? "?", fileID: row.text(7) ?? "?",
            line: row.int(8), removedSeq: row.optionalInt(9))
    }

    /// The type names by the journal's type number.
    private func typeNames() throws(JournalError) -> [Int: String] {
        var typeNames: [Int: String] = [:]
        try each("SELECT type_id, name FROM j_types") { row throws(JournalError) in
            typeNames[row.int(0)] = row.text(1) ?? "?"
        }
        return typeNames
    }

    /// The handler numbered `number`, read by its key (see ``HandlerLookup``).
    func handler(readingNumber number: Int, typeNames: [Int: String]) throws(JournalError) -> RecordedHandler? {
        var found: RecordedHandler?
        try each(Self.handlerColumns + " WHERE handler_no = ?", [.integer(number)]) { row throws(JournalError) in
            found = try decodeHandler(row, typeNames)
        }
        return found
    }

    /// How events and steps find their handlers: in every registration when they are read
    /// (or `everyRegistration` asks for them: a stream over a session meets most of them),
    /// else by reading each handler when first met.
    func lookup(everyRegistration: Bool = false) throws(JournalError) -> HandlerLookup {
        if everyRegistration || cache.registrations != nil { return HandlerLookup(try registrations()) }
        if let lookup = cache.lookup { return lookup }
        let lookup = HandlerLookup(typeNames: try typeNames(), reading: self)
        cache.lookup = lookup
        return lookup
    }

    /// The handlers registered on `nodes`, numbered `numbers` or with the ids `ids`, and
    /// their matches: the part of ``registrations()`` that one event's delivery can meet,
    /// read by the indexes of nodes, numbers and ids.
    public func registrations(
        on nodes: [NodeID], numbered numbers: [Int], ids: [HandlerID] = []
    ) throws(JournalError) -> RecordedRegistrations {
        let typeNames = try typeNames()
        let numbered = try handlerNumbers()
        func list(_ values: [Int]) -> JournalValue { .text("[" + values.map(String.init).joined(separator: ",") + "]") }
        var handlers: [RecordedHandler] = []
        try each(Self.handlerColumns + """
             WHERE node_id IN (SELECT value FROM json_each(?1)) OR handler_no IN (SELECT value FROM json_each(?2))
                OR handler_id IN (SELECT value FROM json_each(?3))
             ORDER BY handler_id
            """, [list(nodes.map(\.rawValue)), list(numbers), list(ids.map(\.rawValue))]) { row throws(JournalError) in
            let handler = try decodeHandler(row, typeNames)
            guard numbered.contains(handler.number) else {
                throw damaged(handler.id.rawValue, "handler number \(handler.number) is outside \(numbered.lowerBound)...\(numbered.upperBound)")
            }
            handlers.append(handler)
        }
        var matches: [Int: [Int]] = [:]
        try each(
            "SELECT handler_no, type_id FROM j_matches WHERE handler_no IN (SELECT value FROM json_each(?))",
            [list(handlers.map(\.number))]
        ) { row throws(JournalError) in
            if typeNames[row.int(1)] != nil { matches[row.int(1), default: []].append(row.int(0)) }
        }
        return RecordedRegistrations(
            typeNames: typeNames, handlers: handlers, matches: matches, firstNumber: handlers.map(\.number).min() ?? 1)
    }

    // MARK: Sessions

    /// The journal's sessions as the `sessions` view lists them, oldest first.
    public func sessions() throws(JournalError) -> [SessionSummary] {
        var sessions: [SessionSummary] = []
        try each(
            "SELECT session_id, started_at, ended_at, process, events, steps, dropped, host, app_version FROM sessions ORDER BY session_id"
        ) { row throws(JournalError) in
            sessions.append(SessionSummary(
                id: SessionID(rawValue: try checkedSeq(row.int(0), "a session")), startedAt: row.text(1) ?? "",
                endedAt: row.text(2), process: row.text(3) ?? "", events: row.int(4), steps: row.int(5), dropped: row.int(6),
                host: row.text(7) ?? "", appVersion: row.text(8)))
        }
        return sessions
    }

    /// The seq at which `session` ended (its bus's `end()`), or `nil` when it has not (yet,
    /// or ever: a crash).
    public func endSeq(of session: SessionID) throws(JournalError) -> Int? {
        try integer("SELECT ended_seq FROM j_sessions WHERE session_id = ?", [.integer(session.rawValue)])
    }

    /// The ids of the journal's sessions, oldest first.
    public func sessionIDs() throws(JournalError) -> [SessionID] {
        var ids: [SessionID] = []
        try each("SELECT session_id FROM j_sessions ORDER BY session_id") { row throws(JournalError) in
            ids.append(SessionID(rawValue: try checkedSeq(row.int(0), "a session")))
        }
        return ids
    }

    // MARK: Events

    /// The event `id`, or `nil` when the journal has none.
    public func event(_ id: EventID) throws(JournalError) -> RecordedEvent? {
        let registrations = try lookup()
        var found: RecordedEvent?
        try each(Self.selectEvents + " WHERE e.event_id = ?", [.integer(id.rawValue)]) { row throws(JournalError) in
            found = try decodeEvent(row, registrations)
        }
        return found
    }

    /// The events of `session` raised at or before `seq`, in raise order.
    public func events(of session: SessionID, through seq: Int = Int.max) throws(JournalError) -> JournalStream<RecordedEvent> {
        let registrations = try lookup(everyRegistration: true)
        let rows = try cursor(
            Self.selectEvents + " WHERE e.session_id = ? AND e.event_id <= ? ORDER BY e.event_id",
            [.integer(session.rawValue), .integer(seq)])
        return try JournalStream { () throws(JournalError) in
            guard rows.hasRow else { return nil }
            let event = try self.decodeEvent(rows.row, registrations)
            try rows.advance()
            return event
        }
    }

    /// The seq of `session`'s last tree change (0 when it changed nothing).
    public func lastTreeChange(in session: SessionID) throws(JournalError) -> Int {
        try integer("SELECT coalesce(max(seq), 0) FROM tree_changes WHERE session_id = ?", [.integer(session.rawValue)]) ?? 0
    }

    /// The names of the threads that raised `session`'s events, by number
    /// (``RecordedEvent/thread``): `main actor` (number -1: synchronous raises on the main
    /// actor), `awaited` (number 0: raises made with `await`), `main`, or the name the system
    /// gave the thread.
    public func threadNames(of session: SessionID) throws(JournalError) -> [Int: String] {
        var names: [Int: String] = [:]
        try each("SELECT thread_no, name FROM j_threads WHERE session_id = ?", [.integer(session.rawValue)]) { row throws(JournalError) in
            names[row.int(0)] = row.text(1) ?? "thread \(row.int(0))"
        }
        return names
    }

    /// The events produced by transforms and raised in `range`, in raise order.
    public func transformedEvents(in range: ClosedRange<Int>) throws(JournalError) -> [RecordedEvent] {
        let registrations = try lookup()
        var events: [RecordedEvent] = []
        try each(
            Self.selectEvents + " WHERE e.event_id >= ? AND e.event_id <= ? AND x.transformed_from IS NOT NULL ORDER BY e.event_id",
            [.integer(range.lowerBound), .integer(range.upperBound)]
        ) { row throws(JournalError) in
            events.append(try decodeEvent(row, registrations))
        }
        return events
    }

    /// The columns ``decodeEvent(_:_:)`` reads, of `j_events e` and `j_event_details x`.
    private static let eventColumns = """
        SELECT e.event_id, e.session_id, e.type_id, e.kind, e.origin_id, e.mode, x.cause_id, x.transformed_from,
            e.payload, e.finished_back, e.result, x.stop_handler_no, x.stop_node_id, x.stop_phase, x.message,
            coalesce(x.lost_calls, 0), coalesce(x.on_failure, 0), e.raised_us, e.thread_no
        """

    private static let selectEvents = eventColumns + " FROM j_events e LEFT JOIN j_event_details x ON x.event_id = e.event_id"

    private func decodeEvent(_ row: JournalRow, _ registrations: HandlerLookup) throws(JournalError) -> RecordedEvent {
        let id = try checkedSeq(row.int(0), "an event")
        _ = try checkedSeq(row.int(1), "an event's session")
        let typeID = row.int(2)
        guard let typeName = registrations.typeNames[typeID] else { throw damaged(id, "unknown event type \(typeID)") }
        guard let kind = RaisedEvent.Kind(rawValue: row.int(3)) else { throw damaged(id, "unknown event kind \(row.int(3))") }
        guard let mode = JournalCodes.mode(row.int(5)) else { throw damaged(id, "unknown delivery mode \(row.int(5))") }
        let finishedBack = row.optionalInt(9)
        if let finishedBack, finishedBack <= 0 || finishedBack > Int.max - id {
            throw damaged(id, "its raise ends before it starts")
        }
        var status: RaiseStatus.Kind?
        if let code = row.optionalInt(10) {
            guard let decoded = RaiseStatus.Kind(rawValue: code) else { throw damaged(id, "unknown result \(code)") }
            status = decoded
        }
        var stop: RecordedEvent.Stop?
        if let number = row.optionalInt(11) {
            guard try registrations.handler(numbered: number) != nil, let node = row.optionalInt(12),
                let phase = row.optionalInt(13).flatMap(JournalCodes.phase)
            else { throw damaged(id, "it names a stopping handler \(number) the journal does not have") }
            stop = RecordedEvent.Stop(handlerNumber: number, node: NodeID(rawValue: node), phase: phase)
        }
        let cause = row.optionalInt(6)
        let transformedFrom = row.optionalInt(7)
        // Links point back in time: a cause or transform source raised later would be a cycle.
        if let cause, cause >= id { throw damaged(id, "its cause \(cause) was not raised before it") }
        if let transformedFrom, transformedFrom >= id {
            throw damaged(id, "it was transformed from \(transformedFrom), which was not raised before it")
        }
        let lostCalls = row.int(15)
        guard lostCalls >= 0 else { throw damaged(id, "a negative count of lost calls") }
        return RecordedEvent(
            id: EventID(rawValue: id), session: SessionID(rawValue: row.int(1)), typeName: typeName, typeID: typeID,
            kind: kind, origin: NodeID(rawValue: row.int(4)), mode: mode, cause: cause.map(EventID.init),
            transformedFrom: transformedFrom.map(EventID.init), payload: row.text(8),
            finishedSeq: finishedBack.map { id + $0 }, status: status, stop: stop, message: row.text(14),
            lostCalls: lostCalls, policy: row.int(16) == 1 ? .stop : .continue, raisedMicroseconds: row.optionalInt(17),
            thread: row.optionalInt(18))
    }

    // MARK: Steps

    /// Handler calls and undelivered steps with a seq in `range`, in seq order.
    public func steps(in range: ClosedRange<Int>) throws(JournalError) -> JournalStream<RecordedStep> {
        let registrations = try lookup()
        let bounds: [JournalValue] = [.integer(range.lowerBound), .integer(range.upperBound)]
        let calls = try packedCalls(in: range)
        let undelivered = try cursor("""
            SELECT seq, event_id, node_id, phase, lost_calls FROM j_undelivered WHERE seq >= ? AND seq <= ? ORDER BY seq
            """, bounds)
        return try JournalStream { () throws(JournalError) in
            let callSeq = calls.current?.seq ?? Int.max
            let undeliveredSeq = undelivered.hasRow ? undelivered.row.int(0) : Int.max
            if callSeq == Int.max && undeliveredSeq == Int.max { return nil }
            if callSeq < undeliveredSeq {
                let step = try self.decodeCall(calls.current!, registrations)
                try calls.advance()
                return step
            }
            let step = try self.decodeUndelivered(undelivered.row)
            try undelivered.advance()
            return step
        }
    }

    /// The handler calls with a seq in `range`, in seq order, unpacked from their runs (see
    /// ``CallRun``): those kept in their event's row (`j_events.calls`, from its seq plus 1)
    /// and those of `j_call_runs`. Runs may overlap (calls of raises on two threads written
    /// in one transaction, an event's calls in its row around a nested raise's): a run's
    /// calls wait until no later run can come first.
    ///
    /// - Parameter marksMalformed: Whether a run that does not decode comes as one
    ///   ``CallRun/Call/malformed(at:)`` call at its seq (for the chain, which names it)
    ///   rather than as an error.
    func packedCalls(in range: ClosedRange<Int>, marksMalformed: Bool = false) throws(JournalError) -> JournalStream<CallRun.Call> {
        // Both give a run as (its first call's seq, its event, its last call's seq, calls), in
        // the order of their first calls; an event row's last call comes before its end, and
        // within its reach (see ``CallRun/eventRowReach``).
        let runs = try cursor(Self.callRunsSQL, Self.eventRunsBounds(range).prefix(2).map(JournalValue.integer))
        let eventRuns = try cursor(Self.eventRunsSQL, Self.eventRunsBounds(range).map(JournalValue.integer))
        /// The cursor whose run comes next, and whether it is an event row's.
        func nextRun() -> (JournalCursor, inEventRow: Bool)? {
            switch (runs.hasRow, eventRuns.hasRow) {
            case (false, false): return nil
            case (true, false): return (runs, false)
            case (false, true): return (eventRuns, true)
            case (true, true): return runs.row.int(0) <= eventRuns.row.int(0) ? (runs, false) : (eventRuns, true)
            }
        }
        var pending: [CallRun.Call] = []
        var next = 0
        var decoded: [CallRun.Call] = []
        return try JournalStream { () throws(JournalError) in
            while let (source, inEventRow) = nextRun(), next == pending.count || source.row.int(0) < pending[next].seq {
                let row = source.row
                let seq = row.int(0)
                decoded.removeAll(keepingCapacity: true)
                let decodes = row.withBytes(3) { text in
                    CallRun.calls(
                        in: text, event: row.int(1), firstSeq: seq, lastSeq: row.int(2), lastSeqIsBound: inEventRow,
                        into: &decoded)
                }
                if !decodes {
                    guard marksMalformed else {
                        let end = inEventRow ? "before its event's end" : "to \(row.int(2))"
                        throw self.damaged(seq, "its run of handler calls is not a JSON array of [handler and code, nanos, offset, skipped] arrays from this seq \(end)")
                    }
                    decoded = [.malformed(at: seq)]
                }
                decoded.removeAll { !range.contains($0.seq) }
                if next == pending.count {
                    swap(&pending, &decoded)
                    next = 0
                } else {
                    pending = Array(pending[next...]) + decoded
                    pending.sort { $0.seq < $1.seq }
                    next = 0
                }
                try source.advance()
            }
            guard next < pending.count else { return nil }
            next += 1
            return pending[next - 1]
        }
    }

    /// The runs of `j_call_runs` that can hold calls in `?1...?2` (the first two of
    /// ``eventRunsBounds(_:)``), as (the first call's seq, the event, the last call's seq,
    /// calls), in seq order.
    /// (A run that ends at `?1` or later starts at most the longest run's length before it:
    /// the bound that lets the key's range start there, not at the journal's start.)
    package static let callRunsSQL = """
        SELECT seq, event_id, last_seq, calls FROM j_call_runs
        WHERE seq <= ?2 AND seq >= ?1 - (SELECT coalesce(max(last_seq - seq), 0) FROM j_call_runs) AND last_seq >= ?1
        ORDER BY seq
        """

    /// The runs kept in event rows that can hold calls in `?1...?2` (see ``eventRunsBounds(_:)``),
    /// as (the first call's seq, the event, the highest seq its last call may have, calls), in
    /// seq order: found by the event rows' key, from ``CallRun/eventRowReach`` before `?1`.
    static let eventRunsSQL = """
        SELECT event_id + 1, event_id, min(coalesce(event_id + finished_back, \(Int.max)), event_id + \(CallRun.eventRowReach)) - 1,
            calls
        FROM j_events
        WHERE event_id > ?3 AND event_id < ?2 AND calls IS NOT NULL AND coalesce(event_id + finished_back, \(Int.max)) > ?1
        ORDER BY event_id
        """

    /// The arguments of ``eventRunsSQL`` for the seqs `range`, in order (the first two those
    /// of ``callRunsSQL``).
    static func eventRunsBounds(_ range: ClosedRange<Int>) -> [Int] {
        let (from, overflowed) = range.lowerBound.subtractingReportingOverflow(CallRun.eventRowReach)
        return [range.lowerBound, range.upperBound, overflowed ? Int.min : from]
    }

    private func decodeCall(_ call: CallRun.Call, _ registrations: HandlerLookup) throws(JournalError) -> RecordedStep {
        let seq = try checkedSeq(call.seq, "a handler call")
        guard let handler = try registrations.handler(numbered: call.handlerNumber) else {
            throw damaged(seq, "a call names handler \(call.handlerNumber), which the journal does not have")
        }
        guard let (eventBack, phase, outcome) = JournalCodes.decodeCall(call.code), eventBack > 0, eventBack < seq else {
            throw damaged(seq, "a call has the code \(call.code), which names no phase, outcome or event")
        }
        return RecordedStep(
            seq: seq, event: EventID(rawValue: seq - eventBack), node: handler.node, phase: phase,
            kind: .call(handlerNumber: handler.number, outcome: outcome), offsetMicroseconds: call.offsetMicroseconds,
            durationNanoseconds: call.nanoseconds)
    }

    private func decodeUndelivered(_ row: JournalRow) throws(JournalError) -> RecordedStep {
        let seq = try checkedSeq(row.int(0), "an undelivered step")
        guard let phase = JournalCodes.phase(row.int(3)) else { throw damaged(seq, "unknown phase \(row.int(3))") }
        guard row.int(4) >= 0, row.int(1) < seq else { throw damaged(seq, "an undelivered step makes no sense") }
        return RecordedStep(
            seq: seq, event: EventID(rawValue: row.int(1)), node: NodeID(rawValue: row.int(2)), phase: phase,
            kind: .undelivered(lostCalls: row.int(4)))
    }

    /// The error text of a failed call, or the answer of an answering call, at `seq`.
    public func callDetail(at seq: Int) throws(JournalError) -> String? {
        var text: String?
        try each("SELECT text FROM j_call_details WHERE seq = ?", [.integer(seq)]) { row throws(JournalError) in
            text = row.text(0)
        }
        return text
    }

    /// The seq below which the last `count` steps (calls and undelivered steps) lie.
    public func seqBeforeLastSteps(_ count: Int) throws(JournalError) -> Int {
        guard count > 0 else { return -1 }
        // The last `count` runs (by their first seqs, in event rows and in j_call_runs) hold at
        // least `count` calls, all from the first run's seq on.
        let runsFrom = try integer(
            """
            SELECT coalesce(min(seq), 1) FROM (
                SELECT seq FROM (SELECT seq FROM j_call_runs ORDER BY seq DESC LIMIT ?1)
                UNION ALL
                SELECT seq FROM (SELECT event_id + 1 AS seq FROM j_events WHERE calls IS NOT NULL ORDER BY event_id DESC LIMIT ?1)
                ORDER BY seq DESC LIMIT ?1)
            """, [.integer(count)]) ?? 1
        var seqs: [Int] = []
        let calls = try packedCalls(in: max(runsFrom, 1)...Int.max)
        while let call = calls.current {
            seqs.append(call.seq)
            try calls.advance()
        }
        try each("SELECT seq FROM j_undelivered ORDER BY seq DESC LIMIT ?", [.integer(count)]) { row throws(JournalError) in
            seqs.append(row.int(0))
        }
        // Dead letters and unhandled errors are rows of the delivery history too.
        try each(
            "SELECT unattended_seq FROM j_event_details WHERE unattended_seq IS NOT NULL ORDER BY unattended_seq DESC LIMIT ?",
            [.integer(count)]
        ) { row throws(JournalError) in
            seqs.append(row.int(0))
        }
        seqs.sort(by: >)
        return (seqs.prefix(count).last ?? 0) - 1
    }

    // MARK: The tree

    /// The tree changes of `session` made from `start` and before `seq`, in order.
    public func treeChanges(
        of session: SessionID, from start: Int = Int.min, before seq: Int = Int.max
    ) throws(JournalError) -> JournalStream<RecordedTreeChange> {
        try treeChangeStream("""
            SELECT c.seq, c.node_id, c.change, c.parent_id, c.position, c.name
            FROM j_changes c JOIN j_nodes n ON n.node_id = c.node_id
            WHERE n.session_id = ? AND c.seq >= ? AND c.seq < ? ORDER BY c.seq
            """, [.integer(session.rawValue), .integer(start), .integer(seq)])
    }

    /// The tree of `session` as it stood just before `seq`: the nearest snapshot before it
    /// (see `j_tree_snapshots`), then the changes after that snapshot, so that the cost
    /// does not grow with the session's history.
    public func tree(of session: SessionID, before seq: Int) throws(JournalError) -> JournalTree {
        var tree = JournalTree()
        var start = Int.min
        var found: (seq: Int, json: String)?
        try each(Self.nearestSnapshotQuery, [.integer(session.rawValue), .integer(seq)]) { row throws(JournalError) in
            found = (row.int(0), row.text(1) ?? "")
        }
        if let found {
            guard let snapshot = JournalTree(snapshotJSON: found.json) else {
                throw damaged(found.seq, "a tree snapshot is not a list of [node, parent, name]")
            }
            tree = snapshot
            start = found.seq + 1
        }
        let changes = try treeChanges(of: session, from: start, before: seq)
        while let change = changes.current {
            tree.apply(change.change, to: change.node)
            try changes.advance()
        }
        return tree
    }

    /// The query of ``handlerLabels(on:registeredAt:)``: by the handlers' node index (a test
    /// pins its plan).
    package static let handlerLabelsQuery = """
        SELECT node_id, label FROM j_handlers
        WHERE node_id IN (SELECT value FROM json_each(?1)) AND handler_id < ?2 AND (removed_seq IS NULL OR removed_seq > ?2)
        ORDER BY handler_id
        """

    /// The query of the snapshot ``tree(of:before:)`` starts from (a test pins its plan).
    package static let nearestSnapshotQuery =
        "SELECT seq, nodes FROM j_tree_snapshots WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1"

    /// The labels of the handlers registered on each of `nodes` at `seq` (added before it,
    /// not removed by then), in registration order: read by the nodes' index, not from every
    /// registration of the journal.
    public func handlerLabels(on nodes: [NodeID], registeredAt seq: Int) throws(JournalError) -> [NodeID: [String]] {
        var labels: [NodeID: [String]] = [:]
        let list = "[" + nodes.map { String($0.rawValue) }.joined(separator: ",") + "]"
        try each(Self.handlerLabelsQuery, [.text(list), .integer(seq)]) { row throws(JournalError) in
            labels[NodeID(rawValue: row.int(0)), default: []].append(row.text(1) ?? "?")
        }
        return labels
    }

    /// The path `node` had when it was released, if it was.
    public func releasedPath(of node: NodeID) throws(JournalError) -> String? {
        var path: String?
        try each("SELECT node_path FROM tree_changes WHERE node_id = ? AND change = 'released'", [.integer(node.rawValue)]) {
            row throws(JournalError) in path = row.text(0)
        }
        return path
    }

    /// Every tree change from `seq` on, in order.
    func treeChanges(from seq: Int) throws(JournalError) -> JournalStream<RecordedTreeChange> {
        try treeChangeStream(
            "SELECT seq, node_id, change, parent_id, position, name FROM j_changes WHERE seq >= ? ORDER BY seq",
            [.integer(seq)])
    }

    private func treeChangeStream(
        _ sql: String, _ arguments: [JournalValue]
    ) throws(JournalError) -> JournalStream<RecordedTreeChange> {
        let rows = try cursor(sql, arguments)
        return try JournalStream { () throws(JournalError) in
            guard rows.hasRow else { return nil }
            let row = rows.row
            let seq = try self.checkedSeq(row.int(0), "a tree change")
            guard let change = JournalTree.Change(
                kind: row.int(2), parent: row.optionalInt(3), position: row.optionalInt(4), name: row.text(5))
            else { throw self.damaged(seq, "a tree change has the unknown kind \(row.int(2)) or no parent") }
            let node = NodeID(rawValue: row.int(1))
            if case .attached(let parent, _) = change, parent == node { throw self.damaged(seq, "a node is attached to itself") }
            if case .moved(let parent, _) = change, parent == node { throw self.damaged(seq, "a node is moved under itself") }
            try rows.advance()
            return RecordedTreeChange(seq: seq, node: node, change: change)
        }
    }

    /// The nodes of `session` that ever had `path`, each with every seq from which it had
    /// it again (in seq order). Paths are not stored: the session's tree changes are
    /// replayed, and after each only the branches of the changed node that `path` names are
    /// searched.
    public func nodes(of session: SessionID, withPath path: String) throws(JournalError) -> [(node: NodeID, since: Int)] {
        try nodesHaving(path: path, changes: treeChanges(of: session), stopAtFirst: false)
    }

    /// The nodes that had `path` in `changes`, from the seq they gained it.
    private func nodesHaving(
        path: String, changes: JournalStream<RecordedTreeChange>, stopAtFirst: Bool
    ) throws(JournalError) -> [(node: NodeID, since: Int)] {
        var tree = JournalTree()
        var found: [(node: NodeID, since: Int)] = []
        // The nodes whose path is `path` now (a released node keeps its last path).
        var holding: Set<NodeID> = []
        while let change = changes.current {
            tree.apply(change.change, to: change.node)
            if change.change != .released {
                holding = holding.filter { tree.path(of: $0) == path }
                for node in tree.nodes(in: change.node, withPath: path) where holding.insert(node).inserted {
                    found.append((node, change.seq))
                    if stopAtFirst { return found }
                }
            }
            try changes.advance()
        }
        return found
    }

    /// The query of ``events(causedBy:)``: by the indexes of causes and of transforms (a
    /// test pins its plan).
    /// (From the details: a `LEFT JOIN` from the events would scan every event.)
    package static let causedByQuery = eventColumns + """
         FROM j_event_details x JOIN j_events e ON e.event_id = x.event_id
        WHERE x.cause_id = ?1 OR x.transformed_from = ?1 ORDER BY e.event_id
        """

    /// The events raised by a handler of `event` (nested raises, errors its handlers threw,
    /// events an error's handlers converted it into) and those transformed from it, in
    /// raise order.
    public func events(causedBy event: EventID) throws(JournalError) -> [RecordedEvent] {
        let registrations = try lookup()
        var events: [RecordedEvent] = []
        try each(Self.causedByQuery, [.integer(event.rawValue)]) { row throws(JournalError) in
            events.append(try decodeEvent(row, registrations))
        }
        return events
    }

    /// What raised `event`, walking its causes back (each the event whose handler raised
    /// the one before): the `nearest` causes, nearest first, how many causes there are in
    /// all, and the outermost (the raise the app made). The walk runs inside SQLite, so that
    /// a chain of a million links is counted in a fraction of a second without reading each.
    public func causes(
        of event: EventID, nearest: Int
    ) throws(JournalError) -> (nearest: [RecordedEvent], count: Int, outermost: RecordedEvent?) {
        // Causes point back in time (`cause_id < id`): the walk ends, whatever the file says.
        let walk = """
            WITH RECURSIVE up(id, depth) AS (
                SELECT cause_id, 1 FROM j_event_details WHERE event_id = ? AND cause_id < event_id
                UNION ALL
                SELECT d.cause_id, up.depth + 1 FROM j_event_details d JOIN up ON d.event_id = up.id
                WHERE d.cause_id < d.event_id)
            """
        let start: [JournalValue] = [.integer(event.rawValue)]
        var ids: [Int] = []
        try each(walk + "SELECT id FROM up LIMIT \(max(0, nearest))", start) { row throws(JournalError) in ids.append(row.int(0)) }
        var count = ids.count
        var outermostID: Int?
        if ids.count == nearest {
            // (SQLite gives a bare column the value of the row where max() found its maximum.)
            try each(walk + "SELECT max(depth), id FROM up", start) { row throws(JournalError) in
                if !row.isNull(0) {
                    count = row.int(0)
                    outermostID = row.int(1)
                }
            }
        }
        var events: [RecordedEvent] = []
        for id in ids {
            guard let found = try self.event(EventID(rawValue: id)) else { break }
            events.append(found)
        }
        let outermost = count > ids.count ? try outermostID.flatMap { id throws(JournalError) in try self.event(EventID(rawValue: id)) } : nil
        return (events, count, outermost)
    }

    /// Who released `node` and when: the seq of the release, and the event and handler
    /// (its number, see ``RecordedHandler/number``) whose call released it, when a handler did.
    public func release(of node: NodeID) throws(JournalError) -> (seq: Int, event: EventID?, handlerNumber: Int?)? {
        var found: (seq: Int, event: EventID?, handlerNumber: Int?)?
        try each(
            "SELECT c.seq, r.event_id, r.handler_no FROM j_changes c LEFT JOIN j_releases r ON r.seq = c.seq "
                + "WHERE c.node_id = ? AND c.change = ?",
            [.integer(node.rawValue), .integer(JournalTree.Change.Kind.released.rawValue)]
        ) { row throws(JournalError) in
            found = (row.int(0), row.optionalInt(1).map(EventID.init), row.optionalInt(2))
        }
        return found
    }

    /// Whether any node ever had `path` (in any session).
    public func hasNode(withPath path: String) throws(JournalError) -> Bool {
        try !nodesHaving(path: path, changes: treeChanges(from: 0), stopAtFirst: true).isEmpty
    }

    /// The type names of the events, requests and errors the journal holds, sorted.
    public func eventTypeNames() throws(JournalError) -> [String] {
        var names: [String] = []
        try each("SELECT name FROM j_types ORDER BY name") { row throws(JournalError) in
            if let name = row.text(0) { names.append(name) }
        }
        return names
    }

    /// Whether a handler with the label `label` was ever registered.
    public func hasHandler(labelled label: String) throws(JournalError) -> Bool {
        try firstRegistration(ofHandlerLabelled: label) != nil
    }

    /// When `node` was released, if it was.
    public func releaseSeq(of node: NodeID) throws(JournalError) -> Int? {
        try integer(
            "SELECT seq FROM j_changes WHERE node_id = ? AND change = ?",
            [.integer(node.rawValue), .integer(JournalTree.Change.Kind.released.rawValue)])
    }

    // MARK: Everything

    /// Every record from `seq` on, typed, in seq order: sessions, tree changes, handler
    /// registrations and removals, raises, handler calls and undelivered steps, dead
    /// letters, unhandled errors and the journal's trouble notes.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read or a record is damaged.
    public func records(from seq: Int = 0) throws(JournalError) -> JournalStream<JournalRecord> {
        let registrations = try registrations()
        let lookup = try lookup(everyRegistration: true)
        let from: [JournalValue] = [.integer(seq)]
        var sources: [JournalStream<JournalRecord>] = []
        let sessions = try cursor(
            "SELECT session_id, started_at, process, host, app_version FROM j_sessions WHERE session_id >= ? ORDER BY session_id",
            from)
        sources.append(try JournalStream { () throws(JournalError) in
            guard sessions.hasRow else { return nil }
            let row = sessions.row
            let record = JournalRecord.sessionStarted(RecordedSession(
                id: SessionID(rawValue: row.int(0)), startedAt: row.double(1), process: row.text(2) ?? "",
                host: row.text(3) ?? "", appVersion: row.text(4)))
            try sessions.advance()
            return record
        })
        sources.append(try integers(
            "SELECT ended_seq, session_id FROM j_sessions WHERE ended_seq >= ? ORDER BY ended_seq", from
        ) { seq, session, _ in .sessionEnded(SessionID(rawValue: session), seq: seq) })
        let changes = try treeChanges(from: seq)
        sources.append(try JournalStream { () throws(JournalError) in
            guard let change = changes.current else { return nil }
            try changes.advance()
            return .treeChange(change)
        })
        var added = registrations.handlers.filter { $0.id.rawValue >= seq }.makeIterator()
        sources.append(try JournalStream { () throws(JournalError) in added.next().map(JournalRecord.handlerAdded) })
        sources.append(try integers(
            "SELECT removed_seq, handler_id FROM j_handlers WHERE removed_seq >= ? ORDER BY removed_seq", from
        ) { seq, handler, _ in .handlerRemoved(HandlerID(rawValue: handler), seq: seq) })
        let events = try cursor(Self.selectEvents + " WHERE e.event_id >= ? ORDER BY e.event_id", from)
        sources.append(try JournalStream { () throws(JournalError) in
            guard events.hasRow else { return nil }
            let event = try self.decodeEvent(events.row, lookup)
            try events.advance()
            return .raise(event)
        })
        let steps = try steps(in: seq...Int.max)
        sources.append(try JournalStream { () throws(JournalError) in
            guard let step = steps.current else { return nil }
            try steps.advance()
            return .step(step)
        })
        sources.append(try integers(
            "SELECT x.unattended_seq, x.event_id, e.kind FROM j_event_details x JOIN j_events e ON e.event_id = x.event_id "
                + "WHERE x.unattended_seq >= ? ORDER BY x.unattended_seq", from
        ) { seq, event, kind in
            kind == RaisedEvent.Kind.error.rawValue
                ? .unhandledError(EventID(rawValue: event), seq: seq) : .deadLetter(EventID(rawValue: event), seq: seq)
        })
        let trouble = try cursor("SELECT seq, session_id, kind, message, records FROM j_trouble WHERE seq >= ? ORDER BY seq", from)
        sources.append(try JournalStream { () throws(JournalError) in
            guard trouble.hasRow else { return nil }
            let row = trouble.row
            let record = JournalRecord.trouble(RecordedTrouble(
                seq: row.int(0), session: row.optionalInt(1).map(SessionID.init), kind: row.text(2) ?? "",
                message: row.text(3) ?? "", records: row.int(4)))
            try trouble.advance()
            return record
        })
        return try .merging(sources, seq: \.seq)
    }

    /// A stream of records made from a query's two or three integer columns.
    private func integers(
        _ sql: String, _ arguments: [JournalValue], _ make: @escaping (Int, Int, Int) -> JournalRecord
    ) throws(JournalError) -> JournalStream<JournalRecord> {
        let rows = try cursor(sql, arguments)
        return try JournalStream { () throws(JournalError) in
            guard rows.hasRow else { return nil }
            let row = rows.row
            let record = make(row.int(0), row.int(1), row.count > 2 ? row.int(2) : 0)
            try rows.advance()
            return record
        }
    }

    // MARK: Helpers

    func damaged(_ seq: Int, _ detail: String) -> JournalError {
        .damaged(path: path, seq: seq, detail: detail)
    }

    /// The largest seq a journal can hold: a counter from 1 that would take centuries to
    /// get there. Larger (or non-positive) numbers in a file are damage, and refusing them
    /// here keeps every `seq + 1` of the readers from overflowing.
    package static let maximumSeq = 1 << 60

    /// `seq` when it is one a journal can hold; otherwise the file is damaged.
    package func checkedSeq(_ seq: Int, _ what: String) throws(JournalError) -> Int {
        guard seq >= 1 && seq <= Self.maximumSeq else { throw damaged(seq, "\(what) has the seq \(seq), which no journal reaches") }
        return seq
    }

    /// Calls `body` with each row of a query.
    func each(
        _ sql: String, _ arguments: [JournalValue] = [], _ body: (JournalRow) throws(JournalError) -> Void
    ) throws(JournalError) {
        let rows = try cursor(sql, arguments)
        while rows.hasRow {
            try body(rows.row)
            try rows.advance()
        }
    }

    /// The integer a query's first row starts with.
    func integer(_ sql: String, _ arguments: [JournalValue] = []) throws(JournalError) -> Int? {
        let rows = try cursor(sql, arguments)
        return rows.hasRow && !rows.row.isNull(0) ? rows.row.int(0) : nil
    }
}

/// What a reader keeps once read.
final class ReaderCache {
    var registrations: RecordedRegistrations?
    /// The handlers point queries met (see ``JournalReader/lookup(everyRegistration:)``).
    var lookup: HandlerLookup?
    /// The `SELECT`s of the views `delivery_history`, `call_history` and `j_calls` (see
    /// ``JournalReader/historyQuery(of:seqs:extent:)``).
    var historyViews: (delivery: String, calls: String, unpacked: String)?
}
