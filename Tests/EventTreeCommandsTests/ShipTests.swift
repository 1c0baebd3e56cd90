#if PostgreSQL
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// `eventtree ship` against a real PostgreSQL server: the one Scripts/postgres.sh starts
/// (EVENTTREE_POSTGRES_URL). Each test ships into a new database of its own.
@Suite(.serialized, .enabled(if: FleetServer.isAvailable)) struct ShipTests {
    @Test func everyViewOfTheDemoArrivesRowForRowAndShippingAgainAddsNothing() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            let fleet = try FleetServer.newDatabase()
            let id = try JournalReader(path: journal).journalID().uuidString.lowercased()
            let first = try Tool.run(["ship", journal, "--to", fleet.url])
            #expect(first.status == 0, "\(first.stderr)")
            let resolved = try JournalReader(path: journal).path
            let rows = try FleetServer.count(fleet, "SELECT count(*) FROM delivery_history") + (try FleetServer.count(fleet, "SELECT count(*) FROM event_history"))
                + (try FleetServer.count(fleet, "SELECT count(*) FROM tree_changes")) + (try FleetServer.count(fleet, "SELECT count(*) FROM handler_registrations"))
                + (try FleetServer.count(fleet, "SELECT count(*) FROM sessions")) + (try FleetServer.count(fleet, "SELECT count(*) FROM journal_trouble"))
            let through = try JournalReader(path: journal).settledThrough()
            #expect(first.stdout == "Shipped \(rows) rows of \(resolved) (journal \(id)), seqs 1…\(through), in 2 batches.\n")
            try FleetServer.expectSameRows(journal, in: fleet)
            let again = try Tool.run(["ship", journal, "--to", fleet.url])
            #expect(again.status == 0)
            #expect(again.stdout.hasPrefix("Shipped 0 rows of \(resolved) (journal \(id)), nothing new after seq "))
            try FleetServer.expectSameRows(journal, in: fleet)
        }
    }

    @Test func twentyJournalsShipResumeAfterAKillAndAddOnlyWhatIsNew() async throws {
        try await withTemporaryDirectory { directory in
            var journals: [String] = []
            for index in 0..<20 {
                let path = directory + "/device-\(index).eventtree"
                if index < 4 {
                    #expect(try Tool.run(["demo", "--journal", path]).status == 0)
                } else {
                    try FleetServer.record(sessions: 2 + index % 3, raises: 40 + index, into: path)
                }
                journals.append(path)
            }
            let fleet = try FleetServer.newDatabase()
            // Killed mid-way: batches of 7 seqs, so that the kill falls between many commits.
            let process = Process()
            process.executableURL = Tool.builtExecutable
            process.arguments = ["ship"] + journals + ["--to", fleet.url, "--batch", "7"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            // (The tables appear once the ship has connected.)
            while ((try? FleetServer.count(fleet, "SELECT count(*) FROM journals WHERE shipped_seq > 0")) ?? 0) < 3 && Date() < deadline {
                usleep(20_000)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Killed part of the way: some rows in, not all.
            var expected = 0
            for journal in journals { expected += Int(try firstValue(journal, "SELECT count(*) FROM delivery_history") ?? "") ?? 0 }
            let partial = try FleetServer.count(fleet, "SELECT count(*) FROM delivery_history")
            #expect(partial > 0 && partial < expected)
            let resumed = try Tool.run(["ship"] + journals + ["--to", fleet.url, "--batch", "7"], timeout: 120)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout.split(separator: "\n").count == 20)
            for journal in journals { try FleetServer.expectSameRows(journal, in: fleet) }
            try FleetServer.expectTotals(journals, in: fleet)
            // More sessions recorded later: shipped again, only they are added.
            try FleetServer.record(sessions: 1, raises: 15, into: journals[7])
            let before = try FleetServer.count(fleet, "SELECT count(*) FROM event_history")
            let later = try Tool.run(["ship"] + journals + ["--to", fleet.url])
            #expect(later.status == 0)
            #expect(try FleetServer.count(fleet, "SELECT count(*) FROM event_history") == before + 15)
            #expect(later.stdout.split(separator: "\n").filter { $0.hasPrefix("Shipped 0 rows") }.count == 19)
            try FleetServer.expectSameRows(journals[7], in: fleet)
            try FleetServer.expectTotals(journals, in: fleet)
            // Each of them reads back from the database as from its file.
            for journal in journals {
                try FleetServer.expectSameReadBack(journal, from: fleet, commands: [["sessions"], ["replay", "--format", "jsonl"], ["verify"]])
            }
        }
    }

    @Test func aShippedJournalReadsBackAsItsFileInEveryCommand() async throws {
        try await withTemporaryDirectory { directory in
            let demo = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", demo]).status == 0)
            let generated = directory + "/generated.eventtree"
            for session in 0..<3 {
                let journal = try Journal(path: generated)
                let bus = EventBus(recorder: journal)
                GeneratedSession.run(seed: 40 + session, on: bus)
                bus.end()
                try journal.close()
            }
            let fleet = try FleetServer.newDatabase()
            #expect(try Tool.run(["ship", demo, "--to", fleet.url]).status == 0)
            // One journal in the database: --journal may be left out.
            let only = try Tool.run(["replay", "--from", fleet.url])
            let file = try Tool.run(["replay", demo])
            #expect(only.status == 0 && only.stdout == file.stdout)
            #expect(try Tool.run(["ship", generated, "--to", fleet.url, "--batch", "50"]).status == 0)
            try FleetServer.expectSameReadBack(demo, from: fleet, commands: RebuildTests.demoCommands)
            // report and export too; the copy is named after its journal id.
            let id = try JournalReader(path: demo).journalID().uuidString.lowercased()
            let shippedName = "\(id).eventtree"
            let lines = try Tool.run(["export", "--from", fleet.url, "--journal", id, "--format", "jsonl"])
            let fileLines = try Tool.run(["export", demo, "--format", "jsonl"])
            #expect(lines.status == 0 && !lines.stdout.isEmpty && lines.stdout == fileLines.stdout)
            let trace = try Tool.run(["export", "--from", fleet.url, "--journal", id, "--format", "chrome-trace"])
            let fileTrace = try Tool.run(["export", demo, "--format", "chrome-trace"])
            #expect(trace.status == 0 && trace.stdout.contains(shippedName))
            #expect(trace.stdout == fileTrace.stdout.replacingOccurrences(of: "demo.eventtree", with: shippedName))
            let page = try Tool.run(["report", "--from", fleet.url, "--journal", id], in: directory)
            #expect(page.status == 0, "\(page.stderr)")
            let filePage = try Tool.run(["report", demo, "-o", "-"])
            let shippedPage = try String(contentsOfFile: directory + "/\(id).html", encoding: .utf8)
            #expect(shippedPage == filePage.stdout.replacingOccurrences(of: "demo.eventtree", with: shippedName))
            var commands = RebuildTests.generatedCommands
            for row in try JournalReader(path: generated).rows("SELECT event_id FROM event_history ORDER BY event_id LIMIT 25") {
                commands.append(["explain", row[0].description, "--verbose"])
            }
            try FleetServer.expectSameReadBack(generated, from: fleet, commands: commands)
        }
    }

    @Test func readingBackRefusesWhatIsNotThereOrNotRightWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            let other = directory + "/other.eventtree"
            try FleetServer.record(sessions: 1, raises: 10, into: other)
            let fleet = try FleetServer.newDatabase()
            func expectError(_ arguments: [String], _ message: String, status: Int32 = 2, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let result = try Tool.run(arguments)
                #expect(result.status == status, sourceLocation: sourceLocation)
                #expect(result.stderr == "error: \(message)\n", sourceLocation: sourceLocation)
                #expect(result.stdout == "", sourceLocation: sourceLocation)
            }
            let location = "postgresql://\(fleet.user)@\(fleet.host):\(fleet.port)/\(fleet.database)"
            // An empty database is not set up by reading it.
            try expectError(["replay", "--from", fleet.url], "\(location) holds no shipped journal: ship one with 'eventtree ship JOURNAL --to \(location)'")
            #expect(try FleetServer.count(fleet, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0)
            #expect(try Tool.run(["ship", journal, other, "--to", fleet.url]).status == 0)
            try expectError(["sessions", "--from", fleet.url], "\(location) holds 2 journals: name one with --journal ID (SELECT journal_id, source FROM journals)")
            try expectError(["sessions", "--from", fleet.url, "--journal", "7"], "'7' is not a journal id; journal ids are UUIDs (SELECT journal_id FROM journals)")
            let stranger = "6f1c1f8e-3b0e-4c55-9a57-6f1d9c1f0b2a"
            try expectError(["sessions", "--from", fleet.url, "--journal", stranger],
                "\(location) holds no journal \(stranger) (SELECT journal_id, source FROM journals lists them)")
            let id = try JournalReader(path: journal).journalID().uuidString.lowercased()
            // A row changed in the database (its last call's closing bracket): the copy's hash chain
            // names it, as it would the file's.
            let seq = try FleetServer.count(fleet, "SELECT min(seq) FROM journal_rows WHERE journal_id = '\(id)' AND table_name = 'j_call_runs' AND seq > 40")
            _ = try FleetServer.lines(fleet, """
                UPDATE journal_rows SET image = set_byte(image, length(image) - 2, get_byte(image, length(image) - 2) # 1)
                WHERE journal_id = '\(id)' AND table_name = 'j_call_runs' AND seq = \(seq)
                """)
            let verdict = try Tool.run(["verify", "--from", fleet.url, "--journal", id, "--format", "json"])
            #expect(verdict.status == 1)
            #expect(verdict.stdout.contains("\"first_bad_seq\":\(seq),"), "\(verdict.stdout)")
            // A row that is not a row.
            _ = try FleetServer.lines(fleet, "UPDATE journal_rows SET image = '\\x0100ff' WHERE journal_id = '\(id)' AND table_name = 'j_call_runs' AND seq = \(seq)")
            try expectError(["replay", "--from", fleet.url, "--journal", id],
                "journal \(id) in \(location) is damaged or truncated: a row of j_call_runs does not decode: value 1 has the unknown tag 255")
            // A journal whose first ship stopped before any row (its id only): said so, then
            // sent in full by the next ship.
            let otherID = try JournalReader(path: other).journalID().uuidString.lowercased()
            _ = try FleetServer.lines(fleet, "UPDATE journals SET schema_version = NULL WHERE journal_id = '\(otherID)'")
            _ = try FleetServer.lines(fleet, "DELETE FROM journal_rows WHERE journal_id = '\(otherID)'")
            try expectError(["replay", "--from", fleet.url, "--journal", otherID],
                "journal \(otherID) in \(location) has no rows shipped yet: ship it again with 'eventtree ship JOURNAL --to \(location)'")
            #expect(try Tool.run(["ship", other, "--to", fleet.url]).status == 0)
            try FleetServer.expectSameReadBack(other, from: fleet, commands: [["replay"], ["query"], ["verify"]])
        }
    }

    @Test func aJournalBeingWrittenShipsWhatIsSettledAndTheRestLater() async throws {
        try await withTemporaryDirectory { directory in
            let (path, journal, bus, app, fleet) = try FleetServer.shipTenTicks(in: directory)
            #expect(try FleetServer.count(fleet, "SELECT count(*) FROM event_history") == 10)
            #expect(try FleetServer.lines(fleet, "SELECT ended_at IS NULL FROM sessions") == ["t"])
            // Read back as it was shipped: the ten raises, a chain that verifies.
            let through = try FleetServer.count(fleet, "SELECT shipped_seq FROM journals")
            let early = try Tool.run(["query", "--from", fleet.url, "--format", "csv"])
            let settled = try Tool.run(["query", path, "--until", String(through), "--format", "csv"])
            #expect(early.status == 0, "\(early.stderr)")
            #expect(early.stdout == settled.stdout)
            #expect(try Tool.run(["verify", "--from", fleet.url]).status == 0)
            for _ in 0..<5 { app.raise(NamedEvent("tock")) }
            bus.end()
            try journal.close()
            #expect(try Tool.run(["ship", path, "--to", fleet.url]).status == 0)
            #expect(try FleetServer.count(fleet, "SELECT count(*) FROM event_history") == 15)
            #expect(try FleetServer.lines(fleet, "SELECT ended_at IS NULL FROM sessions") == ["f"])
            try FleetServer.expectSameRows(path, in: fleet)
            try FleetServer.expectSameReadBack(path, from: fleet, commands: [["sessions"], ["replay"], ["query"], ["verify"]])
        }
    }

    @Test func pointQueriesReuseTheCopyOfAShipUntilTheJournalShipsAgain() async throws {
        try await withTemporaryDirectory { directory in
            let (path, journal, bus, app, fleet) = try FleetServer.shipTenTicks(in: directory)
            let id = try JournalReader(path: path).journalID().uuidString.lowercased()
            let cache = ["EVENTTREE_CACHE_DIR": directory + "/cache"]
            // The copies kept: one folder per ship, named by its seqs and schema versions.
            let fleetFolder = directory + "/cache/fleet"
            func copies() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: fleetFolder).flatMap { database in
                    try FileManager.default.contentsOfDirectory(atPath: fleetFolder + "/\(database)/\(id)")
                }
            }
            func run(_ command: [String], fromFile: Bool = false) throws -> Tool.Result {
                let source = fromFile ? [path] : ["--from", fleet.url]
                return try Tool.run([command[0]] + source + command.dropFirst(), environment: cache)
            }
            let first = try FleetServer.count(fleet, "SELECT shipped_seq FROM journals")
            #expect(try run(["sessions"]).stdout == (try run(["sessions"], fromFile: true)).stdout)
            let version = try JournalReader(path: path).schemaVersion
            #expect(try copies().count == 1 && copies()[0].hasPrefix("\(first)-") && copies()[0].hasSuffix("-\(version)-\(version)"))
            // Shipped again: the next point query builds the new copy and drops the old one.
            for _ in 0..<5 { app.raise(NamedEvent("tock")) }
            bus.end()
            try journal.close()
            #expect(try Tool.run(["ship", path, "--to", fleet.url]).status == 0)
            let second = try FleetServer.count(fleet, "SELECT shipped_seq FROM journals")
            #expect(second > first)
            let query = try run(["query", "--format", "csv"])
            #expect(query.status == 0)
            #expect(query.stdout == (try run(["query", "--format", "csv"], fromFile: true)).stdout)
            #expect(try copies().count == 1 && copies()[0].hasPrefix("\(second)-"))
            // A kept copy that cannot be read is said so, dropped, and built again.
            let database = try #require(try FileManager.default.contentsOfDirectory(atPath: fleetFolder).first)
            let kept = fleetFolder + "/\(database)/\(id)/\(try copies()[0])/\(id).eventtree"
            try FileHandle(forWritingTo: URL(fileURLWithPath: kept)).truncate(atOffset: 100)
            #expect(try run(["sessions"]).status != 0)
            #expect(try copies() == [])
            #expect(try run(["sessions"]).stdout == (try run(["sessions"], fromFile: true)).stdout)
            #expect(try copies().count == 1)
            // The point queries read the kept copy: they answer with the rows gone from the
            // database, which the commands that read every record see at once.
            _ = try FleetServer.lines(fleet, "DELETE FROM journal_rows WHERE journal_id = '\(id)'")
            let event = try JournalReader(path: path).rows("SELECT max(event_id) FROM event_history").first?.first?.int ?? 0
            for command in [["sessions"], ["query", "--format", "csv"], ["tail", "--last", "3"], ["topology"], ["explain", String(event)]] {
                let kept = try run(command)
                #expect(kept.status == 0, "\(command): \(kept.stderr)")
                #expect(kept.stdout == (try run(command, fromFile: true)).stdout, "\(command)")
            }
            #expect(try run(["verify"]).status != 0)
            #expect(try copies().count == 1)
            // A cache folder others may open is not used: the copy is built for the command.
            #expect(chmod(fleetFolder + "/\(database)", 0o755) == 0)
            #expect(try run(["sessions"]).status != 0)
        }
    }

    @Test func theTablesHaveTheViewsColumnsAfterJournalID() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            let fleet = try FleetServer.newDatabase()
            #expect(try Tool.run(["ship", journal, "--to", fleet.url]).status == 0)
            for view in FleetServer.views {
                let viewColumns = try JournalReader(path: journal).rows("SELECT name FROM pragma_table_info(?)", [.text(view.name)]).map(\.[0].description)
                let tableColumns = try FleetServer.lines(fleet, "SELECT column_name FROM information_schema.columns WHERE table_name = '\(view.name)' ORDER BY ordinal_position")
                #expect(tableColumns == ["journal_id"] + viewColumns, "\(view.name)")
            }
        }
    }

    @Test func theFleetQueryOfTheReadmeAnswersAcrossJournals() async throws {
        try await withTemporaryDirectory { directory in
            let fleet = try FleetServer.newDatabase()
            for index in 0..<3 {
                let journal = directory + "/demo-\(index).eventtree"
                #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
                #expect(try Tool.run(["ship", journal, "--to", fleet.url]).status == 0)
            }
            // The README's query, as written there.
            let answer = try FleetServer.lines(fleet, """
                SELECT s.app_version, d.handler_label, d.handler_location, count(DISTINCT d.journal_id) AS journals
                FROM delivery_history d
                JOIN sessions s USING (journal_id, session_id)
                WHERE d.event_type = 'OpenURL' AND d.outcome = 'consumed'
                  AND d.at > now() - interval '7 days'
                GROUP BY 1, 2, 3 ORDER BY journals DESC;
                """)
            #expect(answer == ["demo|settings-router|EventTreeCommands/DemoScenario.swift:47|3"])
        }
    }

    @Test func aDatabaseThatTakesTLSOnlyIsShippedToOverTLSAndItsCertificateChecked() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            let fleet = try FleetServer.newDatabase()
            let ca = try #require(ProcessInfo.processInfo.environment["EVENTTREE_POSTGRES_CA"])
            let server = "postgresql://\(fleet.user):\(fleet.password)@\(fleet.host):\(fleet.port)/fleet_tls"
            let shown = "postgresql://\(fleet.user)@\(fleet.host):\(fleet.port)/fleet_tls"
            // Plain TCP is refused by the server; TLS with the certificate unchecked, or checked
            // against its authority, is taken; checked against the system's roots, it is not trusted.
            let plain = try Tool.run(["ship", journal, "--to", server])
            #expect(plain.status == 2)
            #expect(plain.stderr == "error: \(shown) refused: pg_hba.conf rejects connection for host \"127.0.0.1\", user \"\(fleet.user)\", database \"fleet_tls\", no encryption\n")
            let required = try Tool.run(["ship", journal, "--to", server + "?sslmode=require"])
            #expect(required.status == 0, "\(required.stderr)")
            let verified = try Tool.run(["ship", journal, "--to", server + "?sslmode=verify-full&sslrootcert=\(ca)"])
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stdout.contains("Shipped 0 rows of "))
            let untrusted = try Tool.run(["ship", journal, "--to", server + "?sslmode=verify-full"])
            #expect(untrusted.status == 2)
            #expect(untrusted.stderr == "error: \(shown)?sslmode=verify-full refused: TLS: its certificate is not trusted (give its authority as sslrootcert)\n")
            let wrong = try Tool.run(["ship", journal, "--to", server + "?sslmode=sometimes"])
            #expect(wrong.stderr == "error: '\(server)?sslmode=sometimes' is not a PostgreSQL location: sslmode takes disable, require or verify-full\n")
            _ = fleet
        }
    }

    @Test func badServersAndBadJournalsGiveOneLineAndShipNothing() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/demo.eventtree"
            #expect(try Tool.run(["demo", "--journal", journal]).status == 0)
            let fleet = try FleetServer.newDatabase()
            let location = "postgresql://\(fleet.user)@\(fleet.host):\(fleet.port)/\(fleet.database)"
            func expectError(_ arguments: [String], _ message: String) throws {
                let result = try Tool.run(arguments)
                #expect(result.status == 2)
                #expect(result.stdout == "")
                #expect(result.stderr == "error: \(message)\n")
            }
            try expectError(
                ["ship", journal, "--to", "postgresql://\(fleet.user):x@127.0.0.1:1/\(fleet.database)"],
                "cannot reach postgresql://\(fleet.user)@127.0.0.1:1/\(fleet.database) (Connection refused); is the server running and listening on that address?")
            try expectError(
                ["ship", journal, "--to", "postgresql://\(fleet.user):wrong@\(fleet.host):\(fleet.port)/\(fleet.database)"],
                "\(location) refused: password authentication failed for user \"\(fleet.user)\"")
            try expectError(["ship", journal, "--to", "mysql://me@host/db"], "'mysql://me@host/db' is not a PostgreSQL location: expected postgresql://USER@HOST:PORT/DATABASE")
            // A journal that fails verification is not shipped at all.
            let altered = directory + "/altered.eventtree"
            try FileManager.default.copyItem(atPath: journal, toPath: altered)
            let firstCall = try #require(Int(try firstValue(altered, "SELECT min(seq) FROM call_history") ?? ""))
            try JournalTampering.changeCall(at: firstCall, in: altered, column: .nanos) { $0 + 1 }
            let result = try Tool.run(["ship", altered, "--to", fleet.url])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("error: \(try JournalReader(path: altered).path) fails verification, so it is not shipped: altered at seq \(firstCall): "))
            #expect(try FleetServer.count(fleet, "SELECT count(*) FROM journals") == 0)
            // A database set up by a newer eventtree is left as it is.
            #expect(try Tool.run(["ship", journal, "--to", fleet.url]).status == 0)
            _ = try FleetServer.lines(fleet, "INSERT INTO eventtree_migrations (version, name, checksum) VALUES (99, '0099_future', 'x')")
            try expectError(
                ["ship", journal, "--to", fleet.url],
                "\(location) has fleet schema version 99; this eventtree supports up to version 1: use a newer eventtree")
        }
    }
}

