import EventTree

/// Applies a journal's retention limits through its writer's rows: plans the cut on the
/// committed journal, removes the sessions before it, and says what went.
enum RetentionEnforcer {
    /// Prunes what `retention` asks for, if anything.
    ///
    /// - Parameters:
    ///   - rows: The writer's rows (used by the calling thread alone).
    ///   - path: The journal, read for the plan as committed.
    ///   - sequence: The journal's sequence, which numbers the prune's record.
    ///   - settledBelow: Every record numbered lower is committed (the prune's record, numbered
    ///     now, is chained once a later write finds every lower seq committed); `nil` when no
    ///     batch is on its way (the journal is opening): the sequence's own.
    ///   - makingRoom: Whether a write just failed for want of room: the oldest closed
    ///     session goes even when no limit asks for it yet.
    /// - Returns: What was pruned, or `nil` when nothing was.
    static func enforce(
        _ retention: JournalRetention, rows: RowWriter, path: String, sequence: SequenceCounter, settledBelow: Int? = nil,
        makingRoom: Bool = false
    ) throws(JournalError) -> JournalPrune? {
        guard !retention.isUnlimited else { return nil }
        func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(JournalError) -> T {
            do { return try body() } catch { throw JournalError(error, path: path) }
        }
        let reader = try JournalReader(path: path)
        let open = rows.openSessions
        var plan = try RetentionPlan.plan(retention, reader: reader, openSessions: open, usedBytes: try sqlite(rows.usedBytes))
        if plan == nil && makingRoom {
            let sessions = try RetentionPlan.sessions(in: reader)
            let closed = sessions.prefix { !open.contains($0.id) }.count
            plan = try RetentionPlan.plan(removing: min(1, closed), of: sessions, reader: reader, reason: "size")
        }
        guard let plan else { return nil }
        let before = try sqlite(rows.fileBytes)
        let seq = sequence.advance()
        let records = try sqlite { () throws(SQLiteError) in
            try rows.prune(plan, at: seq, prunedAt: retention.now(), settledBelow: settledBelow ?? sequence.settledBelow)
        }
        return JournalPrune(
            sessions: plan.sessions, throughSeq: plan.throughSeq, records: records, anchorSeq: seq, reason: plan.reason,
            bytesBefore: before, bytesAfter: try sqlite(rows.fileBytes))
    }
}
