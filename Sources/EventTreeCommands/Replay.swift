import ArgumentParser
import Foundation
import EventTree
import EventTreeReplay

/// `eventtree replay JOURNAL`: replays every event and reports them grouped by verdict.
struct Replay: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay delivery and classify every event: delivered, consumed, unhandled, lost, diverged, failed.",
        discussion: "Exits 1 when --fail-on names a class that has findings (for CI), 2 on bad input.")

    @OptionGroup var options: JournalArguments

    @Option(help: "Replay only this session (default: every session).")
    var session: Int?

    @Option(help: "Replay only events raised at or before this seq.")
    var until: Int?

    @Option(help: "Report only these classes, comma-separated (delivered,consumed,unhandled,lost,diverged,failed).",
            completion: .list(Classification.allCases.map(\.rawValue)), transform: ClassificationList.parse)
    var only: ClassificationList?

    @Option(name: .customLong("fail-on"), help: "Exit 1 when any event falls in these classes, comma-separated.",
            completion: .list(Classification.allCases.map(\.rawValue)), transform: ClassificationList.parse)
    var failOn: ClassificationList?

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read { journal in try read(journal, on: terminal) }
    }

    /// The columns of the CSV output.
    private static let columns = ["event_id", "session_id", "event_type", "origin_path", "classification", "result", "summary"]

    /// Replays `journal` and writes each finding as it comes (a text table's groups once
    /// the replay ends, from temporary files), so that memory does not grow with the journal.
    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let replayer = try Replayer(journal: journal)
        let output = ChunkedOutput(terminal)
        var stream = options.format == .table ? nil : RowStream(columns: Self.columns, format: options.format, to: output)
        var groups: [Classification: TableSpool] = [:]
        var counts: [Classification: Int] = [:]
        var failing = 0
        var produced = 0
        // Only while nothing is written: rows streamed to a terminal would mix with it.
        let progress: ((Int) -> Void)? = terminal.showsProgress && options.format == .table
            ? { seq in terminal.writeError("\rreplaying… seq \(seq)") } : nil
        try replayer.replay(session: session.map(SessionID.init), until: until, progress: progress) { finding in
            counts[finding.classification, default: 0] += 1
            if failOn?.classes.contains(finding.classification) == true { failing += 1 }
            guard only?.classes.contains(finding.classification) ?? true else { return }
            produced += finding.transforms.count
            switch options.format {
            case .json, .jsonl:
                stream?.append(json: FindingEncoding.finding(finding).text)
            case .csv:
                stream?.append([
                    .integer(finding.event.id.rawValue), .integer(finding.event.session.rawValue), .text(finding.event.typeName),
                    .text(finding.originPath), .text(finding.classification.rawValue), .text(finding.event.result.rawValue),
                    .text(finding.summary),
                ])
            case .table:
                let group = try groups[finding.classification] ?? TableSpool(columns: ["event", "type", "origin", "what happened"])
                groups[finding.classification] = group
                try group.append([
                    .integer(finding.event.id.rawValue), .text(finding.event.typeName), .text(finding.originPath),
                    .text(finding.summary),
                ])
            }
        }
        if progress != nil { terminal.writeError("\r\u{1B}[K") }
        if let stream {
            stream.finish()
        } else {
            try writeGroups(groups, counts: counts, produced: produced, to: output, color: terminal.isColorful)
        }
        if failing > 0 {
            throw CommandFailure(
                message: "\(failing) event\(failing == 1 ? "" : "s") in \(failOn!.description) (--fail-on)",
                status: EventTreeCommand.findingsStatus)
        }
    }

    /// The text report: each class's findings as a table under its name, then the counts.
    private func writeGroups(
        _ groups: [Classification: TableSpool], counts: [Classification: Int], produced: Int, to output: ChunkedOutput,
        color: Bool
    ) throws {
        for classification in Classification.allCases.sorted() {
            guard let group = groups[classification] else { continue }
            output.write((color ? "\u{1B}[1m" : "") + "\(classification) (\(group.count))" + (color ? "\u{1B}[0m" : "") + "\n")
            try group.write(to: output, indent: "  ")
            output.write("\n")
        }
        let total = counts.values.reduce(0, +)
        let parts = Classification.allCases.map { "\(counts[$0, default: 0]) \($0)" }
        // A transform's event is replayed with the event it came from: say how the two
        // counts (events here, raises in event_history and the demo) relate.
        let raises = produced == 0 ? "" : " (\(total + produced) raises: \(produced) produced by a transform)"
        output.write("\(total) event\(total == 1 ? "" : "s")\(raises): " + parts.joined(separator: ", ") + "\n")
        output.flush()
    }
}

/// A comma-separated list of classes, as `--only` and `--fail-on` take.
struct ClassificationList: CustomStringConvertible {
    let classes: Set<Classification>
    let description: String

    static func parse(_ argument: String) throws -> ClassificationList {
        var classes: Set<Classification> = []
        for name in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let classification = Classification(rawValue: trimmed) else {
                throw ValidationError("'\(trimmed)' is not a class; use \(Classification.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            classes.insert(classification)
        }
        return ClassificationList(
            classes: classes, description: Classification.allCases.filter(classes.contains).map(\.rawValue).joined(separator: ","))
    }
}
