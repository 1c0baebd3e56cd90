import EventTree

/// An in-memory recorder that turns what a bus records into a readable trace, for tests
/// (ours and yours) to assert exactly.
///
/// ```swift
/// let recorder = TraceRecorder()
/// let bus = EventBus(recorder: recorder)
/// // … build a tree, raise events …
/// #expect(recorder.calls == ["app/settings target log -> handled"])
/// ```
public final class TraceRecorder: Recorder, @unchecked Sendable {
    // Safe: `stored` is read and written only with `lock` held.
    private let lock = Lock()
    private var stored: [FactRecord] = []

    /// The sequence facts are numbered in.
    public let sequence: SequenceCounter

    /// Creates an empty recorder.
    public init() {
        sequence = SequenceCounter()
    }

    /// Keeps the records in memory.
    ///
    /// - Returns: `RecordingStatus.accepted`: memory is not stable storage.
    public func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        lock.withLock { stored.append(contentsOf: records) }
        return .accepted
    }

    /// Every record so far, in sequence order.
    public var records: [FactRecord] {
        lock.withLock { stored }.sorted { $0.seq < $1.seq }
    }

    /// Forgets every record so far (the tree it describes is still known for paths).
    public func clear() {
        lock.withLock { marker = stored.map(\.seq).max() ?? marker }
    }

    private var marker = 0

    /// One line per fact since the last ``clear()``, in sequence order (matches and
    /// session facts left out). Paths are as they stood when each fact happened.
    ///
    /// The lines read: `create NAME`, `attach PATH`, `detach PATH`, `move PATH`,
    /// `rename OLDPATH -> NAME`, `release PATH`, `add LABEL on PATH`, `remove LABEL on PATH`,
    /// `raise TYPE at PATH MODE[ cause TYPE][ from TYPE]`,
    /// `call PATH PHASE LABEL -> OUTCOME[ (DETAIL)]`, `undelivered PATH PHASE`,
    /// `end TYPE STATUS`, `dead letter TYPE`, `unhandled error TYPE`.
    public var lines: [String] {
        let since = lock.withLock { marker }
        return TraceRenderer(records: records).lines(after: since)
    }

    /// Only the `call …` and `undelivered …` lines of ``lines``, without their keyword.
    public var calls: [String] {
        lines.compactMap { line in
            if line.hasPrefix("call ") { return String(line.dropFirst(5)) }
            if line.hasPrefix("undelivered ") { return line }
            return nil
        }
    }
}
