import EventTree
import EventTreeJournal
import EventTreeReport
import EventTreeTesting
import Foundation
import Testing

/// Journals crafted to hurt a reader: each gets one `error:` line and exit 2 from every
/// reading command (or exit 0 where the file is fine), never a crash or a hang, and the
/// file and its directory stay exactly as they were.
@Suite struct HostileJournalTests {
    static let commands: [[String]] = [
        ["sessions"], ["replay"], ["topology"], ["query"], ["tail"], ["verify"], ["explain", "-", "43"],
        ["report", "-", "-o", "-"], ["export", "-", "--format", "jsonl"], ["export", "-", "--format", "chrome-trace"],
    ]

    /// A copy of the demo journal in `directory`, altered by `sql`.
    func demo(_ directory: String, named name: String, altered sql: String) throws -> String {
        let path = directory + "/" + name
        let made = try Tool.run(["demo", "--journal", path], in: directory)
        #expect(made.status == 0)
        try? FileManager.default.removeItem(atPath: path + ".lock")
        sqliteExecute(path, "PRAGMA journal_mode = DELETE; " + sql)
        return path
    }

    /// Runs every reading command on `path`: each refuses with `stderr`, exit 2, and leaves
    /// everything as it was.
    func expectEveryCommandRefuses(_ path: String, in directory: String, stderr: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = FileManager.default.contents(atPath: path)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        for command in Self.commands {
            let arguments = command.count > 1 ? [command[0], path] + command.dropFirst(2) : [command[0], path]
            let result = try Tool.run(arguments, in: directory, timeout: 30)
            #expect(result.status == 2, "\(command[0]): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr == "error: \(stderr)\n", "\(command[0])", sourceLocation: sourceLocation)
            #expect(FileManager.default.contents(atPath: path) == before, sourceLocation: sourceLocation)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == files, sourceLocation: sourceLocation)
        }
    }

    @Test func sqlStoredInTheJournalIsNeverRun() async throws {
        try await withTemporaryDirectory { directory in
            let path = try demo(directory, named: "cte.eventtree", altered: """
                DROP VIEW delivery_history;
                CREATE VIEW delivery_history AS WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever)
                SELECT x AS seq FROM forever;
                """)
            try expectEveryCommandRefuses(path, in: directory,
                stderr: "\(path) was altered (view delivery_history differs from schema version \(Journal.schemaVersion)); it is not read, as its SQL could do anything")
            let trigger = try demo(directory, named: "trigger.eventtree", altered: "CREATE TRIGGER t AFTER INSERT ON j_call_runs BEGIN DELETE FROM j_events; END;")
            try expectEveryCommandRefuses(trigger, in: directory,
                stderr: "\(trigger) was altered (trigger t is not part of schema version \(Journal.schemaVersion)); it is not read, as its SQL could do anything")
            let bare = directory + "/bare.eventtree"
            sqliteExecute(bare, "PRAGMA application_id = \(0x4554_7265); PRAGMA user_version = \(Journal.schemaVersion); CREATE TABLE x (y);")
            try expectEveryCommandRefuses(bare, in: directory,
                stderr: "\(bare) was altered (index j_call_runs_by_end is missing from schema version \(Journal.schemaVersion)); it is not read, as its SQL could do anything")
        }
    }

