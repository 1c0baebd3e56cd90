/// How a journal writes.
public struct JournalOptions: Sendable {
    /// What a raise waits for.
    public enum Durability: Sendable, Hashable {
        /// The raising thread appends its records to a buffer and returns; a writer thread
        /// commits batches (at most ``maxDelay`` later) with `synchronous=NORMAL`: a crash of
        /// the process loses nothing committed, a power loss may lose the last batches.
        case buffered
        /// A raise returns only once its records are committed with `synchronous=FULL`
        /// (threads raising together share commits). Survives power loss.
        case durable
    }

    /// What a raise does when the buffer is full (the disk is slow, or failing).
    public enum WhenFull: Sendable, Hashable {
        /// Wait until the writer makes room: nothing is ever dropped.
        case block
        /// Drop the raise's records, count them, and journal the count once writing resumes.
        case drop
    }

    /// See ``Durability``; buffered by default.
    public var durability: Durability = .buffered
    /// How many records the buffer holds before ``whenFull`` applies.
    public var capacity: Int = 1 << 20
    /// See ``WhenFull``; block by default.
    public var whenFull: WhenFull = .block
    /// How long buffered records may wait before the writer commits them.
    public var maxDelay: Duration = .milliseconds(50)
    /// How many records one transaction holds at most (whole raises are never split).
    public var transactionSize: Int = 50_000
    /// How long the writer waits before retrying after a failed write.
    public var retryDelay: Duration = .milliseconds(100)
    /// A size limit for the journal file, in bytes (`PRAGMA max_page_count`). Writes past it
    /// fail like a full disk: surfaced, retried, nothing dropped silently.
    public var maximumSize: Int?
    /// Called on the writer thread when writing starts failing or recovers.
    public var onStatusChange: (@Sendable (JournalStatus) -> Void)?

    /// The defaults: buffered, blocking when full, 50 ms batches.
    public init() {}
}

/// Whether the journal is writing.
public enum JournalStatus: Sendable, Equatable {
    /// Records are being committed.
    case healthy
    /// The last write failed; records are kept (bounded by the capacity) and retried.
    case failing(JournalError)
}
