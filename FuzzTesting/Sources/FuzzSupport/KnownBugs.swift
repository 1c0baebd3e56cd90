import Foundation

/// Library bugs the fuzzers found that are not fixed yet, each with its regression test in
/// Tests/EventTreeCommandsTests/FuzzRegressionTests.swift (disabled, or a known issue,
/// until the fix).
///
/// A target skips the inputs that reach one, so that fuzzing goes on past it instead of
/// stopping at the same crash on every run. `FUZZ_KNOWN_BUGS=crash` turns the skipping
/// off (to see a bug, or to check that a fix removed it). When a bug is fixed, remove its
/// entry and enable its test: its input in FuzzTesting/Crashes/ must then pass unskipped.
///
/// None is open: the seven found so far (overflow traps on a negative or `Int.max` event,
/// session or checkpoint seq, on a checkpoint's record count and on `topology --at
/// Int.max`, and a path's line break splitting an error line) were fixed in 59598ff. An
/// entry looks like this:
///
/// ```swift
/// JournalBug(
///     test: "aSessionAtTheLargestSeqIsReplayedNotATrap",
///     query: "SELECT 1 FROM j_sessions WHERE session_id = 9223372036854775807")
/// ```
public enum KnownBugs {
    /// Whether inputs that reach a known bug are skipped.
    public static let areSkipped = ProcessInfo.processInfo.environment["FUZZ_KNOWN_BUGS"] != "crash"

    /// A journal that reaches a known bug, as a query that finds one of its rows (it may
    /// find more journals than the bug needs: skipping a few more inputs costs little).
    struct JournalBug {
        /// The regression test.
        let test: String
        let query: String
    }

    /// A command line that reaches a known bug.
    struct CommandLineBug {
        /// The regression test.
        let test: String
        let reaches: @Sendable ([String]) -> Bool
    }

    /// The known bugs that a damaged journal reaches.
    static let inJournals: [JournalBug] = []

    /// The known bugs that a command line reaches.
    static let inCommandLines: [CommandLineBug] = []

    /// Whether ``Scratch/journal`` reaches a known bug (and skipping is on).
    public static func reachedByJournal() -> Bool {
        guard areSkipped, !inJournals.isEmpty, let database = Database(path: Scratch.journal) else { return false }
        return inJournals.contains { !database.rows($0.query).isEmpty }
    }

    /// Whether a command line reaches a known bug (and skipping is on).
    public static func reachedByCommandLine(_ arguments: [String]) -> Bool {
        areSkipped && inCommandLines.contains { $0.reaches(arguments) }
    }
}
