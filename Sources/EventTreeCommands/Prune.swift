import ArgumentParser
import EventTreeJournal

/// `eventtree prune JOURNAL --max-size … --max-age … --keep-sessions …`: removes the
/// oldest closed sessions, as a writer's retention limits would.
struct Prune: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove a journal's oldest sessions, in place, leaving a chained record of what went.",
        discussion: """
            Removes whole sessions, oldest first, until the journal is within every limit given; \
            the file shrinks. A chained record says what was removed (the journal_prunes view), and \
            'eventtree verify' proves the rest from it. Like 'upgrade', this writes the journal: it \
            refuses one a writer holds open. Exits 0 whether or not anything was removed.
            """)

    @Argument(help: "The journal file to prune.", completion: .file())
    var journal: String

    @Option(help: "Keep the journal below this size (512k, 5MiB, 1G; bytes without a unit).")
    var maxSize: ByteSize?

    @Option(help: "Remove sessions that ended longer ago than this (90s, 30m, 6h, 7d).")
    var maxAge: AgeLimit?

    @Option(help: "Keep the newest N sessions.")
    var keepSessions: Int?

    mutating func validate() throws {
        if maxSize == nil && maxAge == nil && keepSessions == nil {
            throw ValidationError("give at least one limit: --max-size, --max-age or --keep-sessions")
        }
        if let keepSessions, keepSessions < 0 { throw ValidationError("--keep-sessions takes a count of 0 or more") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        // Read first: a file that is not a journal is refused before it is opened to write.
        _ = try JournalReader(path: journal)
        var options = JournalOptions()
        options.retention = JournalRetention(
            maximumSize: maxSize?.bytes, maximumSessionAge: maxAge?.duration, maximumSessions: keepSessions)
        let opened = try Journal(path: journal, options: options)
        let prune = opened.openingPrune
        try opened.close()
        terminal.write((prune?.line ?? "nothing to prune: \(journal) is within its limits (or its oldest session is under way)") + "\n")
    }
}
