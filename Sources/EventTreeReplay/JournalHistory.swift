import EventTree
import EventTreeJournal

/// What replay keeps in memory about a journal: sessions, handler registrations, which
/// handlers match which types, type names. Steps and events are streamed, never held.
final class JournalHistory {
    let reader: JournalReader
    /// Handlers by their journal number (numbers are small and dense).
    private(set) var handlersByNumber: [HandlerRecord?] = []
    private(set) var handlersByID: [HandlerID: HandlerRecord] = [:]
    /// Handlers of each node in registration order: `nodeSlots` maps a node id to its index.
    private var nodeSlots = IntTable()
    private var nodeHandlers: [[HandlerRecord]] = []
    /// The typed handlers matching each type, from the journal's match facts.
    private var matchPairs: [Int: [Int]] = [:]
    /// For each type asked about: by handler number, whether it matches (built once).
    private var matchTables: [Int: [Bool]] = [:]
    private(set) var typeNames: [Int: String] = [:]

    init(reader: JournalReader) throws {
        self.reader = reader
        try reader.forEachRow("SELECT type_id, name FROM j_types") { row in
            typeNames[row.int(0)] = row.text(1) ?? "?"
        }
        try reader.forEachRow("""
            SELECT handler_no, handler_id, node_id, type_id, channel, phases, label, file, line, removed_seq
            FROM j_handlers ORDER BY handler_id
            """) { row in
            let record = HandlerRecord(
                id: HandlerID(rawValue: row.int(1)), number: row.int(0), node: NodeID(rawValue: row.int(2)),
                eventType: row.optionalInt(3).flatMap { typeNames[$0] }, typeID: row.optionalInt(3),
                channel: row.int(4) == 0 ? .events : .errors, phases: Phases(rawValue: row.int(5)),
                label: row.text(6) ?? "?", fileID: row.text(7) ?? "?", line: row.int(8),
                removedSeq: row.optionalInt(9))
            if record.number >= 0 {
                if record.number >= handlersByNumber.count {
                    handlersByNumber += Array(repeating: nil, count: record.number - handlersByNumber.count + 1)
                }
                handlersByNumber[record.number] = record
            }
            handlersByID[record.id] = record
            if let slot = nodeSlots[record.node.rawValue] {
                nodeHandlers[slot].append(record)
            } else {
                nodeSlots[record.node.rawValue] = nodeHandlers.count
                nodeHandlers.append([record])
            }
        }
        try reader.forEachRow("SELECT handler_no, type_id FROM j_matches") { row in
            matchPairs[row.int(1), default: []].append(row.int(0))
        }
    }

    /// The handler numbered `number`, if the journal has it.
    func handler(numbered number: Int) -> HandlerRecord? {
        handlersByNumber.indices.contains(number) ? handlersByNumber[number] : nil
    }

    /// By handler number, whether a typed handler matches `type` (untyped ones always do).
    func matchTable(for type: Int) -> [Bool] {
        if let table = matchTables[type] { return table }
        var table = handlersByNumber.map { $0?.typeID == nil }
        for number in matchPairs[type] ?? [] where table.indices.contains(number) { table[number] = true }
        matchTables[type] = table
        return table
    }

    /// Whether `handler` hears events of `type` on `channel`, as the journal recorded it.
    func matches(_ handler: HandlerRecord, type: Int, channel: HandlerRegistration.Channel) -> Bool {
        handler.channel == channel && Self.matches(handler, in: matchTable(for: type))
    }

    /// Whether `handler` matches according to a table from ``matchTable(for:)``.
    static func matches(_ handler: HandlerRecord, in table: [Bool]) -> Bool {
        table.indices.contains(handler.number) ? table[handler.number] : handler.typeID == nil
    }

    /// The handlers of `node` in registration order.
    func handlers(on node: NodeID) -> [HandlerRecord] {
        nodeSlots[node.rawValue].map { nodeHandlers[$0] } ?? []
    }

    /// `SELECT` and `FROM` of event records; append the `WHERE`.
    static let selectEvents = "SELECT \(JournalCodes.eventColumns) \(JournalCodes.eventSource)"

    /// Reads an event row selected with ``selectEvents``.
    func event(from row: JournalRow) -> EventRecord {
        EventRecord(
            id: EventID(rawValue: row.int(0)), session: SessionID(rawValue: row.int(1)),
            typeName: typeNames[row.int(2)] ?? "?", typeID: row.int(2),
            kind: ["event", "request", "error"][min(max(row.int(3), 0), 2)],
            origin: NodeID(rawValue: row.int(4)), mode: JournalCodes.mode(row.int(5)) ?? .bubble,
            cause: row.optionalInt(6).map(EventID.init), transformedFrom: row.optionalInt(7).map(EventID.init),
            payload: row.text(8), finishedSeq: row.optionalInt(9),
            result: row.optionalInt(10).map { JournalCodes.results[min(max($0, 0), JournalCodes.results.count - 1)] },
            stopHandlerNumber: row.optionalInt(11), stopNode: row.optionalInt(12).map(NodeID.init),
            stopPhase: row.optionalInt(13).flatMap(Phase.init(rawValue:)), message: row.text(14),
            lostCalls: row.int(15), policy: row.int(16) == 1 ? .stop : .continue)
    }

    /// `SELECT` of undelivered steps, decoded by ``undelivered(from:)``; append the `WHERE`.
    static let selectUndelivered = "SELECT seq, event_id, node_id, phase, lost_calls FROM j_undelivered"

    /// Decodes an undelivered step selected with ``selectUndelivered``.
    func undelivered(from row: JournalRow) -> RecordedStep {
        RecordedStep(
            seq: row.int(0), event: EventID(rawValue: row.int(1)), node: NodeID(rawValue: row.int(2)),
            phase: Phase(rawValue: row.int(3)) ?? .target, kind: .undelivered(lostCalls: row.int(4)))
    }

    /// `SELECT` of call rows, decoded by ``call(from:)``; append the `WHERE`.
    static let selectCalls = "SELECT seq, handler_no, code FROM j_calls"

    /// Decodes a call row selected with ``selectCalls``.
    func call(from row: JournalRow) -> RecordedStep {
        let seq = row.int(0)
        let handlerNumber = row.int(1)
        let (eventBack, phase, outcome) = JournalCodes.decodeCall(row.int(2))
        return RecordedStep(
            seq: seq, event: EventID(rawValue: seq - eventBack),
            node: handler(numbered: handlerNumber)?.node ?? NodeID(rawValue: 0), phase: phase,
            kind: .call(handlerNumber: handlerNumber, outcome: outcome))
    }
}
