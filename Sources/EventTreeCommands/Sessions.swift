import ArgumentParser
import EventTreeJournal
import EventTreeReplay

/// `eventtree sessions JOURNAL`: one line per session.
struct Sessions: TerminalCommand {
    static let configuration = CommandConfiguration(abstract: "List a journal's sessions.")

    @OptionGroup var options: JournalArguments

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let reader = try JournalReader(path: journal)
        let table = Table(
            columns: ["session_id", "started_at", "ended_at", "process", "events", "steps", "dropped", "host", "app_version"],
            rows: try reader.sessions().map { session in
                [.integer(session.id.rawValue), .text(session.startedAt), .init(session.endedAt), .text(session.process),
                 .integer(session.events), .integer(session.steps), .integer(session.dropped), .text(session.host),
                 .init(session.appVersion)]
            })
        terminal.write(table.rendered(as: options.format, color: terminal.isColorful))
        // A table says what retention removed before its first row (the other formats are data).
        if options.format == .table, let pruned = try reader.latestPrune() {
            let sessions = pruned.sessions == 1 ? "1 earlier session was" : "\(pruned.sessions) earlier sessions were"
            terminal.write("(\(sessions) pruned, through seq \(pruned.throughSeq), by \(pruned.reason))\n")
        }
    }
}
