import Synchronization

/// The one global sequence that orders every recorded fact of a bus (or of every bus
/// writing to one journal).
///
/// Every fact a bus records takes the next number: node and handler ids, event ids and
/// the `seq` of journal rows all come from here, so sorting by it gives the order in which
/// things happened, across threads.
public final class SequenceCounter: Sendable {
    private let next: Atomic<Int>

    /// Creates a counter whose first number is `first`.
    ///
    /// - Parameter first: The first number to hand out (a journal resumes after its last row).
    public init(startingAt first: Int = 1) {
        next = Atomic(first)
    }

    /// Takes the next number.
    public func advance() -> Int {
        next.add(1, ordering: .relaxed).oldValue
    }

    /// The number the next call to ``advance()`` will return.
    public var peek: Int { next.load(ordering: .relaxed) }
}