    /// A journal whose data (not schema) was damaged: the commands that read the damaged
    /// records refuse with `stderr`; the others may answer from what is sound (exit 0);
    /// `verify` names the altered record (exit 1). Nothing crashes, hangs or changes.
    func expectDamageIsCaught(_ path: String, in directory: String, stderr: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = FileManager.default.contents(atPath: path)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        for command in Self.commands {
            let arguments = command.count > 1 ? [command[0], path] + command.dropFirst(2) : [command[0], path]
            let result = try Tool.run(arguments, in: directory, timeout: 30)
            switch command[0] {
            case "replay":
                #expect(result.status == 2, "\(command[0])", sourceLocation: sourceLocation)
                #expect(result.stderr == "error: \(stderr)\n", "\(command[0])", sourceLocation: sourceLocation)
            case "verify":
                #expect(result.status == 1, sourceLocation: sourceLocation)
                #expect(result.stdout.hasPrefix("altered at seq "), sourceLocation: sourceLocation)
            default:
                #expect(result.status == 0 || result.stderr == "error: \(stderr)\n", "\(command[0]): \(result.stderr)", sourceLocation: sourceLocation)
                #expect(result.status == 0 || result.status == 2, sourceLocation: sourceLocation)
            }
            #expect(FileManager.default.contents(atPath: path) == before, sourceLocation: sourceLocation)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == files, sourceLocation: sourceLocation)
        }
    }

    @Test func numbersAndLinksFromTheFileAreCheckedBeforeUse() async throws {
        try await withTemporaryDirectory { directory in
            let huge = try demo(directory, named: "huge.eventtree", altered: "UPDATE j_handlers SET handler_no = 100000000000 WHERE handler_no = 3")
            let id = try #require(Int(try firstValue(huge, "SELECT handler_id FROM j_handlers WHERE handler_no = 100000000000") ?? ""))
            let count = try #require(Int(try firstValue(huge, "SELECT count(*) FROM j_handlers") ?? ""))
            try expectDamageIsCaught(huge, in: directory,
                stderr: "\(huge) is damaged at seq \(id): handler number 100000000000 is outside 1...\(count)")

            let cycle = try demo(directory, named: "cycle.eventtree", altered: "UPDATE j_changes SET parent_id = node_id WHERE seq = (SELECT min(seq) FROM j_changes WHERE change = 1)")
            let attach = try #require(Int(try firstValue(cycle, "SELECT min(seq) FROM j_changes WHERE change = 1") ?? ""))
            try expectDamageIsCaught(cycle, in: directory, stderr: "\(cycle) is damaged at seq \(attach): a node is attached to itself")

            let loop = try demo(directory, named: "loop.eventtree", altered: "UPDATE j_event_details SET transformed_from = event_id WHERE event_id = 77")
            try expectDamageIsCaught(loop, in: directory,
                stderr: "\(loop) is damaged at seq 77: it was transformed from 77, which was not raised before it")

            let mode = try demo(directory, named: "mode.eventtree", altered: "UPDATE j_events SET mode = 99 WHERE event_id = 43")
            try expectDamageIsCaught(mode, in: directory, stderr: "\(mode) is damaged at seq 43: unknown delivery mode 99")
            let result = try demo(directory, named: "result.eventtree", altered: "UPDATE j_events SET result = 99 WHERE event_id = 43")
            try expectDamageIsCaught(result, in: directory, stderr: "\(result) is damaged at seq 43: unknown result 99")

            // Packed calls: a run that is not JSON, and one whose calls end elsewhere than it says.
            let firstRun = "(SELECT min(seq) FROM j_call_runs WHERE seq > 43)"
            let text = try demo(directory, named: "text.eventtree", altered: "UPDATE j_call_runs SET calls = '[[1,2' WHERE seq = \(firstRun)")
            let textRun = try #require(Int(try firstValue(text, "SELECT min(seq) FROM j_call_runs WHERE seq > 43") ?? ""))
            let textLast = try #require(Int(try firstValue(text, "SELECT last_seq FROM j_call_runs WHERE seq = \(textRun)") ?? ""))
            try expectDamageIsCaught(text, in: directory,
                stderr: "\(text) is damaged at seq \(textRun): its run of handler calls is not a JSON array of [handler and code, nanos, offset, skipped] arrays from this seq to \(textLast)")
            let moved = try demo(directory, named: "moved.eventtree", altered: "UPDATE j_call_runs SET last_seq = last_seq + 1 WHERE seq = \(firstRun)")
            let movedRun = try #require(Int(try firstValue(moved, "SELECT min(seq) FROM j_call_runs WHERE seq > 43") ?? ""))
            let movedLast = try #require(Int(try firstValue(moved, "SELECT last_seq FROM j_call_runs WHERE seq = \(movedRun)") ?? ""))
            try expectDamageIsCaught(moved, in: directory,
                stderr: "\(moved) is damaged at seq \(movedRun): its run of handler calls is not a JSON array of [handler and code, nanos, offset, skipped] arrays from this seq to \(movedLast)")
            // The same in an event's row (event 43's call is seq 44, its end 45): a run that is not
            // JSON, and one whose calls go past its event's end.
            let rowText = try demo(directory, named: "row-text.eventtree", altered: "UPDATE j_events SET calls = '[[1,2' WHERE event_id = 43")
            try expectDamageIsCaught(rowText, in: directory,
                stderr: "\(rowText) is damaged at seq 44: its run of handler calls is not a JSON array of [handler and code, nanos, offset, skipped] arrays from this seq before its event's end")
            let rowLong = try demo(directory, named: "row-long.eventtree",
                altered: "UPDATE j_events SET calls = json_insert(calls, '$[#]', json('[466,1522,54]')) WHERE event_id = 43")
            try expectDamageIsCaught(rowLong, in: directory,
                stderr: "\(rowLong) is damaged at seq 44: its run of handler calls is not a JSON array of [handler and code, nanos, offset, skipped] arrays from this seq before its event's end")
        }
    }

