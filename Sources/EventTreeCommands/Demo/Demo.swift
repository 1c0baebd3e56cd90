import ArgumentParser
import EventTreeJournal
import Foundation

/// `eventtree demo`: records the built-in demo session into a journal and lists its events.
struct Demo: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the built-in demo app's session into a journal, then list its events.",
        discussion: "An existing journal at the path is replaced; any other file there is left alone.")

    @Option(name: .long, help: "Where to write the journal.")
    var journal = "eventtree-demo.eventtree"

    @Option(help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    @Option(help: "Record a busy session instead: this many raises by the app (transforms, nested raises and errors come on top), 53 nodes, every verdict; to try the commands and the report at scale.")
    var events: Int?

    @Option(help: "How many sessions to record into the journal, one after another (each a bus of its own); to try sessions, diff and the other commands across sessions.")
    var sessions = 1

    mutating func validate() throws {
        if let events, events <= 0 { throw ValidationError("--events takes a positive number") }
        guard sessions > 0 else { throw ValidationError("--sessions takes a positive number") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try Self.replaceExistingJournal(at: journal)
        let recorder = try Journal(path: journal)
        for _ in 0..<sessions {
            if let events {
                BusyScenario.run(recording: recorder, events: events)
            } else {
                DemoScenario.run(recording: recorder)
            }
        }
        try recorder.close()
        let kind = events == nil ? "demo" : "busy demo"
        let what = sessions == 1 ? (events == nil ? "the" : "a") + " \(kind) session" : "\(sessions) \(kind) sessions"
        if events != nil {
            let reader = try JournalReader(path: journal)
            let raises = try reader.rows("SELECT count(*) FROM event_history").first?.first?.int ?? 0
            terminal.write("""
                Recorded \(what) into \(journal): \(raises) raises.

                Next, read it back:
                  eventtree replay \(journal)
                  eventtree report \(journal)        (then open \(Report.defaultOutput(for: journal)) in a browser)

                """)
            return
        }
        let reader = try JournalReader(path: journal)
        var table = Table(columns: (sessions == 1 ? [] : ["session_id"]) + ["event_id", "event_type", "kind", "mode", "origin_path", "result"])
        var produced = 0
        try reader.forEachRow("""
            SELECT event_id, event_type, kind, mode, origin_path, result, transformed_from_event_id IS NOT NULL, session_id
            FROM event_history ORDER BY event_id
            """
        ) { row in
            produced += row.int(6)
            table.rows.append((sessions == 1 ? [] : [.integer(row.int(7))]) + [
                .integer(row.int(0)), .init(row.text(1)), .init(row.text(2)), .init(row.text(3)), .init(row.text(4)),
                .init(row.text(5)),
            ])
        }
        guard format == .table else {
            terminal.write(table.rendered(as: format))
            return
        }
        let raises = table.rows.count
        terminal.write(
            "Recorded \(what) into \(journal): \(raises) raises (\(raises - produced) events, "
                + "\(produced) produced by a transform).\n\n")
        terminal.write(table.rendered(as: .table, color: terminal.isColorful))
        terminal.write("""

            Next, read it back:
              eventtree sessions \(journal)
              eventtree replay \(journal)
              eventtree topology \(journal)
              eventtree report \(journal)        (then open \(Report.defaultOutput(for: journal)) in a browser)
              sqlite3 \(journal) 'SELECT * FROM delivery_history'

            """)
    }

    /// Removes a journal (and its -wal, -shm and .lock files) left by an earlier run;
    /// refuses to touch a file that is not a journal.
    static func replaceExistingJournal(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            _ = try JournalReader(path: path)
        } catch where [.empty, .olderVersion, .newerVersion, .editedMigration].contains(error.code) {
            // An empty file holds nothing to lose; a demo journal of another version is a journal.
        } catch {
            throw CommandFailure(message: "\(path) exists and is not an EventTree journal (\(error)); choose another path with --journal")
        }
        for suffix in ["", "-wal", "-shm", ".lock"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
