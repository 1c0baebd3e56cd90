import ArgumentParser
import EventTreeJournal
import EventTreeReplay

/// `eventtree sessions JOURNAL`: one line per session.
struct Sessions: TerminalCommand {
    static let configuration = CommandConfiguration(abstract: "List a journal's sessions.")

    @OptionGroup var options: JournalArguments

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read(reusingCopy: true) { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let reader = try JournalReader(path: journal)
        // Asked before and after reading: a writer that closed in between ended its sessions.
        let wasWritten = reader.isBeingWritten
        let sessions = try reader.sessions()
        let table = Table(
            columns: ["session_id", "started_at", "ended_at", "process", "events", "steps", "dropped", "host", "app_version"],
            rows: sessions.map { session in
                [.integer(session.id.rawValue), .text(session.startedAt), .init(session.endedAt), .text(session.process),
                 .integer(session.events), .integer(session.steps), .integer(session.dropped), .text(session.host),
                 .init(session.appVersion)]
            })
        terminal.write(table.rendered(as: options.format, color: terminal.isColorful))
        // A table says what retention removed before its first row (the other formats are data).
        let pruned = try reader.latestPrune()
        if options.format == .table, let pruned {
            let sessions = pruned.sessions == 1 ? "1 earlier session was" : "\(pruned.sessions) earlier sessions were"
            terminal.write("(\(sessions) pruned, through seq \(pruned.throughSeq), by \(pruned.reason))\n")
        }
        // A session without an end whose journal no writer holds was cut short: say so, and
        // what it means, rather than let an empty or short table pass for the whole story. (A
        // fleet copy has no writer to ask: its journal may still be written where it lives.)
        if options.format == .table, options.file.from == nil, !wasWritten, !reader.isBeingWritten {
            terminal.write(Self.unendedNote(
                sessions.filter { $0.endedAt == nil }.map(\.id.rawValue), total: sessions.count, pruned: pruned != nil))
        }
    }

    /// What a table adds about sessions that did not end (`unended`), or about a journal
    /// with no session at all (unless retention removed them: `pruned`); empty when every
    /// session ended.
    static func unendedNote(_ unended: [Int], total: Int, pruned: Bool = false) -> String {
        if total == 0 {
            if pruned { return "" }
            return "(no sessions: nothing was recorded, or the process that opened the journal stopped before its first write)\n"
        }
        guard !unended.isEmpty else { return "" }
        let named = unended.count == 1
            ? "session \(unended[0]) did not end"
            : "sessions " + unended.map(String.init).joined(separator: ", ") + " did not end"
        return "(\(named): the process that recorded \(unended.count == 1 ? "it" : "them") stopped without closing the journal "
            + "(a crash, or the process was killed), and records it had not written yet are lost)\n"
    }
}
