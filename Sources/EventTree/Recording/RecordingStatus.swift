/// What became of a raise's records: whether the recorder holds them, and whether they
/// are on stable storage yet.
///
/// A durable journal answers ``durable`` only once the raise's records are committed with
/// `synchronous=FULL`; when they cannot be (a full disk, an I/O error) it waits for a
/// bounded time and then answers ``notDurable(reason:)`` instead of pretending.
public enum RecordingStatus: Sendable, Hashable, CustomStringConvertible {
    /// Nothing was recorded: the bus has no recorder, or its session has ended.
    case notRecorded
    /// The records were accepted and will be written later (a buffered journal), or kept
    /// in memory (an in-memory recorder). A crash may still lose them.
    case accepted
    /// The records are committed to stable storage: a crash or a power cut keeps them.
    case durable
    /// The raise ran inside another raise's delivery on the same bus: its records travel
    /// with that outermost raise, whose result says what became of them.
    case withEnclosingRaise
    /// A durable raise whose records could not be committed in time. They stay queued
    /// and are retried; `reason` says what went wrong.
    case notDurable(reason: String)
    /// The records were not kept (the journal was closed, or its buffer was full under
    /// the dropping policy). The recorder counts and reports them.
    case dropped(reason: String)

    /// Whether the records are committed to stable storage.
    public var isDurable: Bool { self == .durable }

    /// The case name, with the reason when there is one.
    public var description: String {
        switch self {
        case .notRecorded: "not recorded"
        case .accepted: "accepted"
        case .durable: "durable"
        case .withEnclosingRaise: "recorded with the enclosing raise"
        case .notDurable(let reason): "not durable: \(reason)"
        case .dropped(let reason): "dropped: \(reason)"
        }
    }
}
