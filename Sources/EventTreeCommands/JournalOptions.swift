import ArgumentParser
import EventTreeJournal
import EventTreeReport
import Foundation

/// The journal a reading command reads: a file, or a journal shipped to a fleet database.
struct JournalArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The journal file to read (never modified).", valueName: "journal"), completion: .file())
    var file: String?

    @Option(help: ArgumentHelp(
        "Read a journal shipped to this PostgreSQL database instead of a file (an eventtree built with the PostgreSQL trait).",
        valueName: "postgresql://…"))
    var from: String?

    @Option(name: .customLong("journal"), help: ArgumentHelp(
        "With --from: the shipped journal's journal_id (needed when the database holds more than one).", valueName: "id"))
    var journalID: String?

    /// Checks that the journal is named once: a file, or a database with `--from`. (Checked
    /// when the command runs, after a command's own positionals have been sorted out.)
    private func check() throws {
        switch (file, from) {
        case (nil, nil): throw CommandFailure(message: "name a journal file, or a fleet database with --from postgresql://…")
        case (.some, .some): throw CommandFailure(message: "read a journal file or --from a database, not both")
        default: break
        }
        if journalID != nil && from == nil { throw CommandFailure(message: "--journal names a shipped journal: use it with --from") }
    }

    /// Runs `body` with the path of the journal file: the one named, or a private copy of
    /// the shipped journal, built for the command and removed after it, or (`reusingCopy`,
    /// for a point query) the copy of the journal at its last ship, kept for the next one
    /// (see ``ShippedJournalCopy``).
    func read<T>(reusingCopy: Bool = false, _ body: (String) throws -> T) throws -> T {
        try check()
        guard let from else { return try body(file ?? "") }
        let directory = NSTemporaryDirectory() + "eventtree-from-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try ShippedJournalCopy.build(from: from, journal: journalID, reusing: reusingCopy, in: directory)
        do {
            return try body(path)
        } catch let error as JournalError {
            // A kept copy that cannot be read is built again by the next command.
            if reusingCopy { ShippedJournalCopy.forget(path) }
            throw error
        }
    }
}

/// The options every reading command shares: the journal and the output format.
struct JournalArguments: ParsableArguments {
    @OptionGroup var file: JournalArgument

    @Option(help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    /// Runs `body` with the path of the journal file (see ``JournalArgument/read(reusingCopy:_:)``).
    func read<T>(reusingCopy: Bool = false, _ body: (String) throws -> T) throws -> T {
        try file.read(reusingCopy: reusingCopy, body)
    }
}

/// The options of the commands that also draw (`topology`, `explain`): the journal and an
/// output format that may be a diagram.
struct PictureArguments: ParsableArguments {
    @OptionGroup var file: JournalArgument

    @Option(help: "Output format: table, json, jsonl, csv, dot (Graphviz) or mermaid.")
    var format: PictureFormat = .table

    /// Runs `body` with the path of the journal file (see ``JournalArgument/read(reusingCopy:_:)``).
    func read<T>(reusingCopy: Bool = false, _ body: (String) throws -> T) throws -> T {
        try file.read(reusingCopy: reusingCopy, body)
    }
}

/// The formats of ``PictureArguments``: a table format, or a diagram language.
enum PictureFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv, dot, mermaid

    /// The table format, when it is one.
    var output: OutputFormat? { OutputFormat(rawValue: rawValue) }
    /// The diagram language, when it is one.
    var diagram: Diagram.Format? { Diagram.Format(rawValue: rawValue) }
}
