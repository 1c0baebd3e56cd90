#if PostgreSQL
import Foundation

/// What one ship of a journal added to the fleet database.
public struct ShipReport: Sendable, Equatable {
    /// The journal's identity (`JournalReader.journalID()`).
    public let journalID: UUID
    /// The journal's path.
    public let path: String
    /// The seq shipped up to before this ship (0 for a journal never shipped).
    public let fromSeq: Int
    /// The seq shipped up to now: every settled record of the journal up to it is in the database.
    public let throughSeq: Int
    /// The rows each view's table gained (refreshed rows, such as a session that ended
    /// since, count once), by view name.
    public let addedRows: [String: Int]
    /// The transactions committed.
    public let batches: Int

    /// All rows added.
    public var totalAddedRows: Int { addedRows.values.reduce(0, +) }

    /// One line: `Shipped 1,234 rows of PATH (journal ID), seqs 1…5,000, in 1 batch.`
    public var line: String {
        let seqs = throughSeq == fromSeq ? "nothing new after seq \(throughSeq)" : "seqs \(fromSeq + 1)…\(throughSeq)"
        return "Shipped \(totalAddedRows) rows of \(path) (journal \(journalID.uuidString.lowercased())), \(seqs), in \(batches) batch\(batches == 1 ? "" : "es")."
    }
}
#endif