    @Test func absurdStoredNumbersAreWrittenNotTrapped() async throws {
        try await withTemporaryDirectory { directory in
            // A REAL past what an Int holds (the trap was at 1e16 microseconds' thousandths),
            // its negative, the edge, and infinity (9e999), which JSON cannot write.
            let startTimes = [("1e300", "1e+300"), ("-1e300", "-1e+300"), ("1e16", "1e+16"), ("9e999", "null"), ("-1.5", "-1.5")]
            for (index, (stored, written)) in startTimes.enumerated() {
                let path = try demo(directory, named: "start-\(index).eventtree", altered: "UPDATE j_sessions SET started_at = \(stored)")
                let lines = try Tool.run(["export", path, "--format", "jsonl"], in: directory)
                #expect(lines.status == 0, "\(stored): \(lines.stderr)")
                #expect(lines.stdout.hasPrefix(#"{"seq":1,"record":"session_started","session":1,"started_at":\#(written),"process":"eventtree-demo","#), "\(stored)")
                for line in lines.stdout.split(separator: "\n") {
                    #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(stored): \(line)")
                }
                let file = directory + "/start-\(index).jsonl"
                let saved = try Tool.run(["export", path, "--format", "jsonl", "-o", file], in: directory)
                #expect(saved.status == 0 && FileManager.default.contents(atPath: file) == Data(lines.stdout.utf8), "\(stored)")
                try expectEveryFormatExitsCleanly(path, in: directory, "\(stored)")
            }
            // Raise times at both ends of an Int: the report's first-to-last span cannot be
            // subtracted, the trace's times are past what a Double holds exactly.
            let times = try demo(directory, named: "times.eventtree", altered: """
                UPDATE j_events SET raised_us = 9223372036854775807 WHERE event_id = (SELECT max(event_id) FROM j_events);
                UPDATE j_events SET raised_us = -9223372036854775808 WHERE event_id = (SELECT min(event_id) FROM j_events);
                """)
            try expectEveryFormatExitsCleanly(times, in: directory, "raised_us")
            let trace = try Tool.run(["export", times, "--format", "chrome-trace"], in: directory)
            #expect(trace.stdout.contains(#""ts":9.223372036854776e+18"#) && trace.stdout.contains(#""ts":-9.223372036854776e+18"#))
        }
    }

