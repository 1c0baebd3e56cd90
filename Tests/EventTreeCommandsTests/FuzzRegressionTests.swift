import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// What the fuzz targets of FuzzTesting/ found, each reduced to a minimal reproducer: a
/// journal or a command line that must get exit 0, or exit 2 with one `error:` line (a
/// thrown `JournalError`), never a crash. The inputs are kept in FuzzTesting/Crashes/.
///
/// A bug found later gets its test here first (disabled while it crashes the tool, or in
/// `withKnownIssue`), and an entry in FuzzTesting/Sources/FuzzSupport/KnownBugs.swift that
/// keeps the fuzzers from stopping at it, until it is fixed.
@Suite struct FuzzRegressionTests {
    /// A copy of the demo journal in `directory`, altered by `sql` as `sqlite3` would.
    func demo(in directory: String, altered sql: String) throws -> String {
        let path = directory + "/demo.eventtree"
        let made = try Tool.run(["demo", "--journal", path, "--format", "csv"], in: directory)
        #expect(made.status == 0, "\(made.stderr)")
        try? FileManager.default.removeItem(atPath: path + ".lock")
        sqliteExecute(path, "PRAGMA journal_mode = DELETE; " + sql)
        return path
    }

    /// Runs the tool: it must answer (exit 0 or 1) or refuse with exactly one `error:` line
    /// (exit 2), and never crash or hang.
    @discardableResult
    func expectAnswerOrOneErrorLine(
        _ arguments: [String], in directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Tool.Result {
        let result = try Tool.run(arguments, in: directory, timeout: 30)
        #expect([0, 1, 2].contains(result.status), "exit \(result.status): \(result.stderr.prefix(300))", sourceLocation: sourceLocation)
        if result.status == 2 {
            #expect(result.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr.debugDescription)", sourceLocation: sourceLocation)
        }
        return result
    }

    @Test
    func anEventWithANegativeIDThatEndedIsDamagedNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-reader/negative-event-id: an event moved to seq -8.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: """
                UPDATE j_events SET event_id = -8
                WHERE event_id = (SELECT max(event_id) FROM j_events WHERE finished_back IS NOT NULL)
                """)
            for command in [["replay"], ["explain", "--", "-8"], ["query"], ["verify"]] {
                try expectAnswerOrOneErrorLine([command[0], path] + command.dropFirst(), in: directory)
            }
        }
    }

    @Test
    func aSessionAtTheLargestSeqIsReplayedNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-reader/session-at-int-max.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: "UPDATE j_sessions SET session_id = \(Int.max)")
            for command in ["replay", "sessions", "topology", "query", "verify"] {
                try expectAnswerOrOneErrorLine([command, path], in: directory)
            }
        }
    }

    @Test
    func explainingAnUnfinishedEventAtTheLargestSeqIsNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-reader/explain-event-at-int-max: the first event moved
        // to the largest seq, its end erased.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: """
                UPDATE j_events SET event_id = \(Int.max), finished_back = NULL
                WHERE event_id = (SELECT min(event_id) FROM j_events)
                """)
            for command in [["explain", String(Int.max)], ["replay"], ["report", "--output", "-"]] {
                try expectAnswerOrOneErrorLine([command[0], path] + command.dropFirst(), in: directory)
            }
        }
    }

    @Test
    func aCheckpointCountingMoreRecordsThanAnyFileHoldsIsAlteredNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-verify/chain-records-huge.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: "UPDATE j_chain SET records = 8103212875162547566")
            let result = try expectAnswerOrOneErrorLine(["verify", path], in: directory)
            #expect(result.status == 1)
            #expect(result.stdout.hasPrefix("altered at seq "), "\(result.stdout)")
        }
    }

    @Test
    func aCheckpointAtTheLargestSeqIsComparedWithAnExpectedHeadNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-verify/chain-upto-int-max.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: "UPDATE j_chain SET upto_seq = \(Int.max)")
            let head = "0:" + String(repeating: "0", count: 64)
            let result = try expectAnswerOrOneErrorLine(["verify", path, "--expect-head", head], in: directory)
            #expect(result.status == 1)
            #expect(result.stdout.hasPrefix("altered at seq "), "\(result.stdout)")
        }
    }

    @Test
    func topologyAtTheLargestSeqShowsTheTreeNotATrap() async throws {
        // FuzzTesting/Crashes/fuzz-commands/topology-at-int-max.
        try await withTemporaryDirectory { directory in
            let path = try demo(in: directory, altered: "")
            let atEnd = try expectAnswerOrOneErrorLine(["topology", path], in: directory)
            let atMax = try expectAnswerOrOneErrorLine(["topology", path, "--at", String(Int.max)], in: directory)
            // The tree at the largest seq is the tree at the end (only the seq shown differs).
            #expect(atMax.status == 0)
            #expect(atMax.stdout.split(separator: "\n").dropFirst() == atEnd.stdout.split(separator: "\n").dropFirst())
        }
    }

    @Test func anErrorAboutAPathWithALineBreakStaysOnOneLine() async throws {
        // FuzzTesting/Crashes/fuzz-commands/path-with-line-break: a file name may hold any
        // byte but NUL and /; the one-line promise must hold for all of them.
        try await withTemporaryDirectory { directory in
            let path = directory + "/no\nsuch.eventtree"
            let result = try Tool.run(["sessions", path], in: directory)
            #expect(result.status == 2)
            #expect(result.stderr == "error: no journal at \(directory)/no\\nsuch.eventtree: check the path\n")
        }
    }
}
