import Crypto

/// How a journal writes.
public struct JournalOptions: Sendable {
    /// What a raise waits for.
    public enum Durability: Sendable, Hashable {
        /// The raising thread appends its records to a buffer and returns; a writer thread
        /// commits batches (at most ``maxDelay`` later) with `synchronous=NORMAL`: a crash of
        /// the process loses at most the unwritten backlog (bounded by ``maxBacklog``), a
        /// power loss may also lose the last committed transactions.
        case buffered
        /// A raise returns once its records are committed with `synchronous=FULL` (threads
        /// raising together share commits), and its result says `RaiseResult.isDurable`.
        /// When they cannot be committed within ``durableTimeout`` the raise returns with
        /// `isDurable == false` and the records stay queued for retry.
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
    /// How many records the buffer holds, written or not, before ``whenFull`` applies.
    /// While writes fail, records wait here for the retry.
    public var capacity: Int = 1 << 20
    /// See ``WhenFull``; block by default.
    public var whenFull: WhenFull = .block
    /// How long buffered records may wait before the writer commits them.
    public var maxDelay: Duration = .milliseconds(50)
    /// How many records may wait unwritten while writes succeed before a buffered raise
    /// waits for the writer: the bound on what a crash can lose in buffered mode. Raisers
    /// faster than the disk are slowed to its pace instead of piling up a backlog. Applies
    /// under ``WhenFull/block``; while writes fail, ``capacity`` bounds the buffer instead.
    /// The journal keeps the emptied buffers of written records for later raises, up to room
    /// for four times this many records (about 5.8 MiB at the default) until it closes.
    public var maxBacklog: Int = 16_384
    /// How many records one transaction holds at most (whole raises are never split).
    /// After a failed write the writer retries with smaller transactions, down to one
    /// raise, so that whatever space was freed is used.
    public var transactionSize: Int = 50_000
    /// How long the writer waits before retrying after a failed write.
    public var retryDelay: Duration = .milliseconds(100)
    /// How long a durable raise waits for its commit while writes fail before it returns
    /// with `RaiseResult.isDurable` `false` (its records stay queued and are retried).
    public var durableTimeout: Duration = .seconds(2)
    /// How long ``Journal/close()`` keeps retrying failed writes before it gives up and
    /// reports the records it could not write.
    public var closeTimeout: Duration = .seconds(5)
    /// A size limit for the journal file, in bytes (`PRAGMA max_page_count`). With
    /// ``retention`` limits set, a write that reaches it first prunes the oldest closed
    /// session and is retried at once; otherwise (or with no closed session left) writes past
    /// it fail like a full disk: surfaced, retried, nothing dropped silently.
    public var maximumSize: Int?
    /// The size the write-ahead log is truncated to after a checkpoint resets it
    /// (`PRAGMA journal_size_limit`), in bytes. The writer checkpoints after each commit
    /// that leaves more than ``checkpointPages`` pages in the log.
    public var walSizeLimit: Int = 4 << 20
    /// How many pages the write-ahead log may hold before the writer checkpoints it after a
    /// commit (PASSIVE). Past three times as many (readers kept the log from restarting),
    /// the checkpoint waits up to 50 ms for the readers of the moment, then restarts it.
    public var checkpointPages: Int = 1_000
    /// Called on the writer thread when writing starts failing, recovers, or the journal closes.
    public var onStatusChange: (@Sendable (JournalStatus) -> Void)?
    /// Called on the writer thread with the hash chain's head, at most every
    /// ``checkpointInterval``, when a session ends, and when the journal closes: ship it
    /// somewhere the journal's owner cannot rewrite, so that `eventtree verify --expect-head`
    /// can later prove the journal was neither cut short nor rewritten.
    public var onCheckpoint: (@Sendable (JournalCheckpoint) -> Void)?
    /// A file the writer replaces with each checkpoint's line (`SEQ:HASH`, then the
    /// signature when ``checkpointSigningKey`` is set), for `eventtree verify --checkpoint`.
    /// Keep it out of reach of whoever could alter the journal.
    public var checkpointFile: String?
    /// How often a checkpoint is handed out while records are written.
    public var checkpointInterval: Duration = .seconds(1)
    /// A key to sign each checkpoint with (Ed25519): `verify --public-key` then proves who
    /// wrote it.
    public var checkpointSigningKey: Curve25519.Signing.PrivateKey?
    /// Whether records are hash-chained. Turn it off only to measure what the chain costs:
    /// a journal without it cannot be verified.
    public var chainsRecords = true
    /// Which payload values are replaced before they are stored (see ``Redaction``): by
    /// default, fields whose names say they hold a credential (``Redaction/defaultDeniedFieldNames``)
    /// and those each event type lists in `redactedFields`. ``Redaction/none`` stores every
    /// payload as encoded.
    public var redaction = Redaction()
    /// Whether each session records the name of the host it ran on. Off by default: a host
    /// name often identifies a person's device; sessions then store an empty host.
    public var recordsHostName = false

    /// How much history the journal keeps (see ``JournalRetention``): everything by default.
    /// The writer prunes the oldest closed sessions when the journal opens and whenever a
    /// session ends; with a size limit, ``maximumSize`` then makes room rather than stops
    /// recording.
    public var retention = JournalRetention.unlimited
    /// Called on the writer's thread (or, when the journal opens, on the opening thread)
    /// with what each prune removed.
    public var onPrune: (@Sendable (JournalPrune) -> Void)?

    /// The defaults: buffered, blocking when full, 50 ms batches.
    public init() {}
}

/// Whether the journal is writing.
public enum JournalStatus: Sendable, Equatable {
    /// Records are being committed.
    case healthy
    /// The last write failed; records are kept (bounded by the capacity) and retried.
    case failing(JournalError)
    /// The journal is closed: later records are counted and not written; `unrecorded` says
    /// how many records (of later raises, or left unwritten at close) it did not write.
    case closed(unrecorded: Int)
}
