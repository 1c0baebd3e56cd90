extension JournalReader {
    /// A query of the `call_history` or the `delivery_history` view restricted to the rows
    /// with a seq in `seqs`, fast on a big journal.
    ///
    /// Calls are stored packed, a run of them to an event row or a `j_call_runs` row, and the
    /// views unpack them; a condition on a view's `seq` cannot reach the runs' keys, so over
    /// the view itself SQLite unpacks every run of the journal to filter or sort its calls.
    /// This is the view's own definition (as the journal holds it: the schema is checked to be
    /// exactly ours), its calls read only from the runs that can hold such seqs, found by
    /// their keys.
    ///
    /// - Parameters:
    ///   - view: `call_history` or `delivery_history`.
    ///   - seqs: The seqs wanted.
    ///   - extent: ``deliveryHistoryExtent()``, read since the last commit the query may see.
    /// - Returns: `SELECT` text with the view's columns, in no particular order.
    package func historyQuery(of view: String, seqs: Range<Int>, extent: DeliveryHistoryExtent) throws(JournalError) -> String {
        if cache.historyViews == nil {
            cache.historyViews = (
                delivery: try viewBody("delivery_history"), calls: try viewBody("call_history"), unpacked: try viewBody("j_calls"))
        }
        guard let views = cache.historyViews, view == "call_history" || view == "delivery_history" else {
            throw .corrupt(path: path, detail: "it has no view \(view) to read by seq")
        }
        // A run holding a call in `seqs` starts at most `longestRun` seqs before its end.
        let (start, overflowed) = seqs.lowerBound.subtractingReportingOverflow(extent.longestRun)
        let unpacked = views.unpacked
            + " WHERE r.seq >= \(overflowed ? Int.min : start) AND r.seq < \(seqs.upperBound) AND r.last_seq >= \(seqs.lowerBound)"
        var history = views.calls.replacingOccurrences(of: "FROM j_calls c", with: "FROM (\(unpacked)) c")
        if view == "delivery_history" {
            history = views.delivery.replacingOccurrences(of: "SELECT * FROM call_history", with: "SELECT * FROM (\(history))")
        }
        return "SELECT * FROM (\(history)) WHERE seq >= \(seqs.lowerBound) AND seq < \(seqs.upperBound)"
    }

    /// Where the journal's delivery history lies, read from the ends of indexes (the longest
    /// run, the last run, undelivered step, dead letter and event): no pass over the journal.
    package func deliveryHistoryExtent() throws(JournalError) -> DeliveryHistoryExtent {
        var extent = DeliveryHistoryExtent(longestRun: 0, lastSeq: 0)
        // A run in its event's row is read from its event's seq, and ends before its event
        // does, within its reach (see `CallRun.eventRowReach`): an event row's calls end
        // below the last event's seq, or are those of the event rows within that reach of it.
        try each(Self.extentQuery) { row throws(JournalError) in
            extent = DeliveryHistoryExtent(longestRun: max(row.int(0), 0), lastSeq: row.int(1))
        }
        return extent
    }

    /// The query of ``deliveryHistoryExtent()``: each maximum a query of its own, so that
    /// each is read from the end of an index (a test pins its plan).
    package static let extentQuery = """
        SELECT max(coalesce((SELECT max(last_seq - seq) FROM j_call_runs), 0), \(CallRun.eventRowReach)),
               max(coalesce((SELECT max(last_seq) FROM j_call_runs), 0), coalesce((SELECT max(seq) FROM j_undelivered), 0),
                   coalesce((SELECT max(unattended_seq) FROM j_event_details WHERE unattended_seq IS NOT NULL), 0),
                   coalesce((SELECT max(event_id) FROM j_events), 0),
                   coalesce((SELECT max(event_id + finished_back) FROM j_events WHERE calls IS NOT NULL
                       AND event_id > (SELECT max(event_id) FROM j_events) - \(CallRun.eventRowReach)), 0))
        """

    /// The `SELECT` that defines the view `name`, as the journal holds it.
    private func viewBody(_ name: String) throws(JournalError) -> String {
        var sql = ""
        try each("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", [.text(name)]) { row throws(JournalError) in
            sql = row.text(0) ?? ""
        }
        guard let start = sql.range(of: "CREATE VIEW \(name) AS") else {
            throw .corrupt(path: path, detail: "it has no view \(name)")
        }
        return String(sql[start.upperBound...])
    }
}

/// Where a journal's delivery history lies, for reading it by seq
/// (``JournalReader/historyQuery(of:seqs:extent:)``).
package struct DeliveryHistoryExtent: Sendable {
    /// How many seqs the longest run of calls spans (its last seq minus its first): a run
    /// holding a given seq starts at most this far before it.
    package let longestRun: Int
    /// No row of the delivery history (call, undelivered step, dead letter or unhandled
    /// error) has a higher seq.
    package let lastSeq: Int
}
