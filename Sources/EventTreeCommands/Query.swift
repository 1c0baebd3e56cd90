import ArgumentParser
import EventTree
import EventTreeJournal

/// `eventtree query JOURNAL`: the delivery history, filtered.
struct Query: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the delivery history, filtered: one row per handler call, per call lost to a released node, and per dead letter or unhandled error.")

    @OptionGroup var options: JournalArguments

    @Option(help: "Only this session.")
    var session: Int?

    @Option(help: "Only events of this concrete type name (a handler registered for a protocol sees several types: use --handler for it).")
    var type: String?

    @Option(help: "Only the steps of this event (its event_id).")
    var event: Int?

    @Option(help: "Only this handler: its label, or its handler_id.")
    var handler: String?

    @Option(help: "Only events with this result: delivered, consumed, answered, unanswered, unhandled, failed or lost.")
    var result: ResultName?

    @Option(help: "Only steps at this node path or below it.")
    var node: String?

    @Option(help: "Only this phase: capture, target, bubble or propagate.")
    var phase: PhaseName?

    @Option(help: "Only this outcome: ignored, handled, consumed, consumedImmediately, transformed, transformedError, answered, failed, enqueued, undelivered, deadLetter or unhandledError.")
    var outcome: OutcomeName?

    @Option(help: "Only rows at or after this seq.")
    var since: Int?

    @Option(help: "Only rows at or before this seq.")
    var until: Int?

    @Option(help: "At most this many rows.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read(reusingCopy: true) { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let reader = try JournalReader(path: journal)
        let (conditions, arguments, matching) = try filter(in: reader)
        // Written as the rows come (a text table once its widths are known, from a temporary
        // file), so that memory does not grow with the history.
        let output = ChunkedOutput(terminal)
        let columns = DeliveryHistoryReader.columns
        var stream = options.format == .table ? nil : RowStream(columns: columns, format: options.format, to: output)
        let spool = options.format == .table ? try TableSpool(columns: columns) : nil
        let first = max(since ?? 1, 1)
        let last = min(until ?? Int.max - 1, Int.max - 1)
        if first <= last {
            try DeliveryHistoryReader(reader: reader).forEachRow(
                where: conditions, arguments, seqs: first...last, matching: matching, limit: limit
            ) { row in
                if let spool { try spool.append(Self.cells(row)) } else { stream?.append(Self.cells(row)) }
            }
        }
        try spool?.write(to: output, color: terminal.isColorful)
        stream?.finish()
        output.flush()
    }

    /// The filters as SQL conditions over the history's columns, with their arguments, and
    /// where the journal's keys say the rows they match can lie; a filter that names nothing
    /// the journal holds is an error that says what it holds.
    func filter(
        in reader: JournalReader
    ) throws -> (conditions: [String], arguments: [JournalValue], matching: MatchingRowSeqs) {
        var conditions: [String] = []
        var arguments: [JournalValue] = []
        var matching = MatchingRowSeqs()
        func add(_ condition: String, _ values: JournalValue...) {
            conditions.append(condition)
            arguments.append(contentsOf: values)
        }
        if let session {
            guard try !reader.rows("SELECT 1 FROM sessions WHERE session_id = ?", [.integer(session)]).isEmpty else {
                throw CommandFailure(message: "the journal has no session \(session); list them with 'eventtree sessions'")
            }
            add("session_id = ?", .integer(session))
            matching.skipBefore(session)
        }
        if let type {
            let types = try reader.eventTypeNames()
            if !types.contains(type) {
                throw CommandFailure(message: "no event of type '\(type)' is in this journal; its types: \(types.joined(separator: ", "))")
            }
        }
        if let node, try !reader.hasNode(withPath: node) {
            throw CommandFailure(message: "no node ever had the path '\(node)' in this journal; see 'eventtree topology'")
        }
        if let event {
            add("event_id = ?", .integer(event))
            matching.skipBefore(event)
            matching.stopAfter(try reader.lastHistorySeq(ofChainFrom: event) ?? event)
        }
        if let handler {
            // A handler's rows come after the first registration of its label (at its location).
            var label = handler
            var location: String?
            if let id = Int(handler) {
                let rows = try reader.rows("SELECT label, location FROM handler_registrations WHERE handler_id = ?", [.integer(id)])
                guard let row = rows.first, let named = row[0].string, let at = row[1].string else {
                    throw CommandFailure(message: "the journal has no handler \(id); see the handler_registrations view")
                }
                (label, location) = (named, at)
                add("handler_label = ? AND handler_location = ?", row[0], row[1])
            } else {
                add("handler_label = ?", .text(handler))
            }
            guard let first = try reader.firstRegistration(ofHandlerLabelled: label, at: location) else {
                throw CommandFailure(message: "no handler labelled '\(handler)' was ever registered in this journal; see the handler_registrations view")
            }
            matching.skipBefore(first)
        }
        // The row's own event, by its key: a list of every event with the result would be
        // built again for each window of seqs, from every event of the journal.
        if let result { add("(SELECT r.result FROM event_history r WHERE r.event_id = h.event_id) = ?", .text(result.name)) }
        if let type { add("event_type = ?", .text(type)) }
        // A subtree test without LIKE, so that no character of the path acts as a wildcard.
        if let node { add("(node_path = ? OR substr(node_path, 1, length(?) + 1) = ? || '/')", .text(node), .text(node), .text(node)) }
        if let phase {
            add("phase = ?", .text(phase.name))
            if let phase = Phase(name: phase.name), try !reader.hasHandler(registeredFor: phase) {
                // No call is in that phase: only steps lost in it are.
                matching.add { seq in try reader.nextSeq(of: .undeliveredStep(phase: phase), atOrAfter: seq) }
            }
        }
        if let outcome {
            add("outcome = ?", .text(outcome.name))
            if let landmark = Self.landmark(ofOutcome: outcome.name) {
                matching.add { seq in try reader.nextSeq(of: landmark, atOrAfter: seq) }
            }
        }
        return (conditions, arguments, matching)
    }

    /// The rows of an outcome the journal's keys find, if they do.
    private static func landmark(ofOutcome outcome: String) -> DeliveryHistoryLandmark? {
        switch outcome {
        case Outcome.Kind.failed.rawValue, Outcome.Kind.answered.rawValue: .failedOrAnsweringCall
        case "undelivered": .undeliveredStep(phase: nil)
        case "deadLetter", "unhandledError": .unattendedReport
        default: nil
        }
    }

    static func cells(_ row: JournalRow) -> [Table.Cell] {
        (0..<row.count).map { index in
            switch row.value(index) {
            case .integer(let value): .integer(value)
            case .text(let value): .text(value)
            case .real(let value): .text(String(value))
            case .null: .null
            }
        }
    }
}

/// A phase name, checked.
struct PhaseName: ExpressibleByArgument {
    let name: String
    init?(argument: String) {
        guard Phase(name: argument) != nil else { return nil }
        name = argument
    }
    static var allValueStrings: [String] { Phase.allCases.map(\.description) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// An outcome name (or `undelivered`), checked.
struct OutcomeName: ExpressibleByArgument {
    let name: String
    init?(argument: String) {
        guard Outcome.Kind(rawValue: argument) != nil || Self.others.contains(argument) else { return nil }
        name = argument
    }
    /// The outcomes of rows that are not handler calls.
    static let others = ["undelivered", "deadLetter", "unhandledError"]
    static var allValueStrings: [String] { Outcome.Kind.allCases.map(\.rawValue) + others }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// An event result name, checked.
struct ResultName: ExpressibleByArgument {
    let name: String
    init?(argument: String) {
        guard EventResult(rawValue: argument) != nil else { return nil }
        name = argument
    }
    static var allValueStrings: [String] { EventResult.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
