import EventTree
import EventTreeJournal

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

    /// The bounds `query`'s filters set, looked up in `reader`.
    init(_ query: Query, in reader: JournalReader) throws {
        if let session = query.session { starting(at: session) }
        if let event = query.event {
            starting(at: event)
            ending(at: try reader.lastHistorySeq(ofChainFrom: event) ?? event)
        }
        if let handler = query.handler {
            if let id = Int(handler) {
                starting(at: id)
            } else if let first = try reader.firstRegistration(ofHandlerLabelled: handler) {
                starting(at: first)
            }
        }
        if let node = query.node, let first = try reader.firstSeq(ofNodePath: node) { starting(at: first) }
        if let phase = query.phase.flatMap({ Phase(name: $0.name) }), try !reader.hasHandler(registeredFor: phase) {
            // No call is in that phase: only steps lost in it are.
            add { seq in try reader.nextSeq(of: .undeliveredStep(phase: phase), atOrAfter: seq) }
        }
        if let landmark = query.outcome.flatMap({ Self.landmark(ofOutcome: $0.name) }) {
            add { seq in try reader.nextSeq(of: landmark, atOrAfter: seq) }
        }
    }

    /// The rows of an outcome the journal's keys find, if they do.
    private static func landmark(ofOutcome outcome: String) -> DeliveryHistoryLandmark? {
        switch outcome {
        case Outcome.Kind.failed.rawValue, Outcome.Kind.answered.rawValue: .failedOrAnsweringCall
        case "undelivered": .undeliveredStep(phase: nil)
        case "deadLetter", "unhandledError": .unattendedReport
        default: nil
        }
    }

    /// Adds a bound.
    mutating func add(_ bound: @escaping (Int) throws -> Int?) { bounds.append(bound) }

    /// No matching row lies before `first`.
    mutating func starting(at first: Int) { add { max($0, first) } }

    /// No matching row lies after `last`.
    mutating func ending(at last: Int) { add { $0 <= last ? $0 : nil } }

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
