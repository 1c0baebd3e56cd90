import EventTree
import EventTreeCommands
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// A journal rebuilt from its tables' row images (what `ship` keeps in a fleet database and
/// `--from` reads back) must read exactly as the file: every reading command prints the
/// same bytes, and the hash chain still verifies.
@Suite struct RebuildTests {
    /// The reading commands compared, with arguments for the demo journal.
    static let demoCommands: [[String]] = [
        ["sessions"], ["sessions", "--format", "json"], ["replay"], ["replay", "--format", "jsonl"],
        ["replay", "--only", "consumed,lost"], ["explain", "43", "--node", "app"], ["explain", "56"],
        ["explain", "98", "--node", "app/tabs/home/post-2"], ["explain", "70", "--verbose"], ["explain", "43", "--format", "dot"],
        ["topology"], ["topology", "--at", "80"], ["topology", "--format", "mermaid"], ["query"], ["query", "--format", "csv"],
        ["query", "--result", "lost"], ["query", "--node", "app/tabs/settings"], ["tail", "--last", "3"], ["verify"],
        ["verify", "--format", "json"],
    ]

    /// The commands compared on a generated session (event ids differ by seed).
    static let generatedCommands: [[String]] = [
        ["sessions"], ["replay", "--format", "jsonl"], ["topology"], ["query", "--format", "csv"], ["tail"], ["verify"],
    ]

    @Test func theDemoRebuiltFromItsRowsReadsTheSameInEveryCommand() async throws {
        try await withDemoJournal { path in
            let copy = path + ".rebuilt"
            try Self.rebuild(path, into: copy)
            try Self.expectSameOutput(Self.demoCommands, original: path, copy: copy)
        }
    }

