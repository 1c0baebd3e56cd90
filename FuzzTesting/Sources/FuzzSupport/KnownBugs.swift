import Foundation

/// Library bugs the fuzzers found that are not fixed yet, each with its regression test
/// (in Tests/EventTreeCommandsTests/FuzzRegressionTests.swift, disabled until the fix).
///
/// A target skips the inputs that reach one, so that fuzzing goes on past it instead of
/// stopping at the same crash on every run. `FUZZ_KNOWN_BUGS=crash` turns the skipping
/// off (to see a bug, or to check that a fix removed it). When a bug is fixed, remove its
/// entry here and enable its test.
public enum KnownBugs {
    /// Whether inputs that reach a known bug are skipped.
    public static let areSkipped = ProcessInfo.processInfo.environment["FUZZ_KNOWN_BUGS"] != "crash"

    /// A journal that reaches a known bug, as a query that finds one of its rows.
    struct JournalBug {
        /// The regression test.
        let test: String
        let query: String
    }

    /// The known bugs that a damaged journal reaches (each query may find more journals
    /// than the bug needs: skipping a few more inputs costs little).
    static let inJournals: [JournalBug] = [
        JournalBug(
            test: "anEventWithANegativeIDThatEndedIsDamagedNotATrap",
            query: "SELECT 1 FROM j_events WHERE event_id < 0 AND CAST(finished_back AS INTEGER) > 0"),
        JournalBug(
            test: "aSessionAtTheLargestSeqIsReplayedNotATrap",
            query: "SELECT 1 FROM j_sessions WHERE session_id = 9223372036854775807"),
        JournalBug(
            test: "explainingAnUnfinishedEventAtTheLargestSeqIsNotATrap",
            query: "SELECT 1 FROM j_events WHERE event_id = 9223372036854775807"),
        JournalBug(
            test: "aCheckpointCountingMoreRecordsThanAnyFileHoldsIsAlteredNotATrap",
            query: "SELECT 1 FROM j_chain WHERE CAST(records AS INTEGER) > 4611686018427387903"),
        JournalBug(
            test: "aCheckpointAtTheLargestSeqIsComparedWithAnExpectedHeadNotATrap",
            query: "SELECT 1 FROM j_chain WHERE upto_seq = 9223372036854775807"),
    ]

    /// Whether ``Scratch/journal`` reaches a known bug (and skipping is on).
    public static func reachedByJournal() -> Bool {
        guard areSkipped, let database = Database(path: Scratch.journal) else { return false }
        return inJournals.contains { !database.rows($0.query).isEmpty }
    }

    /// Whether a command line reaches a known bug of the commands.
    public static func reachedByCommandLine(_ arguments: [String]) -> Bool {
        // topologyAtTheLargestSeqIsRefusedNotATrap: `--at 9223372036854775807` overflows.
        areSkipped && arguments.first == "topology" && arguments.contains { $0.hasSuffix(String(Int.max)) }
    }

    /// Whether an argument reaches a known bug of the command line: its error message may
    /// then take more than one line.
    public static func allowsBrokenErrorLine(_ arguments: [String]) -> Bool {
        // errorLinesEchoArgumentsVerbatim: a path or value with a line break is echoed as is.
        areSkipped && arguments.contains { $0.contains(where: \.isNewline) }
    }
}
