import ArgumentParser

/// The options every reading command shares: the journal and the output format.
struct JournalArguments: ParsableArguments {
    @Argument(help: "The journal file to read (never modified).")
    var journal: String

    @Option(help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table
}