    /// Runs `export` in both formats, `report` and `sessions` in every format on `path`:
    /// each exits 0 with JSON that parses, whatever number the journal holds.
    func expectEveryFormatExitsCleanly(_ path: String, in directory: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let runs: [[String]] = [["export", path, "--format", "chrome-trace"], ["report", path, "-o", "-"], ["replay", path]]
            + ["table", "json", "jsonl", "csv"].map { ["sessions", path, "--format", $0] }
        for arguments in runs {
            let result = try Tool.run(arguments, in: directory, timeout: 60)
            #expect(result.status == 0, "\(what): \(arguments[0]) \(arguments.last ?? ""): \(result.stderr)", sourceLocation: sourceLocation)
            if arguments[0] == "export" {
                #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "\(what)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A node created again while its parent still lists it, then that parent attached
    /// under it: the children lists loop (tabs → profile → tabs). A report whose window
    /// starts after it rebuilds that tree, and must not walk the loop for ever.
    @Test func childrenThatLoopDoNotHangTheReport() async throws {
        try await withTemporaryDirectory { directory in
            let path = try demo(directory, named: "loop.eventtree", altered: """
                INSERT INTO j_changes (seq, node_id, change, parent_id, position, name) VALUES (102, 13, 0, NULL, NULL, 'profile');
                INSERT INTO j_changes (seq, node_id, change, parent_id, position, name) VALUES (103, 3, 1, 13, 0, NULL);
                """)
            let report = try Tool.run(["report", path, "--window", "1", "-o", "-"], in: directory, timeout: 30)
            #expect(report.status == 0, "\(report.status): \(report.stderr)")
            #expect(report.stdout.contains("\"start\":"))
        }
    }

    @Test func aWalLeftWithoutItsShmIsReadWithoutCreatingAnythingBesideIt() async throws {
        try await withTemporaryDirectory { directory in
            let live = directory + "/live.eventtree"
            let journal = try Journal(path: live)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            for index in 0..<20 { app.raise(NamedEvent("e\(index)")) }
            try journal.flush()
            // What a crashed writer leaves: the file and its -wal, no -shm, no lock.
            let crashed = directory + "/crashed"
            try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: live, toPath: crashed + "/left.eventtree")
            try FileManager.default.copyItem(atPath: live + "-wal", toPath: crashed + "/left.eventtree-wal")
            try journal.close()
            _ = app
            let files = try FileManager.default.contentsOfDirectory(atPath: crashed).sorted()
            let result = try Tool.run(["query", crashed + "/left.eventtree", "--format", "csv"], in: crashed, timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 21)
            #expect(try FileManager.default.contentsOfDirectory(atPath: crashed).sorted() == files)
            // A -wal of garbage beside a sound journal is ignored by SQLite, and creates nothing either.
            let sound = try demo(directory, named: "sound.eventtree", altered: "")
            try Data((0..<9_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: sound + "-wal"))
            let around = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            let garbage = try Tool.run(["sessions", sound], in: directory, timeout: 30)
            #expect(garbage.status == 0, "\(garbage.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == around)
        }
    }

    @Test func oddButSoundJournalsAreReadAsUsual() async throws {
        try await withTemporaryDirectory { directory in
            // A name SQLite would read as URI parameters if it were a URI.
            let odd = directory + "/demo?mode=rwc.eventtree"
            #expect(try Tool.run(["demo", "--journal", odd], in: directory).status == 0)
            try? FileManager.default.removeItem(atPath: odd + ".lock")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            let replay = try Tool.run(["replay", odd], in: directory, timeout: 30)
            #expect(replay.status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == files)
            // A huge payload and text that is not UTF-8 are only data.
            let big = directory + "/big.eventtree"
            let journal = try Journal(path: big)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.raise(NamedEvent("huge", ["blob": String(repeating: "x", count: 5_000_000)]))
            try journal.close()
            _ = app
            sqliteExecute(big, "UPDATE j_types SET name = CAST(x'C328FF41' AS TEXT) WHERE type_id = 1")
            for command in ["replay", "query", "sessions", "topology"] {
                let result = try Tool.run([command, big], in: directory, timeout: 60)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let verify = try Tool.run(["verify", big], in: directory, timeout: 60)
            #expect(verify.status == 1)
            #expect(verify.stdout.hasPrefix("altered at seq "))
        }
    }
}

/// The first column of a query's first row, read with the plain C API.
func firstValue(_ path: String, _ sql: String) throws -> String? {
    try JournalReader(path: path).rows(sql).first?.first?.description
}

// MARK: Hostile text

/// An event whose recorded type name tries to drive a terminal and to open a Mermaid
/// `config:` block or directive.
struct HostileEvent: Event {
    static var eventTypeName: String {
        "Hostile\u{1B}[2J\u{1B}]0;pwned\u{07}\nconfig:\n  securityLevel: loose\n%%{init: {\"securityLevel\": \"loose\"}}%%\"]; evil [label=\"x"
    }
    var text = ""
}

/// An error whose message clears the screen and adds a line.
struct HostileError: Error, CustomStringConvertible {
    var description: String { "boom\r\n\u{1B}[2Jfake error line" }
}

extension HostileJournalTests {
    /// Node names, labels, a location, a type name, an error message, a process name and an
    /// app version, each written to hurt a terminal, a spreadsheet or a diagram.
    static let escapeName = "\u{1B}[31mred\u{1B}[0m\n  fake-child"
    static let formulaName = "=HYPERLINK(\"http://evil.example\",\"click\")"
    static let bidiName = "\u{202E}exe.txt\u{2066}\u{9B}31m\u{85}\u{2028}fake"
    static let hugeName = String(repeating: "x", count: 10_000_000)
    static let escapeLabel = "\u{1B}]0;pwned\u{07}label\r\nfake row"
    static let formulaLocation = "@SUM(1+1)*cmd|' /C calc'!A0"

    /// Records the hostile session into `directory`/hostile.eventtree; returns the path and
    /// the id of the event raised at the node with escapes in its name.
    func hostileJournal(in directory: String) throws -> (path: String, event: Int) {
        let path = directory + "/hostile.eventtree"
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal, appVersion: "-2+3", process: "\u{1B}]0;x\u{07}proc\nfake process")
        let app = EventNode("app", bus: bus)
        let escape = EventNode(Self.escapeName, parent: app)
        let formula = EventNode(Self.formulaName, parent: app)
        let bidi = EventNode(Self.bidiName, parent: app)
        let huge = EventNode(Self.hugeName, parent: app)
        escape.on(HostileEvent.self, label: Self.escapeLabel, fileID: Self.formulaLocation) { _, _ in .handled }
        formula.on(HostileEvent.self, label: "+cmd|' /C calc'!A0") { _, _ in throw HostileError() }
        bidi.on(HostileEvent.self, label: "-1+1") { _, _ in .ignored }
        huge.on(HostileEvent.self, label: "\tleading tab") { _, _ in .consumed }
        escape.raise(HostileEvent(text: "\u{1B}[2J"))
        formula.raise(HostileEvent())
        bidi.raise(HostileEvent())
        huge.raise(HostileEvent())
        try journal.close()
        _ = (app, escape, formula, bidi, huge)
        try? FileManager.default.removeItem(atPath: path + ".lock")
        let event = try #require(Int(try firstValue(path, "SELECT min(event_id) FROM event_history") ?? ""))
        return (path, event)
    }

    /// Whether `scalar` could drive a terminal or reorder text (a line feed is the
    /// output's own).
    static func isHostile(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Text for people: no control or reordering character, no fake line, and short
    /// however long a recorded value is.
    func expectInert(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.unicodeScalars.contains(where: Self.isHostile), "\(what)", sourceLocation: sourceLocation)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for fake in ["fake", "config:", "securityLevel", "%%"] {
            #expect(!lines.contains { $0.hasPrefix(fake) }, "\(what): a line starts with \(fake)", sourceLocation: sourceLocation)
        }
        #expect(text.utf8.count < 200_000, "\(what): \(text.utf8.count) bytes", sourceLocation: sourceLocation)
        #expect(lines.allSatisfy { $0.count < 3_000 }, "\(what)", sourceLocation: sourceLocation)
    }

    /// The fields of CSV text (RFC 4180).
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" { field += "\"" } else { quoted = false; pending = next }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",": row.append(field); field = ""
            case "\n": row.append(field); rows.append(row); row = []; field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        return rows
    }

