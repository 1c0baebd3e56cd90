import ArgumentParser
import EventTree
import EventTreeJournal

/// `eventtree extract JOURNAL --session ID -o FILE`: one session as a journal of its own.
struct Extract: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one session of a journal to a new journal that verifies on its own (to attach to a bug report).",
        discussion: """
            The new journal holds the session's records exactly as the source does, after a chained \
            record standing for everything before it; its chain passes through the source's \
            checkpoint that ends the session (printed), so 'eventtree verify FILE --expect-head HEAD' \
            ties it to the source. The source is only read. Nothing of other sessions is copied.
            """)

    @Argument(help: "The journal file to read (never modified).", completion: .file())
    var journal: String

    @Option(help: "The session to extract (its id, as 'eventtree sessions' lists it).")
    var session: Int

    @Option(name: [.customShort("o"), .long], help: "The new journal's path (must not exist).", completion: .file())
    var output: String

    mutating func run(on terminal: CommandTerminal) throws {
        _ = try OutputFile(path: output, notOver: journal)
        let extract = try Journal.extract(session: SessionID(rawValue: session), from: journal, to: output)
        terminal.write(extract.line + "\n")
    }
}
