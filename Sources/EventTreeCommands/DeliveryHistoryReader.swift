import EventTreeJournal

/// Reads the delivery history in seq order, fast on big journals: handler calls, steps
/// lost to released nodes, and dead letters and unhandled errors (as rows of their own
/// `outcome`, `deadLetter` and `unhandledError`).
///
/// The journal is read a window of seqs at a time: in each, the three views
/// (`call_history`, `undelivered_history`, `unattended_history`) are read in seq order and
/// merged, so that a `LIMIT` stops the reading as soon as it has enough (asking their union
/// to sort would sort every matching row first). Calls come by the runs that can hold the
/// window's seqs (``JournalReader/historyQuery(of:seqs:extent:)``): a condition on the call
/// view's seq cannot reach the packed runs' key. Each window is its own read transaction,
/// so that a reader following a journal never holds the writer's log for long.
struct DeliveryHistoryReader {
    static let columns = [
        "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label", "handler_location",
        "outcome", "error", "duration_ns", "answer", "at",
    ]
    /// The views other than `call_history`, whose rows are found by their seq directly.
    static let views = ["undelivered_history", "unattended_history"]
    /// How many seqs the first window covers (a `LIMIT` is met early); each next one covers
    /// twice as many, up to ``largestWindow`` (past a stretch without rows, without limit: a
    /// gap takes a few dozen windows at most). The largest window is small enough that a
    /// window's read transaction is short beside a writer that outpaces it (8,192 seqs; at
    /// 65,536 a debug build's `tail` held one for about a second, past the writer's 50 ms
    /// wait to restart the log, which then grew past 16 MiB).
    static let firstWindow = 1_024
    static let largestWindow = 8_192

    let reader: JournalReader

    /// Calls `body` with each row with a seq in `seqs` matching `conditions` (SQL over the
    /// views' columns, the row named `h`, with `?` bound to `arguments`), in seq order, at
    /// most `limit` of them. Stretches of seqs where `matching` says no such row lies are
    /// not read.
    ///
    /// - Returns: How many seqs the windows it read covered.
    @discardableResult
    func forEachRow(
        where conditions: [String], _ arguments: [JournalValue], seqs: ClosedRange<Int> = 1...Int.max - 1,
        matching: MatchingRowSeqs = MatchingRowSeqs(), limit: Int?, _ body: (JournalRow) throws -> Void
    ) throws -> Int {
        let filter = conditions.isEmpty ? " ORDER BY seq" : " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY seq"
        let select = "SELECT \(Self.columns.joined(separator: ", ")) FROM "
        let extent = try reader.deliveryHistoryExtent()
        let end = min(seqs.upperBound, extent.lastSeq)
        var next = try matching.next(atOrAfter: seqs.lowerBound)
        var size = Self.firstWindow
        var emitted = 0
        var covered = 0
        while let from = next, from <= end {
            let to = end - from < size ? end : from + size - 1
            covered += to - from + 1
            let calls = try reader.historyQuery(of: "call_history", seqs: from..<to + 1, extent: extent)
            let queries = ["(\(calls))"] + Self.views.map { "(SELECT * FROM \($0) WHERE seq >= \(from) AND seq <= \(to))" }
            let sources = try queries.map { try reader.cursor(select + $0 + " AS h" + filter, arguments) }
            let found = sources.contains(where: \.hasRow)
            while let source = sources.filter(\.hasRow).min(by: { $0.row.int(0) < $1.row.int(0) }) {
                try body(source.row)
                emitted += 1
                if let limit, emitted >= limit { return covered }
                try source.advance()
            }
            size = found ? min(size * 2, Self.largestWindow) : (size < 1 << 50 ? size * 2 : size)
            // Past a jump over at least the next window's size, windows start small again: a
            // limit may be met by the first rows there.
            next = try matching.next(atOrAfter: to + 1)
            if let landing = next, landing - (to + 1) >= size { size = Self.firstWindow }
        }
        return covered
    }
}
