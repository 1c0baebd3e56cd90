import EventTreeJournal

/// Reads the delivery history in seq order, fast on big journals: handler calls, steps
/// lost to released nodes, and dead letters and unhandled errors (as rows of their own
/// `outcome`, `deadLetter` and `unhandledError`).
///
/// The three views (`call_history`, `undelivered_history`, `unattended_history`) are each
/// read in seq order and merged, so that a `LIMIT` stops the reading as soon as it has
/// enough (asking their union to sort would sort every matching row first). Calls are read
/// a window of seqs at a time (``JournalReader/historyQuery(of:seqs:longestRun:)``): a
/// condition on the call view's seq cannot reach the packed runs' key.
struct DeliveryHistoryReader {
    static let columns = [
        "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label", "handler_location",
        "outcome", "error", "duration_ns", "answer", "at",
    ]
    /// The views other than `call_history`, whose rows are found by their seq directly.
    static let views = ["undelivered_history", "unattended_history"]
    /// How many seqs the first window of calls covers (a `LIMIT` is met early); each next one
    /// covers twice as many, up to ``largestCallWindow``, so that reading all takes few.
    static let firstCallWindow = 1_024
    static let largestCallWindow = 65_536

    let reader: JournalReader

    /// Calls `body` with each row with a seq in `seqs` matching `conditions` (SQL over the
    /// views' columns, with `?` bound to `arguments`), in seq order, at most `limit` of them.
    func forEachRow(
        where conditions: [String], _ arguments: [JournalValue], seqs: ClosedRange<Int> = 1...Int.max - 1, limit: Int?,
        _ body: (JournalRow) throws -> Void
    ) throws {
        let conditions = conditions + ["seq >= \(seqs.lowerBound)", "seq <= \(seqs.upperBound)"]
        let filter = " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY seq"
        let select = "SELECT \(Self.columns.joined(separator: ", ")) FROM "
        var bound = arguments
        var limitClause = ""
        if let limit {
            limitClause = " LIMIT ?"
            bound.append(.integer(limit))
        }
        var sources = try Self.views.map { view in
            Source(cursor: try reader.cursor(select + view + filter + limitClause, bound))
        }
        // Calls, window by window up to the last run's end.
        let longestRun = try reader.longestCallRun()
        let lastRun = try reader.rows("SELECT coalesce(max(seq), 0) FROM j_call_runs").first?.first?.int ?? 0
        let (lastCall, overflowed) = lastRun.addingReportingOverflow(longestRun)
        let end = min(seqs.upperBound, overflowed ? Int.max - 1 : lastCall)
        var from = seqs.lowerBound
        var size = Self.firstCallWindow
        sources.append(try Source { () throws -> JournalCursor? in
            while from <= end {
                let to = end - from < size ? end : from + size - 1
                let window = try reader.historyQuery(of: "call_history", seqs: from..<to + 1, longestRun: longestRun)
                from = to + 1
                let cursor = try reader.cursor(select + "(" + window + ")" + filter, arguments)
                // Past a stretch without calls, windows keep growing: any gap takes a few dozen.
                size = cursor.hasRow ? min(size * 2, Self.largestCallWindow) : (size < 1 << 50 ? size * 2 : size)
                if cursor.hasRow { return cursor }
            }
            return nil
        })
        var emitted = 0
        while let next = sources.filter(\.hasRow).min(by: { $0.seq < $1.seq }) {
            if let limit, emitted >= limit { return }
            try body(next.row)
            emitted += 1
            try next.advance()
        }
    }

    /// One of the merged streams: a cursor, and for calls where the next window comes from.
    private final class Source {
        private var cursor: JournalCursor?
        private let nextWindow: (() throws -> JournalCursor?)?

        init(cursor: JournalCursor) {
            self.cursor = cursor
            nextWindow = nil
        }

        init(windows: @escaping () throws -> JournalCursor?) throws {
            nextWindow = windows
            cursor = try windows()
        }

        var hasRow: Bool { cursor?.hasRow ?? false }
        var row: JournalRow { cursor!.row }
        var seq: Int { row.int(0) }

        func advance() throws {
            try cursor?.advance()
            if !(cursor?.hasRow ?? false), let nextWindow { cursor = try nextWindow() }
        }
    }
}
