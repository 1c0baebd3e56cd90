/// Describes one session: one bus's recorded lifetime.
public struct SessionInfo: Sendable, Hashable {
    /// The session's id.
    public var id: SessionID
    /// The recording process's name.
    public var process: String
    /// The host it ran on.
    public var host: String
    /// The embedding app's version, if it gave one.
    public var appVersion: String?
    /// When the session started, in seconds since 1970.
    public var startedAt: Double
    /// The bus clock's monotonic reading at the same moment (see ``EventClock``): raises
    /// and calls are timed on that clock, and placed in time relative to this reading.
    public var startedAtNanoseconds: Int

    /// Creates a description.
    public init(
        id: SessionID, process: String, host: String, appVersion: String?, startedAt: Double,
        startedAtNanoseconds: Int = 0
    ) {
        self.id = id
        self.process = process
        self.host = host
        self.appVersion = appVersion
        self.startedAt = startedAt
        self.startedAtNanoseconds = startedAtNanoseconds
    }
}
