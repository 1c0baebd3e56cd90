/// Where the rows a query's filters match can lie, read from the journal's keys: the lowest
/// seq at or after a given one that such a row may have.
///
/// ``DeliveryHistoryReader`` jumps there from each stretch of seqs it has read, so that a
/// filter matching few rows, or none, reads little more than the rows it prints instead of
/// unpacking every call between them. A bound may be low (a row at it may still not match);
/// it is never past a matching row.
struct MatchingRowSeqs {
    /// Each filter's bound: the lowest seq at or after the one given where a row it matches
    /// may be, or `nil` when there is none.
    private var bounds: [(Int) throws -> Int?] = []

    /// No bound: every seq may hold a matching row.
    init() {}

    /// Adds a filter's bound.
    mutating func add(_ bound: @escaping (Int) throws -> Int?) { bounds.append(bound) }

    /// Adds that no matching row lies before `first`.
    mutating func skipBefore(_ first: Int) { add { max($0, first) } }

    /// Adds that no matching row lies after `last`.
    mutating func stopAfter(_ last: Int) { add { $0 <= last ? $0 : nil } }

    /// The lowest seq at or after `seq` where a row every filter matches may be, or `nil`
    /// when there is none: each bound moves it on until none does.
    func next(atOrAfter seq: Int) throws -> Int? {
        var seq = seq
        var moved = true
        while moved {
            moved = false
            for bound in bounds {
                guard let next = try bound(seq) else { return nil }
                if next > seq {
                    seq = next
                    moved = true
                }
            }
        }
        return seq
    }
}
