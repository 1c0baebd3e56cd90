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
            `eventtree replay`'s. Open it with `#event=ID` after the file name to select an event. \
            The counts cover the whole session; the timeline, the routes and the tree through time hold \
            a window of it (the last 10,000 events unless --window or --around say otherwise), so a \
            session of any length makes a page a browser opens.
            """)

    @OptionGroup var file: JournalArgument

    @Option(help: "The session (default: the last one).")
    var session: Int?

    @Option(help: "How many events the timeline holds (default: 10,000).")
    var window: Int?

    @Option(help: "Hold the events around this one in the timeline, and select it (its session is reported).")
    var around: Int?

    @Option(name: .shortAndLong, help: "The page to write (default: the journal's name with .html; - for standard output).")
    var output: String?

    mutating func validate() throws {
        if let window, window < 1 { throw ValidationError("--window takes a number of events, 1 or more") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try file.read { journal in try write(journal, on: terminal) }
    }

    private func write(_ journal: String, on terminal: CommandTerminal) throws {
        let target = output ?? Self.defaultOutput(for: journal)
        let file = target == "-" ? nil : try OutputFile(path: target, notOver: journal)
        let count = window ?? SessionReport.Window.standard.count
        let report = try SessionReport(
            journal: journal, session: session.map(SessionID.init),
            window: around.map { .around(EventID(rawValue: $0), count: count) } ?? .last(count))
        let html = report.html()
        guard let file else {
            terminal.write(html)
            return
        }
        try file.write(html)
        let size = html.utf8.count
        let shown = size < 10_000 ? "\(size) bytes" : size < 10_000_000 ? "\(size / 1_000) KB" : "\(size / 1_000_000) MB"
        let held = report.holdsEveryEvent ? "" : "; the timeline holds \(report.timelineRange)"
        let selected = around.map { "#event=\($0)" } ?? ""
        terminal.write("Wrote the report of session \(report.session.id.rawValue) (\(report.events) events\(held)) to \(target)\(selected) (\(shown)).\n")
    }

    /// `app.eventtree` → `app.html`, in the current directory.
    static func defaultOutput(for journal: String) -> String {
        let name = URL(fileURLWithPath: journal).lastPathComponent
        let stem = name.hasSuffix(".eventtree") ? String(name.dropLast(".eventtree".count)) : name
        return stem + ".html"
    }
}
