import EventTreeJournal

/// Reads the delivery history in seq order, fast on big journals: handler calls, steps
/// lost to released nodes, and dead letters and unhandled errors (as rows of their own
/// `outcome`, `deadLetter` and `unhandledError`).
///
/// The three views (`call_history`, `undelivered_history`, `unattended_history`) each come
/// in seq order by themselves; asking a union to sort makes SQLite sort every matching row
/// before a `LIMIT` can stop it. So this reads the three and merges them, stopping as soon
/// as it has enough.
struct DeliveryHistoryReader {
    static let columns = [
        "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label", "handler_location",
        "outcome", "error", "duration_ns", "answer", "at",
    ]
    static let views = ["call_history", "undelivered_history", "unattended_history"]

    let reader: JournalReader

    /// Calls `body` with each row matching `conditions` (SQL over the views' columns, with
    /// `?` bound to `arguments`), in seq order, at most `limit` of them.
    func forEachRow(
        where conditions: [String], _ arguments: [JournalValue], limit: Int?, _ body: (JournalRow) throws -> Void
    ) throws {
        var sql = "SELECT \(Self.columns.joined(separator: ", ")) FROM %@"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY seq"
        var bound = arguments
        if let limit {
            sql += " LIMIT ?"
            bound.append(.integer(limit))
        }
        let cursors = try Self.views.map { try reader.cursor(sql.replacingOccurrences(of: "%@", with: $0), bound) }
        var emitted = 0
        while let next = cursors.filter(\.hasRow).min(by: { $0.row.int(0) < $1.row.int(0) }) {
            if let limit, emitted >= limit { return }
            try body(next.row)
            emitted += 1
            try next.advance()
        }
    }
}
