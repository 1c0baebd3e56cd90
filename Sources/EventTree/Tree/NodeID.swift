/// Identifies one node of a tree: the sequence number of the fact that created it.
///
/// Ids are unique within a journal (they are taken from its one global sequence) and
/// within a process for buses that share no journal. They print as `#<number>`.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The underlying sequence number.
    public let rawValue: Int

    /// Wraps a sequence number, as read from a journal.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Orders ids by sequence: an earlier id was issued first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` followed by the number.
    public var description: String { "#\(rawValue)" }
}
