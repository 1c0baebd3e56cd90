import ArgumentParser
import EventTreeReport

/// The journal a reading command reads.
struct JournalArgument: ParsableArguments {
    @Argument(help: "The journal file to read (never modified).")
    var journal: String
}

/// The options every reading command shares: the journal and the output format.
struct JournalArguments: ParsableArguments {
    @OptionGroup var file: JournalArgument

    @Option(help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    /// The journal file.
    var journal: String { file.journal }
}

/// The options of the commands that also draw (`topology`, `explain`): the journal and an
/// output format that may be a diagram.
struct PictureArguments: ParsableArguments {
    @OptionGroup var file: JournalArgument

    @Option(help: "Output format: table, json, jsonl, csv, dot (Graphviz) or mermaid.")
    var format: PictureFormat = .table

    /// The journal file.
    var journal: String { file.journal }
}

/// The formats of ``PictureArguments``: a table format, or a diagram language.
enum PictureFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv, dot, mermaid

    /// The table format, when it is one.
    var output: OutputFormat? { OutputFormat(rawValue: rawValue) }
    /// The diagram language, when it is one.
    var diagram: Diagram.Format? { Diagram.Format(rawValue: rawValue) }
}
