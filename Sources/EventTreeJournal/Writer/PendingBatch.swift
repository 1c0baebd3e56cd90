import EventTree

/// Records handed over in one recorder call: written in one transaction, never split.
struct PendingBatch: Sendable {
    /// Emptied once committed, its room to be handed back to a raise (see
    /// `JournalWriter.recycle`).
    var records: RecordBatch
    let session: SessionID
    let ticket: Int
    /// The number of the thread that raised them (see `RaisingThread`); `nil` for changes
    /// to the tree and the handlers.
    let thread: Int?
    /// Why the batch is not to be written, when the writer found that the journal's sequence
    /// did not number it: the transaction that takes it writes its note instead.
    var refusal: String?

    /// Its records and their seqs, for a note: "12 records (seq 40 to 51)".
    var span: String {
        let count = records.count
        return "\(count) record\(count == 1 ? "" : "s") (seq \(records[0].seq) to \(records[count - 1].seq))"
    }
}

/// A note the writer adds to the journal about its own trouble.
struct TroubleNote: Sendable {
    let session: SessionID?
    let kind: String
    let message: String
    let records: Int
    /// Whether the records are lost to the journal: counted as dropped by their session.
    var countsAsDropped = false
}
