import ArgumentParser
import EventTree
import EventTreeReplay
import EventTreeReport

/// `eventtree topology JOURNAL`: the tree at a moment, indented, with handler counts.
struct Topology: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the tree of a session as it stood at a seq, with its handlers.")

    @OptionGroup var options: PictureArguments

    @Option(help: "The session (default: the last one).")
    var session: Int?

    @Option(help: "Show the tree as it stood at this seq (default: the session's last change).")
    var at: Int?

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read(reusingCopy: true) { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let snapshot = try Replayer.topology(ofJournal: journal, session: session.map(SessionID.init), at: at)
        if let diagram = options.format.diagram {
            terminal.write(Diagram(tree: snapshot).rendered(as: diagram))
            return
        }
        let format = options.format.output ?? .table
        guard format == .table else {
            let table = Table(
                columns: ["node_id", "path", "name", "depth", "handlers"],
                rows: snapshot.nodes.map { node in
                    [.integer(node.id.rawValue), .text(node.path), .text(node.name), .integer(node.depth),
                     .integer(node.handlers.count)]
                })
            terminal.write(table.rendered(as: format))
            return
        }
        // Names and labels as VisibleText shows them: a line break in one cannot draw a node.
        var text = "session \(snapshot.session.rawValue) at seq \(snapshot.seq)\n"
        for node in snapshot.nodes {
            let handlers = node.handlers.isEmpty
                ? "" : "  [\(node.handlers.count) handler\(node.handlers.count == 1 ? "" : "s"): \(VisibleText.shown(node.handlers.joined(separator: ", "), limit: VisibleText.lineLimit))]"
            text += String(repeating: "  ", count: node.depth) + VisibleText.shown(node.name) + handlers + "\n"
        }
        terminal.write(text)
    }
}
