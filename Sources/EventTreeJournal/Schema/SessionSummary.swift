import EventTree

/// One row of the `sessions` view.
public struct SessionSummary: Sendable, Hashable {
    /// The session's id.
    public let id: SessionID
    /// When it started (ISO-8601 UTC, `2026-11-23T17:20:51.123Z`).
    public let startedAt: String
    /// When it ended, if it did.
    public let endedAt: String?
    /// The recording process.
    public let process: String
    /// Raises recorded.
    public let events: Int
    /// Handler calls and undelivered steps recorded.
    public let steps: Int
    /// Records the journal dropped.
    public let dropped: Int
    /// The host it ran on.
    public let host: String
    /// The app's version, if it gave one.
    public let appVersion: String?
}