    @Test(arguments: [3, 7])
    func aGeneratedSessionRebuiltFromItsRowsReadsTheSame(seed: Int) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/generated.eventtree"
            for session in 0..<2 {
                let journal = try Journal(path: path)
                let bus = EventBus(recorder: journal)
                GeneratedSession.run(seed: seed * 10 + session, on: bus)
                bus.end()
                try journal.close()
            }
            let copy = directory + "/rebuilt.eventtree"
            try Self.rebuild(path, into: copy)
            var commands = Self.generatedCommands
            let events = try JournalReader(path: path).rows("SELECT event_id FROM event_history ORDER BY event_id")
            for row in events.prefix(40) { commands.append(["explain", row[0].description, "--verbose"]) }
            try Self.expectSameOutput(commands, original: path, copy: copy)
        }
    }

    /// A fleet keeps the rows shipped before the journal was pruned: the copy it reads back
    /// is the journal as it is now, and verifies from the prune's anchor.
    @Test func aJournalShippedThenPrunedReadsBackAsThePrunedFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/pruned.eventtree"
            for seed in 0..<3 {
                let journal = try Journal(path: path)
                let bus = EventBus(recorder: journal)
                GeneratedSession.run(seed: seed, on: bus)
                bus.end()
                try journal.close()
            }
            let shipped = directory + "/shipped.eventtree"
            try FileManager.default.copyItem(atPath: path, toPath: shipped)
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 1)
            #expect(try Journal(path: path, options: options).openingPrune?.sessions.count == 2)

            // The fleet's rows: those shipped before the prune, and what the file gained since.
            let before = try JournalReader(path: shipped)
            let after = try JournalReader(path: path)
            let shippedThrough = try before.settledThrough()
            let copy = directory + "/copy.eventtree"
            let rebuilder = try JournalRebuilder(creating: copy, schemaVersion: after.schemaVersion, source: "fleet")
            for table in JournalTable.all {
                var sources = [try after.tableRows(of: table, seqs: table.seqColumn == nil ? nil : (shippedThrough + 1)...Int.max)]
                if table.seqColumn != nil { sources.insert(try before.tableRows(of: table), at: 0) }
                for rows in sources {
                    while rows.hasRow {
                        try rebuilder.insert(rows.image, into: table.name)
                        try rows.advance()
                    }
                }
            }
            try rebuilder.finish(settledThrough: after.settledThrough())
            try Self.expectSameOutput(Self.generatedCommands, original: path, copy: copy)
        }
    }

    @Test func aJournalRebuiltUpToASeqEndsThere() async throws {
        try await withDemoJournal { path in
            let copy = path + ".rebuilt"
            let reader = try JournalReader(path: path)
            let rebuilder = try JournalRebuilder(creating: copy, schemaVersion: reader.schemaVersion, source: "test")
            for table in JournalTable.all {
                let rows = try reader.tableRows(of: table, seqs: table.seqColumn == nil ? nil : 1...80)
                while rows.hasRow {
                    try rebuilder.insert(rows.image, into: table.name)
                    try rows.advance()
                }
            }
            try rebuilder.finish(settledThrough: 80)
            let rebuilt = try JournalReader(path: copy)
            #expect(try rebuilt.settledThrough() == 80)
            #expect(try rebuilt.journalID() == reader.journalID())
            #expect(try rebuilt.rows("SELECT max(seq) FROM delivery_history").first?.first?.int ?? 0 <= 80)
            #expect(try rebuilt.rows("SELECT count(*) FROM delivery_history").first?.first
                == reader.rows("SELECT count(*) FROM delivery_history WHERE seq <= 80").first?.first)
            // Up to its seq the copy is the journal: `topology --at 80` draws the same tree.
            #expect(runCommand(["topology", copy, "--at", "80"]).stdout == runCommand(["topology", path, "--at", "80"]).stdout)
            #expect(runCommand(["query", copy]).stdout == runCommand(["query", path, "--until", "80"]).stdout)
        }
    }

    @Test func rowsThatDoNotMakeAJournalAreOneError() async throws {
        try await withDemoJournal { path in
            let reader = try JournalReader(path: path)
            let rows = try reader.tableRows(of: try #require(JournalTable.named("j_call_runs")))
            let image = rows.image
            func expectRefused(_ image: [UInt8], into table: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let copy = path + ".\(UUID().uuidString)"
                let rebuilder = try JournalRebuilder(creating: copy, schemaVersion: reader.schemaVersion, source: "the copy")
                #expect(throws: JournalError.corrupt(path: "the copy", detail: message), sourceLocation: sourceLocation) {
                    try rebuilder.insert(image, into: table)
                }
            }
            try expectRefused(Array(image.dropLast()), into: "j_call_runs", "a row of j_call_runs does not decode: value 4 says \(image.count - 34) bytes, \(image.count - 35) are left")
            try expectRefused(image + [0], into: "j_call_runs", "a row of j_call_runs does not decode: 1 bytes follow its 4 values")
            try expectRefused([5, 0, 9], into: "j_call_runs", "a row of j_call_runs does not decode: value 1 has the unknown tag 9")
            try expectRefused([1, 0, 3, 255, 255, 0, 0], into: "j_call_runs", "a row of j_call_runs does not decode: value 1 says 65535 bytes, 0 are left")
            try expectRefused([1, 0, 0], into: "j_call_runs", "a row of j_call_runs has 1 values; the table has 4 columns")
            try expectRefused(image, into: "sqlite_master", "it has rows of 'sqlite_master', which is not a table of a journal")
            try expectRefused(image, into: "j_call_runs; DROP TABLE j_events", "it has rows of 'j_call_runs; DROP TABLE j_events', which is not a table of a journal")
            #expect(throws: JournalError.newerVersion(path: "the copy", found: Journal.schemaVersion + 1, supported: Journal.schemaVersion)) {
                _ = try JournalRebuilder(creating: path + ".newer", schemaVersion: Journal.schemaVersion + 1, source: "the copy")
            }
            // A row twice: the table's key refuses it.
            let copy = path + ".twice"
            let rebuilder = try JournalRebuilder(creating: copy, schemaVersion: reader.schemaVersion, source: "the copy")
            try rebuilder.insert(image, into: "j_call_runs")
            #expect(throws: JournalError.corrupt(path: "the copy", detail: "a row of j_call_runs does not fit: UNIQUE constraint failed: j_call_runs.seq")) {
                try rebuilder.insert(image, into: "j_call_runs")
            }
        }
    }

    /// Copies every row of every table of `path` into a new journal at `copy`.
    static func rebuild(_ path: String, into copy: String) throws {
        let reader = try JournalReader(path: path)
        let rebuilder = try JournalRebuilder(creating: copy, schemaVersion: reader.schemaVersion, source: "test")
        for table in JournalTable.all {
            let rows = try reader.tableRows(of: table)
            while rows.hasRow {
                try rebuilder.insert(rows.image, into: table.name)
                try rows.advance()
            }
        }
        try rebuilder.finish(settledThrough: reader.settledThrough())
    }

    /// Runs each command on both journals and expects the same status and bytes.
    static func expectSameOutput(
        _ commands: [[String]], original: String, copy: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for command in commands {
            let expected = runCommand([command[0], original] + command.dropFirst())
            let actual = runCommand([command[0], copy] + command.dropFirst())
            #expect(expected.status == 0, "\(command): \(expected.stderr)", sourceLocation: sourceLocation)
            #expect(!expected.stdout.isEmpty, "\(command)", sourceLocation: sourceLocation)
            #expect(actual.status == expected.status, "\(command)", sourceLocation: sourceLocation)
            #expect(actual.stdout == expected.stdout, "\(command)", sourceLocation: sourceLocation)
            #expect(actual.stderr == expected.stderr, "\(command)", sourceLocation: sourceLocation)
        }
    }
}