    /// CSV whose cells a spreadsheet reads as values: none that starts a formula, other
    /// than a number; `quotedFormulas` each appear as a cell `'` + the text.
    func expectNeutralCSV(_ text: String, _ what: String, rows expected: Int, quotedFormulas: [String] = [],
                          sourceLocation: SourceLocation = #_sourceLocation) {
        let rows = Self.csvRows(text)
        #expect(rows.count == expected + 1, "\(what)", sourceLocation: sourceLocation)
        #expect(Set(rows.map(\.count)).count == 1, "\(what): rows of different lengths", sourceLocation: sourceLocation)
        let cells = rows.flatMap { $0 }
        for cell in cells {
            guard let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { continue }
            #expect(Double(cell) != nil, "\(what): the cell \(cell.prefix(80).debugDescription) starts a formula", sourceLocation: sourceLocation)
        }
        for formula in quotedFormulas {
            #expect(cells.contains("'" + formula), "\(what): \(formula.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test func recordedTextCannotDriveATerminalASpreadsheetOrADiagram() async throws {
        try await withTemporaryDirectory { directory in
            let (path, event) = try hostileJournal(in: directory)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            let before = FileManager.default.contents(atPath: path)
            func run(_ arguments: [String]) throws -> String {
                let result = try Tool.run(arguments, in: directory, timeout: 120)
                #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
                #expect(FileManager.default.contents(atPath: path) == before)
                return result.stdout
            }
            let commands: [(arguments: [String], formats: [String])] = [
                (["sessions", path], ["table", "json", "jsonl", "csv"]),
                (["replay", path], ["table", "json", "jsonl", "csv"]),
                (["topology", path], ["table", "json", "jsonl", "csv", "dot", "mermaid"]),
                (["query", path], ["table", "json", "jsonl", "csv"]),
                (["tail", path], ["table", "json", "jsonl", "csv"]),
                (["explain", path, String(event)], ["table", "json", "jsonl", "csv", "dot", "mermaid"]),
                (["explain", path, String(event), "--node", "app/" + Self.escapeName, "--verbose"], ["table"]),
            ]
            for (arguments, formats) in commands {
                let what = arguments[0]
                let json = try run(arguments + ["--format", "json"])
                let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
                let count = (parsed as? [Any])?.count ?? 1
                for format in formats {
                    let output = format == "json" ? json : try run(arguments + ["--format", format])
                    switch format {
                    case "table": expectInert(output, "\(what) table")
                    case "csv":
                        // explain's CSV is its route, one row per step.
                        let rows = what == "explain" ? Self.csvRows(output).count - 1 : count
                        expectNeutralCSV(output, "\(what) csv", rows: rows)
                    case "jsonl":
                        let lines = output.split(separator: "\n")
                        #expect(lines.count == count, "\(what) jsonl")
                        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil) }
                    case "dot":
                        expectInert(output, "\(what) dot")
                        let statements = output.split(separator: "\n")
                        let shapes = ["digraph ", "  graph [", "  node [", "  edge [", "  n", "  subgraph ", "    label=", "    e", "  }", "}"]
                        for line in statements {
                            #expect(shapes.contains { line.hasPrefix($0) }, "\(what) dot: \(line.prefix(80))")
                        }
                        if ExternalTool.available("dot"), let dot = ExternalTool.find("dot") {
                            let file = directory + "/picture.dot"
                            try output.write(toFile: file, atomically: true, encoding: .utf8)
                            let rendered = try dot.run(["-Tsvg", file])
                            #expect(rendered.status == 0, "\(rendered.stderr)")
                            try FileManager.default.removeItem(atPath: file)
                        }
                    case "mermaid":
                        expectInert(output, "\(what) mermaid")
                        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
                        // The front matter is three lines; its title one quoted YAML string.
                        #expect(lines[0] == "---" && lines[2] == "---" && lines[3] == "flowchart TD", "\(what) mermaid")
                        #expect(lines[1].hasPrefix("title: \"") && lines[1].hasSuffix("\""))
                        #expect(!lines[1].dropFirst(8).dropLast().replacingOccurrences(of: "\\\\", with: "").replacingOccurrences(of: "\\\"", with: "").contains("\""))
                        #expect(lines.dropFirst(4).allSatisfy { $0.isEmpty || $0.hasPrefix("  ") }, "\(what) mermaid")
                        #expect(!output.contains("%%{"))
                    default: break
                    }
                }
            }
            // Exactly what people see.
            let tree = try run(["topology", path]).split(separator: "\n").dropFirst().map(String.init)
            #expect(tree == [
                "app",
                #"  \e[31mred\e[0m\n  fake-child  [1 handler: \e]0;pwned\u{7}label\r\nfake row]"#,
                #"  =HYPERLINK("http://evil.example","click")  [1 handler: +cmd|' /C calc'!A0]"#,
                #"  \u{202E}exe.txt\u{2066}\u{9B}31m\u{85}\u{2028}fake  [1 handler: -1+1]"#,
                "  " + String(repeating: "x", count: VisibleText.limit - 1) + #"…  [1 handler: \tleading tab]"#,
            ])
            let mermaid = try run(["explain", path, String(event), "--format", "mermaid"]).split(separator: "\n")
            #expect(mermaid[1] == #"title: "event \#(event) Hostile\\e[2J\\e]0;pwned\\u{7}\\nconfig:\\n  securityLevel: loose\\n\x25\x25{init: {\"securityLevel\": \"loose\"}}\x25\x25\"]; evil [label=\"x (bubble): delivered: 1 handler call""#)
            // Machine formats keep every value whole.
            let nodes = try #require(try JSONSerialization.jsonObject(with: Data(run(["topology", path, "--format", "json"]).utf8)) as? [[String: Any]])
            #expect(Set(nodes.compactMap { $0["name"] as? String }) == ["app", Self.escapeName, Self.formulaName, Self.bidiName, Self.hugeName])
            let csv = Self.csvRows(try run(["topology", path, "--format", "csv"]))
            #expect(csv.contains { $0[2] == Self.hugeName })
            #expect(csv.contains { $0[2] == "'" + Self.formulaName })
            let calls = Self.csvRows(try run(["query", path, "--format", "csv"]))
            #expect(calls.contains { $0[6] == Self.escapeLabel && $0[7].hasPrefix("'" + Self.formulaLocation) })
            #expect(calls.contains { $0[6] == "'+cmd|' /C calc'!A0" } && calls.contains { $0[6] == "'-1+1" } && calls.contains { $0[6] == "'\tleading tab" })
            let sessions = Self.csvRows(try run(["sessions", path, "--format", "csv"]))
            #expect(sessions.last?[8] == "'-2+3")
            let records = try run(["export", path, "--format", "jsonl"]).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(Set(records.compactMap { $0["name"] as? String }) == ["app", Self.escapeName, Self.formulaName, Self.bidiName, Self.hugeName])
            #expect(records.contains { $0["label"] as? String == Self.escapeLabel && ($0["location"] as? String)?.hasPrefix(Self.formulaLocation + ":") == true })
            #expect(records.contains { $0["event_type"] as? String == HostileEvent.eventTypeName })
            let trace = try #require(try JSONSerialization.jsonObject(with: Data(run(["export", path, "--format", "chrome-trace"]).utf8)) as? [String: Any])
            let slices = try #require(trace["traceEvents"] as? [[String: Any]])
            #expect(slices.contains { $0["name"] as? String == Self.escapeLabel })
            #expect(slices.contains { $0["name"] as? String == HostileEvent.eventTypeName })
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == files)
        }
    }
}
