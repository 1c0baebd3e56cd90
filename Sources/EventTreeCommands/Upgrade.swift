import ArgumentParser
import EventTreeJournal

/// `eventtree upgrade JOURNAL`: migrates a journal written by an older EventTree.
struct Upgrade: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upgrade a journal written by an older EventTree to this version's schema, in place.",
        discussion: """
            Runs the schema migrations the journal lacks, in one transaction each, keeping every row \
            (an app that opens the journal for writing does the same). The other commands read only \
            the current schema, and never change a file.
            """)

    @Argument(help: "The journal file to upgrade.", completion: .file())
    var journal: String

    mutating func run(on terminal: CommandTerminal) throws {
        let before: Int
        do {
            before = try JournalReader(path: journal).schemaVersion
        } catch {
            guard error.code == .olderVersion, let found = error.schemaVersion else { throw error }
            before = found
        }
        guard before < Journal.schemaVersion else {
            terminal.write("\(journal) already has schema version \(before); nothing to do.\n")
            return
        }
        try Journal(path: journal).close()
        terminal.write("Upgraded \(journal) from schema version \(before) to \(Journal.schemaVersion).\n")
    }
}
