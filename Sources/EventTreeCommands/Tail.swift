import ArgumentParser
import EventTreeJournal
import Foundation

/// `eventtree tail JOURNAL`: print steps as they are journaled.
struct Tail: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the delivery history as it is journaled; --follow keeps watching a live journal.")

    @OptionGroup var options: JournalArguments

    @Option(help: "Start after this many of the last rows (default: all).")
    var last: Int?

    @Flag(help: "Keep printing new rows as the writing process commits them (stop with Ctrl-C).")
    var follow = false

    @Option(help: "With --follow, stop after this many seconds (for scripts).")
    var seconds: Double?

    /// Column widths while following: wide enough for most values (a longer one pushes
    /// only its own row's later columns).
    static let followWidths = [8, 10, 8, 16, 28, 9, 20, 32, 19, 12, 11, 8, 24]

    func validate() throws {
        if follow && options.file.from != nil {
            throw ValidationError("--follow watches a journal file as it is written; a shipped journal is read as of its last ship (drop --follow)")
        }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read(reusingCopy: true) { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let reader = try JournalReader(path: journal)
        var after = 0
        if let last { after = try reader.seqBeforeLastSteps(last) }
        var printedHeader = false
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        repeat {
            var table = Table(columns: DeliveryHistoryReader.columns)
            // Only below the settled seq: a row with a lower seq than one printed may still
            // commit (another thread's raise), and following by seq alone would skip it.
            let settled = follow ? try reader.settledBelow() : Int.max
            if after < settled, after < settled - 1 {
                try DeliveryHistoryReader(reader: reader).forEachRow(where: [], [], seqs: after + 1...settled - 1, limit: nil) { row in
                    table.rows.append(Query.cells(row))
                    after = row.int(0)
                }
            }
            if !table.rows.isEmpty || !printedHeader {
                // Following, columns keep fixed widths, so that later rows line up with earlier ones.
                var text = table.rendered(
                    as: options.format, color: terminal.isColorful, minimumWidths: follow ? Self.followWidths : [])
                if printedHeader, options.format == .table || options.format == .csv {
                    text = String(text.drop { $0 != "\n" }.dropFirst())
                }
                if options.format == .json && follow { text = table.rendered(as: .jsonl) }
                terminal.write(text)
                printedHeader = true
            }
            if follow { Thread.sleep(forTimeInterval: 0.2) }
        } while follow && (deadline.map { Date() < $0 } ?? true)
    }
}
