import EventTree
import EventTreeJournal
import Foundation

struct Ping: Event { var n = 0 }
protocol Marked: Event {}
struct Tagged: Marked { var n = 0 }
struct Stage: Event { var index = 0 }
struct Ask: EventRequest { typealias Answer = Int }
struct Boom: Error {}

/// A recorder that keeps batches as they come, to feed a journal's writer later.
final class BatchRecorder: Recorder, @unchecked Sendable {
    // Safe: only used from one thread in the benchmark.
    let sequence = SequenceCounter()
    var batches: [([FactRecord], SessionID)] = []
    func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
        batches.append((records, session))
        return .accepted
    }

    /// How many handler calls the batches hold.
    var calls: Int {
        batches.reduce(0) { total, batch in
            total + batch.0.count { if case .handlerCalled = $0.fact { true } else { false } }
        }
    }
}

/// One node with `handlers` handlers that return `.handled`.
func flatNode(on bus: EventBus, handlers: Int = 10) -> EventNode {
    let node = EventNode("app", bus: bus)
    for index in 0..<handlers { node.on(Ping.self, label: "h\(index)") { _, _ in .handled } }
    return node
}

/// Batches for `steps` handler calls: a flat node with 10 handlers, raised steps/10 times.
func recordedBatches(steps: Int) -> BatchRecorder {
    let recorder = BatchRecorder()
    let bus = EventBus(recorder: recorder)
    let node = flatNode(on: bus)
    for index in 0..<(steps / 10) { node.raise(Ping(n: index)) }
    return recorder
}

/// Feeds `recorder`'s batches to a new journal at `path` and waits for the commit.
/// Returns the seconds from first record to committed.
func writeBatches(_ recorder: BatchRecorder, to path: String, options: JournalOptions = JournalOptions()) throws -> Double {
    var options = options
    options.capacity = max(options.capacity, recorder.batches.reduce(0) { $0 + $1.0.count } + 1)
    let journal = try Journal(path: path, options: options)
    // The records were numbered by the recorder's sequence; the journal's must have issued
    // them, as it would have had the bus recorded into it, each batch's first seq opening a
    // batch (a journal does not write records it did not number, and chains only what its
    // sequence has settled).
    let last = recorder.batches.last?.0.last?.seq ?? 0
    let firsts = Set(recorder.batches.compactMap { $0.0.first?.seq })
    while journal.sequence.peek <= last {
        _ = firsts.contains(journal.sequence.peek) ? journal.sequence.open() : journal.sequence.advance()
    }
    let seconds = try timed {
        for (records, session) in recorder.batches { _ = journal.record(records, session: session) }
        try journal.flush()
    }
    try journal.close()
    return seconds
}

/// A lock and an array: the floor for "record a step from the raising thread".
final class LockedLog: @unchecked Sendable {
    // Safe: `items` is guarded by `lock`.
    struct Item { var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0 }
    private let lock = NSLock()
    private var items: [Item] = []
    init() { items.reserveCapacity(1 << 20) }
    @inline(never)
    func append(_ value: Int) {
        lock.lock()
        if items.count == items.capacity { items.removeAll(keepingCapacity: true) }
        items.append(Item(a: value))
        lock.unlock()
    }
}

/// What handlers in baselines do: count, without being optimized away.
final class Counter: @unchecked Sendable {
    // Safe: each benchmark uses its counter from one thread.
    var value = 0
    @inline(never) func hit() { value &+= 1 }
}
