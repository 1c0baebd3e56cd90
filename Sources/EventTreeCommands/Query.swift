import ArgumentParser
import EventTree
import EventTreeJournal

/// `eventtree query JOURNAL`: the delivery history, filtered.
struct Query: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the delivery history (one row per handler call or undelivered step), filtered.")

    @OptionGroup var options: JournalArguments

    @Option(help: "Only this session.")
    var session: Int?

    @Option(help: "Only events of this type name.")
    var type: String?

    @Option(help: "Only steps at this node path or below it.")
    var node: String?

    @Option(help: "Only this phase: capture, target, bubble or propagate.")
    var phase: PhaseName?

    @Option(help: "Only this outcome: ignored, handled, consumed, consumedImmediately, transformed, answered, failed or undelivered.")
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
        let reader = try JournalReader(path: options.journal)
        var conditions: [String] = []
        var arguments: [JournalValue] = []
        func add(_ condition: String, _ values: JournalValue...) {
            conditions.append(condition)
            arguments.append(contentsOf: values)
        }
        if let session { add("session_id = ?", .integer(session)) }
        if let type { add("event_type = ?", .text(type)) }
        // A subtree test without LIKE, so that no character of the path acts as a wildcard.
        if let node { add("(node_path = ? OR substr(node_path, 1, length(?) + 1) = ? || '/')", .text(node), .text(node), .text(node)) }
        if let phase { add("phase = ?", .text(phase.name)) }
        if let outcome { add("outcome = ?", .text(outcome.name)) }
        if let since { add("seq >= ?", .integer(since)) }
        if let until { add("seq <= ?", .integer(until)) }
        var table = Table(columns: DeliveryHistoryReader.columns)
        try DeliveryHistoryReader(reader: reader).forEachRow(where: conditions, arguments, limit: limit) { row in
            table.rows.append(Self.cells(row))
        }
        terminal.write(table.rendered(as: options.format, color: terminal.isColorful))
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
}

/// An outcome name (or `undelivered`), checked.
struct OutcomeName: ExpressibleByArgument {
    let name: String
    init?(argument: String) {
        guard Outcome.Kind(rawValue: argument) != nil || argument == "undelivered" else { return nil }
        name = argument
    }
    static var allValueStrings: [String] { Outcome.Kind.allCases.map(\.rawValue) + ["undelivered"] }
}
