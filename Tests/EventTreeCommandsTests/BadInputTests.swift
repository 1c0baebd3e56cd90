@testable import EventTreeCommands
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Every bad input gets one line `error: …` on stderr, exit status 2, and leaves the file
/// (and its directory) exactly as it was.
@Suite struct BadInputTests {
    /// Runs the tool on `path` with `arguments` and checks status, stderr and that nothing changed.
    func expectRefusal(
        _ arguments: [String], path: String, in directory: String, status: Int32 = 2, stderr expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = FileManager.default.contents(atPath: path)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let result = try Tool.run(arguments, in: directory)
        #expect(result.status == status, sourceLocation: sourceLocation)
        #expect(result.stderr == "error: " + expected + "\n", sourceLocation: sourceLocation)
        #expect(result.stdout == "", sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: path) == before, "the file changed", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == filesBefore, sourceLocation: sourceLocation)
    }

    @Test func aMistypedCommandIsNamedWithTheNearestOne() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/j.eventtree"
            let hint = "'eventtree --help' lists them"
            try expectRefusal(["replya", journal], path: journal, in: directory,
                stderr: "'replya' is not an eventtree command; did you mean 'replay'? \(hint)")
            try expectRefusal(["explian", journal, "3"], path: journal, in: directory,
                stderr: "'explian' is not an eventtree command; did you mean 'explain'? \(hint)")
            try expectRefusal(["top", journal], path: journal, in: directory,
                stderr: "'top' is not an eventtree command; did you mean 'topology'? \(hint)")
            // Two names as near, or none near: no guess.
            try expectRefusal(["rep", journal], path: journal, in: directory, stderr: "'rep' is not an eventtree command; \(hint)")
            try expectRefusal(["frobnicate"], path: journal, in: directory, stderr: "'frobnicate' is not an eventtree command; \(hint)")
        }
        #expect(CommandSuggestion.edits(from: Array("sesions"), to: Array("sessions")) == 1)
        #expect(CommandSuggestion.edits(from: Array("veirfy"), to: Array("verify")) == 1)
    }

    @Test func unreadableJournalsAreRefusedWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory + "/missing.eventtree"
            for command in ["sessions", "replay", "topology", "query", "tail"] {
                try expectRefusal([command, missing], path: missing, in: directory, stderr: "no journal at \(missing): check the path")
            }
            try expectRefusal(["replay", directory], path: directory, in: directory, stderr: "\(directory) is a directory, not a journal file")

            let fifo = directory + "/fifo"
            mkfifo(fifo, 0o644)
            try expectRefusal(["replay", fifo], path: fifo, in: directory, stderr: "\(fifo) is a FIFO, not a journal file")

            let empty = directory + "/empty.eventtree"
            _ = FileManager.default.createFile(atPath: empty, contents: Data())
            try expectRefusal(["replay", empty], path: empty, in: directory, stderr: "\(empty) is empty: it holds no journal (yet)")

            try expectRefusal(
                ["replay", "file:journal?mode=rwc"], path: directory + "/journal", in: directory,
                stderr: "file:journal?mode=rwc begins with 'file:'; pass a plain path (prefix it with ./ if the file is really named so)")

            let text = directory + "/text.eventtree"
            try Data(String(repeating: "hello, world\n", count: 300).utf8).write(to: URL(fileURLWithPath: text))
            try expectRefusal(["replay", text], path: text, in: directory, stderr: "\(text) is not an SQLite database")

            let other = directory + "/other.sqlite"
            sqliteExecute(other, "CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            try expectRefusal(["replay", other], path: other, in: directory, stderr: "\(other) is an SQLite database but not an EventTree journal")
        }
    }

    @Test func damagedAndNewerJournalsAreRefusedWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let newer = directory + "/newer.eventtree"
            _ = try Tool.run(["demo", "--journal", newer], in: directory)
            sqliteExecute(newer, "PRAGMA user_version = \(Journal.schemaVersion + 1)")
            try expectRefusal(
                ["replay", newer], path: newer, in: directory,
                stderr: "\(newer) has journal schema version \(Journal.schemaVersion + 1); this eventtree supports up to version \(Journal.schemaVersion): use a newer eventtree")

            let truncated = directory + "/truncated.eventtree"
            _ = try Tool.run(["demo", "--journal", truncated], in: directory)
            let size = try #require(FileManager.default.contents(atPath: truncated)).count
            truncate(truncated, off_t(size / 2))
            let result = try Tool.run(["replay", truncated], in: directory)
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("error: \(truncated) is damaged or truncated: "))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)

            let corrupt = directory + "/corrupt.eventtree"
            _ = try Tool.run(["demo", "--journal", corrupt], in: directory)
            var bytes = try #require(FileManager.default.contents(atPath: corrupt))
            for offset in stride(from: 4096, to: bytes.count, by: 1) { bytes[offset] = 0xA5 }
            try bytes.write(to: URL(fileURLWithPath: corrupt))
            let damaged = try Tool.run(["replay", corrupt], in: directory)
            #expect(damaged.status == 2)
            #expect(damaged.stderr.hasPrefix("error: \(corrupt) is damaged or truncated: "))
            #expect(damaged.stderr.filter { $0 == "\n" }.count == 1)
            #expect(FileManager.default.contents(atPath: corrupt) == bytes)
        }
    }

    @Test func unknownIdsAndMalformedFiltersAreRefusedWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let demo = directory + "/demo.eventtree"
            _ = try Tool.run(["demo", "--journal", demo], in: directory)
            try expectRefusal(["replay", demo, "--session", "999"], path: demo, in: directory,
                              stderr: "the journal has no session 999; list them with 'eventtree sessions'")
            try expectRefusal(["query", demo, "--session", "999"], path: demo, in: directory,
                              stderr: "the journal has no session 999; list them with 'eventtree sessions'")
            try expectRefusal(["query", demo, "--handler", "999"], path: demo, in: directory,
                              stderr: "the journal has no handler 999; see the handler_registrations view")
            let types = try JournalReader(path: demo).eventTypeNames()
            #expect(types.contains("OpenURL"))
            try expectRefusal(["query", demo, "--type", "OpenUrl"], path: demo, in: directory,
                              stderr: "no event of type 'OpenUrl' is in this journal; its types: \(types.joined(separator: ", "))")
            try expectRefusal(["query", demo, "--handler", "settings-routr"], path: demo, in: directory,
                              stderr: "no handler labelled 'settings-routr' was ever registered in this journal; see the handler_registrations view")
            try expectRefusal(["query", demo, "--result", "gone"], path: demo, in: directory,
                              stderr: "The value 'gone' is invalid for '--result <result>'. Please provide one of the following: - delivered - consumed - answered - unanswered - unhandled - failed - lost")
            try expectRefusal(["explain", demo, "999999"], path: demo, in: directory,
                              stderr: "the journal has no event 999999; list them with 'eventtree replay' or 'eventtree query'")
            try expectRefusal(["explain", demo, "43", "--node", "app/nowhere"], path: demo, in: directory,
                              stderr: "no node of session 1 ever had the path 'app/nowhere'; see 'eventtree topology'")
            try expectRefusal(["explain", demo, "43", "--without-handler", "5"], path: demo, in: directory,
                              stderr: "the journal has no handler 5; see the handler_registrations view")
            try expectRefusal(["replay", demo, "--until", "soon"], path: demo, in: directory,
                              stderr: "The value 'soon' is invalid for '--until <until>'")
            try expectRefusal(["query", demo, "--phase", "sideways"], path: demo, in: directory,
                              stderr: "The value 'sideways' is invalid for '--phase <phase>'. Please provide one of 'capture', 'target', 'bubble' or 'propagate'.")
            try expectRefusal(["replay", demo, "--only", "lost,nonsense"], path: demo, in: directory,
                              stderr: "The value 'lost,nonsense' is invalid for '--only <only>': 'nonsense' is not a class; use delivered, consumed, unhandled, lost, diverged, failed")
            try expectRefusal(["query", demo, "--limit", "0"], path: demo, in: directory,
                              stderr: "--limit must be at least 1")
            try expectRefusal(["explain", demo], path: demo, in: directory,
                              stderr: "Missing expected argument '<event>'")
        }
    }

    @Test func aJournalIsAFileOrAShippedJournalNeverBothOrNeither() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/app.eventtree"
            _ = FileManager.default.createFile(atPath: journal, contents: Data("x".utf8))
            for command in ["sessions", "replay", "explain", "topology", "query", "tail", "verify", "report"] {
                // explain's own positional (the event) follows the journal.
                let event = command == "explain" ? ["5"] : []
                if command != "explain" {
                    try expectRefusal([command], path: journal, in: directory,
                        stderr: "name a journal file, or a fleet database with --from postgresql://…")
                }
                try expectRefusal([command, journal] + event + ["--from", "postgresql://me@db/fleet"], path: journal, in: directory,
                    stderr: "read a journal file or --from a database, not both")
                try expectRefusal([command, journal] + event + ["--journal", "5"], path: journal, in: directory,
                    stderr: "--journal names a shipped journal: use it with --from")
            }
            try expectRefusal(["explain", "--from", "postgresql://me@db/fleet"], path: journal, in: directory,
                stderr: "Missing expected argument '<event>'")
            try expectRefusal(["tail", "--from", "postgresql://me@db/fleet", "--follow"], path: journal, in: directory,
                stderr: "--follow watches a journal file as it is written; a shipped journal is read as of its last ship (drop --follow)")
            #if !PostgreSQL
            try expectRefusal(["replay", "--from", "postgresql://me@db/fleet"], path: journal, in: directory,
                stderr: "--from reads a fleet database, which needs an eventtree built with PostgreSQL support: swift build -c release --traits PostgreSQL")
            #endif
        }
    }

    @Test func hostileFilterStringsAreOnlyEverValues() async throws {
        try await withTemporaryDirectory { directory in
            let demo = directory + "/demo.eventtree"
            _ = try Tool.run(["demo", "--journal", demo], in: directory)
            let before = FileManager.default.contents(atPath: demo)
            let types = try JournalReader(path: demo).eventTypeNames().joined(separator: ", ")
            for hostile in ["x' OR '1'='1", "%", "app/%", "'; DROP TABLE j_calls; --", "app/_"] {
                let byType = try Tool.run(["query", demo, "--type", hostile, "--format", "csv"], in: directory)
                #expect(byType.status == 2)
                #expect(byType.stderr == "error: no event of type '\(hostile)' is in this journal; its types: \(types)\n")
                let byNode = try Tool.run(["query", demo, "--node", hostile, "--format", "csv"], in: directory)
                #expect(byNode.status == 2)
                #expect(byNode.stderr == "error: no node ever had the path '\(hostile)' in this journal; see 'eventtree topology'\n")
            }
            #expect(FileManager.default.contents(atPath: demo) == before)
        }
    }
}
