@testable import EventTreeCommands
import EventTreeTesting
import Foundation
import Testing

/// Output that grows with the journal is written as it is produced, and reads exactly as the
/// same rows rendered at once.
@Suite struct StreamedOutputTests {
    /// Rows that test alignment: control characters, a separator byte, wide and combined
    /// characters, a value past the column limit, NULL, and a last column past its own.
    static func rows(_ count: Int) -> [[Table.Cell]] {
        (0..<count).map { index in
            [
                .integer(index * 7919 % 100_003),
                .text(["Ping", "a\nb\u{1F}c", "café\u{301}", "👩‍👩‍👧", String(repeating: "x", count: 300)][index % 5]),
                index % 11 == 0 ? .null : .text("app/node\(index % 13)"),
                .text(index % 97 == 0 ? String(repeating: "long ", count: 600) : "consumed by guard (App.swift:\(index))"),
            ]
        }
    }

    static let columns = ["event", "type", "origin", "what happened"]

    /// Captures writes, and how many there were.
    final class Writes: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        private var calls = 0
        var terminal: CommandTerminal {
            CommandTerminal(
                write: { text in self.lock.withLock { self.text += text; self.calls += 1 } },
                writeError: { _ in }, isColorful: false, showsProgress: false)
        }
        var output: String { lock.withLock { text } }
        var count: Int { lock.withLock { calls } }
    }

    /// The busy demo of 3,000 raises, recorded in `directory`.
    static func busyJournal(in directory: String) -> String {
        let journal = directory + "/busy.eventtree"
        #expect(runCommand(["demo", "--journal", journal, "--events", "3000", "--format", "csv"]).status == 0)
        return journal
    }

    /// Runs a command, counting its writes.
    static func run(_ arguments: [String]) -> Writes {
        let writes = Writes()
        #expect(EventTreeCommand.run(arguments, terminal: writes.terminal) == 0)
        return writes
    }

    @Test(arguments: [0, 1, 5_000])
    func aSpooledTableReadsAsTheTableHeldAtOnce(rows count: Int) throws {
        let rows = Self.rows(count)
        let writes = Writes()
        let spool = try TableSpool(columns: Self.columns)
        for row in rows { try spool.append(row) }
        #expect(spool.count == count)
        let output = ChunkedOutput(writes.terminal)
        try spool.write(to: output, indent: "  ")
        output.flush()
        let held = Table(columns: Self.columns, rows: rows).rendered(as: .table)
        let indented = held.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  " + $0 }
        #expect(writes.output == indented.joined(separator: "\n"))
    }

    @Test(arguments: [OutputFormat.json, .jsonl, .csv], [0, 1, 2_000])
    func streamedRowsReadAsTheTableRenderedAtOnce(format: OutputFormat, rows count: Int) {
        let rows = Self.rows(count)
        let writes = Writes()
        var stream = RowStream(columns: Self.columns, format: format, to: ChunkedOutput(writes.terminal))
        for row in rows { stream.append(row) }
        stream.finish()
        #expect(writes.output == Table(columns: Self.columns, rows: rows).rendered(as: format))
    }

    @Test func replayWritesAsItGoes() async throws {
        await withTemporaryDirectory { directory in
            let journal = Self.busyJournal(in: directory)
            for format in ["jsonl", "table"] {
                let writes = Self.run(["replay", journal, "--format", format])
                // Hundreds of kilobytes, in chunks of 64 KiB: not held until the end.
                let size = writes.output.utf8.count
                #expect(size > 250_000)
                #expect(writes.count >= size / 65_536)
                let lines = writes.output.split(separator: "\n")
                if format == "jsonl" {
                    #expect(lines.count == 3328)
                } else {
                    // Each class under its name, in order, then the counts.
                    #expect(lines.filter { !$0.hasPrefix("  ") }.map { $0.split(separator: " ")[0] }
                        == ["lost", "failed", "consumed", "unhandled", "delivered", "3328"])
                    #expect(lines.filter { $0.hasPrefix("  event  ") }.count == 5)
                    #expect(lines.count == 1 + 5 * 2 + 3328)
                }
            }
        }
    }

    @Test func aTraceIsWrittenAsItGoes() async throws {
        try await withTemporaryDirectory { directory throws in
            let journal = Self.busyJournal(in: directory)
            let writes = Self.run(["export", journal, "--format", "chrome-trace"])
            // Hundreds of kilobytes, in chunks of 64 KiB: a raise and what it led to at a time.
            let size = writes.output.utf8.count
            #expect(size > 500_000 && writes.count >= size / 65_536, "\(writes.count) writes of \(size) bytes")
            #expect(try JSONSerialization.jsonObject(with: Data(writes.output.utf8)) is [String: Any])
            let target = directory + "/busy.json"
            #expect(runCommand(["export", journal, "--format", "chrome-trace", "-o", target]).status == 0)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == writes.output)
        }
    }

    @Test func aFileIsWrittenInChunksAsItComesAndReplacedOnlyWhenDone() async throws {
        try await withTemporaryDirectory { directory in
            let target = directory + "/out.jsonl"
            try "before\n".write(toFile: target, atomically: true, encoding: .utf8)
            let file = try OutputFile(path: target, notOver: directory + "/app.eventtree")
            // Thousands of appends crossing chunk boundaries, with multi-byte characters.
            let lines = (0..<20_000).map { "{\"n\":\($0),\"s\":\"café 👩‍👩‍👧 \($0 % 7)\"}\n" }
            var seen = ""
            try file.write { append in
                for line in lines { append(line) }
                // Nothing replaces the target before the text is complete.
                seen = try String(contentsOfFile: target, encoding: .utf8)
            }
            #expect(seen == "before\n")
            #expect(try String(contentsOfFile: target, encoding: .utf8) == lines.joined())
            // A failure half way leaves the target as it was, and no new file beside it.
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try file.write { append in
                    for line in lines { append(line) }
                    throw Stop()
                }
            }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == lines.joined())
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.jsonl"])
        }
    }

    @Test func exportToAFileIsWhatItWritesToStandardOutput() async throws {
        try await withTemporaryDirectory { directory throws in
            let journal = directory + "/busy.eventtree"
            #expect(runCommand(["demo", "--journal", journal, "--events", "2000", "--format", "csv"]).status == 0)
            let writes = Writes()
            #expect(EventTreeCommand.run(["export", journal, "--format", "jsonl"], terminal: writes.terminal) == 0)
            let size = writes.output.utf8.count
            #expect(size > 500_000 && writes.count >= size / 65_536 && writes.count < size / 1_000)
            let target = directory + "/busy.jsonl"
            #expect(runCommand(["export", journal, "--format", "jsonl", "-o", target]).status == 0)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == writes.output)
        }
    }

    @Test func queryWritesAsItGoes() async throws {
        try await withTemporaryDirectory { directory throws in
            let journal = Self.busyJournal(in: directory)
            for format in ["csv", "table"] {
                let writes = Self.run(["query", journal, "--format", format])
                let size = writes.output.utf8.count
                #expect(size > 500_000 && writes.count >= size / 65_536)
                // One line per row of delivery_history, after the header.
                let rows = writes.output.split(separator: "\n").count - 1
                let steps = try #require(Int(runCommand(["sessions", journal, "--format", "csv"]).stdout
                    .split(separator: "\n")[1].split(separator: ",")[5]))
                #expect(rows >= steps)
            }
        }
    }
}
