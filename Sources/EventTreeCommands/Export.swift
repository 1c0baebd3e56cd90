import ArgumentParser
import EventTree
import EventTreeReport
import Foundation

/// `eventtree export JOURNAL --format chrome-trace|jsonl`: the journal for other tools.
struct Export: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a journal for other tools: a trace for Perfetto and chrome://tracing, or JSON Lines.",
        discussion: """
            chrome-trace: the Trace Event format (JSON); each session a process, each thread a track (and one \
            each for raises on the main actor and awaited raises), a slice per raise and per handler call, arrows from raises to their calls and from causes to what they \
            raised. jsonl: every record, one JSON object per line, in seq order.
            """)

    /// What `export` writes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case chromeTrace = "chrome-trace"
        case jsonl
    }

    @OptionGroup var file: JournalArgument

    @Option(help: "chrome-trace or jsonl.")
    var format: Format

    @Option(help: "Export only this session (chrome-trace; default: every session).")
    var session: Int?

    @Option(name: .shortAndLong, help: "The file to write (default, or -: standard output).")
    var output: String?

    mutating func run(on terminal: CommandTerminal) throws {
        try file.read { journal in try write(journal, on: terminal) }
    }

    private func write(_ journal: String, on terminal: CommandTerminal) throws {
        if session != nil && format == .jsonl {
            throw ValidationError("--session applies to chrome-trace; jsonl exports every record")
        }
        let file = try output.flatMap { $0 == "-" ? nil : try OutputFile(path: $0, notOver: journal) }
        // Written as it comes: a record's line at a time for jsonl, a raise and what it led
        // to at a time for chrome-trace, never the whole export.
        let produce: ((String) -> Void) throws -> Void = { [format, session] append in
            switch format {
            case .chromeTrace:
                try TraceExport(journal: journal, session: session.map(SessionID.init)).write(append)
            case .jsonl:
                try RecordLines(journal: journal).write(append)
            }
        }
        if let file {
            try file.write(produce)
        } else {
            let output = ChunkedOutput(terminal)
            try produce(output.write)
            output.flush()
        }
    }
}
