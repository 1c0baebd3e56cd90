import Foundation

/// How much history a journal keeps: limits by size, session age and session count,
/// enforced on whole closed sessions, oldest first.
///
/// ```swift
/// var options = JournalOptions()
/// options.retention = JournalRetention(maximumSize: 50 << 20, maximumSessionAge: .seconds(7 * 86_400))
/// let journal = try Journal(path: "app.eventtree", options: options)
/// ```
///
/// The writer applies the limits when the journal opens and whenever a session ends; a
/// session still being recorded is never removed, so the file exceeds ``maximumSize`` by
/// at most the sessions under way. Each prune removes the oldest sessions together with
/// every record of theirs, shrinks the file, and leaves a chained record of what it
/// removed (the `journal_prunes` view), from which `eventtree verify` proves the rest.
public struct JournalRetention: Sendable {
    /// The size, in bytes, above which the oldest closed sessions are removed.
    public var maximumSize: Int?
    /// How long after it ended a session is kept (a session that never ended: after it
    /// started).
    public var maximumSessionAge: Duration?
    /// How many sessions are kept, the newest ones (sessions under way count).
    public var maximumSessions: Int?
    /// The wall clock that session ages are measured on, in seconds since 1970: tests
    /// inject their own.
    public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Limits; `nil` lifts one.
    public init(maximumSize: Int? = nil, maximumSessionAge: Duration? = nil, maximumSessions: Int? = nil) {
        self.maximumSize = maximumSize
        self.maximumSessionAge = maximumSessionAge
        self.maximumSessions = maximumSessions
    }

    /// Keeps everything (the default).
    public static let unlimited = JournalRetention()

    /// Whether no limit is set.
    public var isUnlimited: Bool { maximumSize == nil && maximumSessionAge == nil && maximumSessions == nil }
}

/// What one prune removed from a journal.
public struct JournalPrune: Sendable, Hashable {
    /// The pruned sessions' ids, oldest first.
    public let sessions: [Int]
    /// The last seq removed: the journal now starts after it.
    public let throughSeq: Int
    /// How many chained records were removed.
    public let records: Int
    /// The seq of the chained record that says so (`journal_prunes`).
    public let anchorSeq: Int
    /// Which limit asked for it: `size`, `age`, `sessions` or `extract`.
    public let reason: String
    /// The file's size before and after (bytes, with its write-ahead log's content
    /// checkpointed into it).
    public let bytesBefore: Int
    /// See ``bytesBefore``.
    public let bytesAfter: Int

    /// Says what went, as `eventtree prune` prints it.
    public var line: String {
        let count = sessions.count == 1 ? "1 session" : "\(sessions.count) sessions"
        let ids = sessions.count <= 8
            ? sessions.map(String.init).joined(separator: ", ")
            : "\(sessions[0]) … \(sessions[sessions.count - 1])"
        return "pruned \(count) (\(ids)): \(records) records through seq \(throughSeq), by \(reason); "
            + "\(bytesBefore) → \(bytesAfter) bytes; anchored at seq \(anchorSeq)"
    }
}
