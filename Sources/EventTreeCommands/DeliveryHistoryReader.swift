import EventTreeJournal

/// Reads `delivery_history` rows in seq order, fast on big journals.
///
/// The view is the union of `call_history` and `undelivered_history`; asking the view to
/// sort makes SQLite sort every matching row before a `LIMIT` can stop it. Each half comes in
/// seq order by itself (its rowid), so this reads both halves and merges them, stopping as
/// soon as it has enough.
struct DeliveryHistoryReader {
    static let columns = [
        "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label", "handler_location",
        "outcome", "error",
    ]

    let reader: JournalReader

    /// Calls `body` with each row matching `conditions` (SQL over the view's columns, with
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
        let calls = try reader.cursor(sql.replacingOccurrences(of: "%@", with: "call_history"), bound)
        let undelivered = try reader.cursor(sql.replacingOccurrences(of: "%@", with: "undelivered_history"), bound)
        var emitted = 0
        while calls.hasRow || undelivered.hasRow {
            if let limit, emitted >= limit { return }
            let fromCalls = !undelivered.hasRow || (calls.hasRow && calls.row.int(0) < undelivered.row.int(0))
            let cursor = fromCalls ? calls : undelivered
            try body(cursor.row)
            emitted += 1
            try cursor.advance()
        }
    }
}