/// The PostgreSQL server of the ship tests, driven with `psql` (a foreign client).
enum FleetServer {
    /// A journal still being written in `directory`, with ten raises, shipped to a new
    /// database: its path, the journal, its bus and root node (to raise more), and the database.
    static func shipTenTicks(
        in directory: String
    ) throws -> (path: String, journal: Journal, bus: EventBus, app: EventNode, fleet: Database) {
        let path = directory + "/live.eventtree"
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal)
        let app = EventNode("app", bus: bus)
        app.on(NamedEvent.self, label: "counter") { _, _ in .handled }
        for _ in 0..<10 { app.raise(NamedEvent("tick")) }
        try journal.flush()
        let fleet = try FleetServer.newDatabase()
        #expect(try Tool.run(["ship", path, "--to", fleet.url]).status == 0)
        return (path, journal, bus, app, fleet)
    }

    struct Database {
        let url: String
        let host: String
        let port: Int
        let user: String
        let password: String
        let database: String
    }

    /// A journal view: its name, the columns that are times, and a row order.
    struct View {
        let name: String
        let times: Set<String>
        let order: String
    }

    static let views = [
        View(name: "delivery_history", times: ["at"], order: "seq, handler_label, handler_location, node_path, outcome"),
        View(name: "event_history", times: ["raised_at"], order: "event_id"),
        View(name: "tree_changes", times: [], order: "seq"),
        View(name: "handler_registrations", times: [], order: "handler_id"),
        View(name: "sessions", times: ["started_at", "ended_at"], order: "session_id"),
        View(name: "journal_trouble", times: ["at"], order: "seq"),
    ]

    static var serverURL: String? { ProcessInfo.processInfo.environment["EVENTTREE_POSTGRES_URL"] }

    static var isAvailable: Bool {
        if serverURL != nil { return true }
        // CI starts the server (Scripts/postgres.sh); there, its absence is a failure.
        return ExternalTool.areRequired
    }

    private static let counter = Counter()

    /// A new, empty database on the server.
    static func newDatabase() throws -> Database {
        let url = try #require(serverURL, "EVENTTREE_POSTGRES_URL is not set: start a server with Scripts/postgres.sh")
        let components = try #require(URLComponents(string: url))
        let server = Database(
            url: url, host: components.host ?? "127.0.0.1", port: components.port ?? 5432, user: components.user ?? "",
            password: components.password ?? "", database: String(components.path.dropFirst()))
        let name = "ship_\(ProcessInfo.processInfo.processIdentifier)_\(counter.next())"
        _ = try psql(server, "DROP DATABASE IF EXISTS \(name)")
        _ = try psql(server, "CREATE DATABASE \(name)")
        return Database(
            url: "postgresql://\(server.user):\(server.password)@\(server.host):\(server.port)/\(name)", host: server.host,
            port: server.port, user: server.user, password: server.password, database: name)
    }

    /// Rows of `sql`, fields joined with `|` (NULL as the empty string).
    static func lines(_ database: Database, _ sql: String) throws -> [String] {
        try psql(database, sql, separator: "|").split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    static func count(_ database: Database, _ sql: String) throws -> Int {
        Int(try lines(database, sql).first ?? "") ?? -1
    }

    private static func psql(_ database: Database, _ sql: String, separator: String = "|", record: String = "\n") throws -> String {
        let psql = try #require(ExternalTool.find("psql"), "psql is not installed")
        let process = Process()
        process.executableURL = psql.url
        process.arguments = [
            "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-F", separator, "-R", record,
            "-h", database.host, "-p", String(database.port), "-U", database.user, "-d", database.database, "-c", sql,
        ]
        process.environment = ["PGPASSWORD": database.password, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PsqlFailure(message: "psql: \(sql): \(error)") }
        return String(decoding: data, as: UTF8.self)
    }

    struct PsqlFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Expects every view of `journal` to be in the database row for row, value for value.
    static func expectSameRows(_ journal: String, in database: Database, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try JournalReader(path: journal)
        let id = try reader.journalID().uuidString.lowercased()
        let (field, record) = ("\u{1F}", "\u{1E}")
        for view in views {
            let columns = try reader.rows("SELECT name FROM pragma_table_info(?)", [.text(view.name)]).map(\.[0].description)
            let file = try reader.rows("SELECT \(columns.joined(separator: ", ")) FROM \(view.name) ORDER BY \(view.order)")
                .map { $0.map(\.description).joined(separator: field) }
            let selected = columns.map { view.times.contains($0) ? "to_char(\($0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" : $0 }
            let output = try psql(
                database, "SELECT \(selected.joined(separator: ", ")) FROM \(view.name) WHERE journal_id = '\(id)' ORDER BY \(view.order)",
                separator: field, record: record
            )
            // psql ends the output with a line feed, not with the record separator.
            let shippedRows = output.hasSuffix("\n") ? String(output.dropLast()) : output
            let shipped = shippedRows.isEmpty ? [] : shippedRows.split(separator: Character(record), omittingEmptySubsequences: false).map(String.init)
            #expect(shipped.count == file.count, "\(view.name) of \(journal)", sourceLocation: sourceLocation)
            #expect(shipped == file, "\(view.name) of \(journal)", sourceLocation: sourceLocation)
        }
    }

    /// Expects each command to print the same, with the same status, from the file and
    /// `--from` the database (the tool, as a user runs it).
    static func expectSameReadBack(
        _ journal: String, from database: Database, commands: [[String]], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let id = try JournalReader(path: journal).journalID().uuidString.lowercased()
        for command in commands {
            let file = try Tool.run([command[0], journal] + command.dropFirst())
            let shipped = try Tool.run([command[0], "--from", database.url, "--journal", id] + command.dropFirst())
            #expect(file.status == 0 && !file.stdout.isEmpty, "\(command): \(file.stderr)", sourceLocation: sourceLocation)
            #expect(shipped.status == file.status, "\(command): \(shipped.stderr)", sourceLocation: sourceLocation)
            #expect(shipped.stdout == file.stdout, "\(command) of \(journal)", sourceLocation: sourceLocation)
        }
    }

    /// Expects each table to hold exactly as many rows as the journals' views together.
    static func expectTotals(_ journals: [String], in database: Database, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for view in views {
            var total = 0
            for journal in journals { total += Int(try firstValue(journal, "SELECT count(*) FROM \(view.name)") ?? "") ?? 0 }
            #expect(try count(database, "SELECT count(*) FROM \(view.name)") == total, "\(view.name)", sourceLocation: sourceLocation)
        }
    }

    /// Appends `sessions` sessions to the journal at `path`: a screen attached and detached,
    /// raises that are handled, consumed or dead letters.
    static func record(sessions: Int, raises: Int, into path: String) throws {
        for _ in 0..<sessions {
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let screen = EventNode("screen", parent: app)
            app.on(NamedEvent.self, label: "analytics") { _, _ in .handled }
            screen.on(NamedEvent.self, label: "screen-router") { event, _ in event.name == "open" ? .consumed : .handled }
            for index in 0..<raises {
                let origin = index % 3 == 0 ? app : screen
                origin.raise(NamedEvent(["open", "tap", "scroll"][index % 3], ["n": String(index)]))
            }
            screen.detach()
            bus.end()
            try journal.close()
        }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
#endif
