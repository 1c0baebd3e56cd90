import ArgumentParser
import EventTree
import EventTreeReport
import Foundation

/// `eventtree report JOURNAL`: one session as a self-contained HTML page.
struct Report: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one session as a self-contained HTML page: summary, tree through time, event timeline, routes.",
        discussion: """
            The page needs no network (inline CSS and script) and opens from file://. Its numbers are \
            `eventtree replay`'s. Open it with `#event=ID` after the file name to select an event.
            """)

    @OptionGroup var file: JournalArgument

    @Option(help: "The session (default: the last one).")
    var session: Int?

    @Option(name: .shortAndLong, help: "The page to write (default: the journal's name with .html; - for standard output).")
    var output: String?

    mutating func run(on terminal: CommandTerminal) throws {
        try file.read { journal in try write(journal, on: terminal) }
    }

    private func write(_ journal: String, on terminal: CommandTerminal) throws {
        let target = output ?? Self.defaultOutput(for: journal)
        let file = target == "-" ? nil : try OutputFile(path: target, notOver: journal)
        let report = try SessionReport(journal: journal, session: session.map(SessionID.init))
        let html = report.html()
        guard let file else {
            terminal.write(html)
            return
        }
        try file.write(html)
        let size = html.utf8.count
        let shown = size < 10_000 ? "\(size) bytes" : size < 10_000_000 ? "\(size / 1_000) KB" : "\(size / 1_000_000) MB"
        terminal.write("Wrote the report of session \(report.session.id.rawValue) (\(report.events) events) to \(target) (\(shown)).\n")
    }

    /// `app.eventtree` → `app.html`, in the current directory.
    static func defaultOutput(for journal: String) -> String {
        let name = URL(fileURLWithPath: journal).lastPathComponent
        let stem = name.hasSuffix(".eventtree") ? String(name.dropLast(".eventtree".count)) : name
        return stem + ".html"
    }
}
