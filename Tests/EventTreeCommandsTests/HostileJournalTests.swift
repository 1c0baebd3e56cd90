import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Journals crafted to hurt a reader: each gets one `error:` line and exit 2 from every
/// reading command (or exit 0 where the file is fine), never a crash or a hang, and the
/// file and its directory stay exactly as they were.
@Suite struct HostileJournalTests {
    static let commands: [[String]] = [["sessions"], ["replay"], ["topology"], ["query"], ["tail"], ["verify"], ["explain", "-", "43"]]

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
                stderr: "\(bare) was altered (index j_call_runs_by_event is missing from schema version \(Journal.schemaVersion)); it is not read, as its SQL could do anything")
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
