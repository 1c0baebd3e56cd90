import Synchronization

/// The one global sequence that orders every recorded fact of a bus (or of every bus
/// writing to one journal).
///
/// Every fact a bus records takes the next number: node and handler ids, event ids and
/// the `seq` of journal rows all come from here, so sorting by it gives the order in which
/// things happened, across threads.
///
/// A recorder whose readers follow it live (a journal) creates its counter with
/// `tracksOpenBatches: true`. Then each batch of records a bus will hand over starts with a
/// number taken by ``open()``, and the recorder settles that number when it takes the batch
/// (``settle(_:)-(Int)``, or ``settle(_:)-([Int])`` for all it took at once); ``settledBelow``
/// then says below which number every fact is either handed over or will never be, even
/// though threads hand their batches over out of order.
public final class SequenceCounter: @unchecked Sendable {
    // Safe: `next` is atomic; `openBatches` is guarded by `lock`.
    private let next: Atomic<Int>
    /// Guards `openBatches` (never taken when batches are not tracked).
    private let lock = Lock()
    /// Whether batches are tracked until settled.
    public let tracksOpenBatches: Bool
    /// Guarded by `lock`, so the per-access dynamic exclusivity check is left out.
    @exclusivity(unchecked) private var openBatches = OpenBatches()

    /// Creates a counter whose first number is `first`.
    ///
    /// - Parameters:
    ///   - first: The first number to hand out (a journal resumes after its last row).
    ///   - tracksOpenBatches: Whether to track batches taken with ``open()`` until they are
    ///     settled (see ``settledBelow``).
    public init(startingAt first: Int = 1, tracksOpenBatches: Bool = false) {
        next = Atomic(first)
        self.tracksOpenBatches = tracksOpenBatches
    }

    /// Takes the next number.
    public func advance() -> Int {
        // Wrapping: one locked add. (A checked add is a compare-and-exchange loop, and the
        // counter cannot reach `Int.max`: at a billion numbers a second that takes 292 years.)
        next.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The number the next call to ``advance()`` will return.
    public var peek: Int { next.load(ordering: .relaxed) }

    /// Takes the next number as the first of a batch of records that a recorder will
    /// settle with ``settle(_:)-(Int)`` (the same as ``advance()`` when batches are not tracked).
    public func open() -> Int {
        guard tracksOpenBatches else { return advance() }
        lock.lock()
        defer { lock.unlock() }
        // Under the lock, so that open batches are appended in ascending order.
        let first = next.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        openBatches.append(first)
        return first
    }

    /// Marks the batch that ``open()`` started with `first` as handed over.
    public func settle(_ first: Int) {
        guard tracksOpenBatches else { return }
        lock.withLock { _ = openBatches.settle(first) }
    }

    /// Marks the batches that ``open()`` started with `firsts` as handed over, under one
    /// acquisition of the lock: for a recorder that takes batches in bulk.
    ///
    /// - Returns: The numbers of `firsts` that started no open batch (when batches are
    ///   tracked): a batch beginning with one was not numbered by this counter's ``open()``.
    @discardableResult
    public func settle(_ firsts: [Int]) -> [Int] {
        guard tracksOpenBatches, !firsts.isEmpty else { return [] }
        return lock.withLock { firsts.filter { !openBatches.settle($0) } }
    }

    /// Every number below this one belongs to a settled batch, or to no batch at all: a
    /// fact numbered lower can no longer arrive. Without tracking, the next number.
    public var settledBelow: Int {
        guard tracksOpenBatches else { return peek }
        return lock.withLock { openBatches.oldest ?? next.load(ordering: .sequentiallyConsistent) }
    }
}

/// The first numbers of open batches, ascending, with the settled ones marked (negated)
/// until the oldest open one is settled.
private struct OpenBatches {
    /// A batch's first number, negated once settled. Numbers are positive.
    private var firsts: [Int] = []
    private var head = 0

    var oldest: Int? { head < firsts.count ? firsts[head] : nil }

    mutating func append(_ first: Int) {
        firsts.append(first)
    }

    /// Settles the open batch that starts with `first`; `false` when there is none.
    @discardableResult
    mutating func settle(_ first: Int) -> Bool {
        // Batches mostly settle in the order they opened: the oldest first.
        if head < firsts.count && firsts[head] == first {
            head += 1
        } else {
            // Binary search: `firsts` is ascending by magnitude.
            var low = head
            var high = firsts.count
            while low < high {
                let middle = (low + high) / 2
                if abs(firsts[middle]) < first { low = middle + 1 } else { high = middle }
            }
            guard low < firsts.count, firsts[low] == first else { return false }
            firsts[low] = -first
        }
        while head < firsts.count && firsts[head] < 0 { head += 1 }
        // Settled entries are dropped in bulk (amortised), not one by one as they settle.
        if head > 1_024 && head * 2 > firsts.count {
            firsts.removeFirst(head)
            head = 0
        }
        return true
    }
}
