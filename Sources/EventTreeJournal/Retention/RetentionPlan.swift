/// Where a prune cuts a journal: the oldest sessions it removes and the checkpoint their
/// records end with.
///
/// A journal can be cut only at a checkpoint, and only where every record before the cut
/// belongs to a removed session: the writer ends a checkpoint just before each session's
/// start (see ``RowWriter``), so between two sessions recorded one after the other there is
/// always such a place. Sessions that overlap (two buses writing at once) go together.
struct RetentionPlan {
    /// The removed sessions' ids, oldest first.
    let sessions: [Int]
    /// The last seq removed: a checkpoint's.
    let throughSeq: Int
    /// The chain's hash after it.
    let hash: [UInt8]
    /// The limit that asked for the most sessions.
    let reason: String
    /// What earlier prunes removed, when the journal no longer holds their record (an
    /// extract, whose copy ends before it): counted in with this prune.
    var carried: (sessions: Int, records: Int) = (0, 0)

    /// A session as retention sees it.
    struct Session {
        let id: Int
        let startedAt: Double
        let endedSeq: Int?
        let endedAt: Double?
    }

    /// The journal's sessions, oldest first.
    static func sessions(in reader: JournalReader) throws(JournalError) -> [Session] {
        var sessions: [Session] = []
        try reader.each("SELECT session_id, started_at, ended_seq, ended_at FROM j_sessions ORDER BY session_id") { row in
            sessions.append(Session(
                id: row.int(0), startedAt: row.double(1), endedSeq: row.optionalInt(2), endedAt: row.isNull(3) ? nil : row.double(3)))
        }
        return sessions
    }

    /// The prune `retention` asks for, or `nil` when it asks for none (or none is possible).
    ///
    /// - Parameters:
    ///   - reader: The journal, as committed.
    ///   - openSessions: Sessions under way, never removed (nor any after them).
    ///   - usedBytes: The bytes its pages hold now.
    static func plan(
        _ retention: JournalRetention, reader: JournalReader, openSessions: Set<Int>, usedBytes: Int
    ) throws(JournalError) -> RetentionPlan? {
        let sessions = try sessions(in: reader)
        let closed = sessions.prefix { !openSessions.contains($0.id) }.count
        var wanted: [(count: Int, reason: String)] = []
        if let keep = retention.maximumSessions { wanted.append((max(0, sessions.count - max(0, keep)), "sessions")) }
        if let age = retention.maximumSessionAge {
            let cutoff = retention.now() - Double(age.components.seconds) - Double(age.components.attoseconds) / 1e18
            wanted.append((sessions.prefix { ($0.endedAt ?? $0.startedAt) < cutoff }.count, "age"))
        }
        if let maximumSize = retention.maximumSize, usedBytes > maximumSize, let first = sessions.first {
            // Each session's share of the file, estimated by its share of the seqs.
            let end = try reader.checkpoints().last?.upto ?? first.id
            let span = Double(max(1, end - first.id + 1))
            var count = 0
            while count < sessions.count {
                let remaining = count + 1 < sessions.count ? Double(end - sessions[count + 1].id + 1) : 0
                count += 1
                if Double(usedBytes) * remaining / span <= Double(maximumSize) { break }
            }
            wanted.append((count, "size"))
        }
        guard let most = wanted.max(by: { $0.count < $1.count }) else { return nil }
        return try plan(removing: min(most.count, closed), of: sessions, reader: reader, reason: most.reason)
    }

    /// The cut that removes the first `count` of `sessions` (fewer when no checkpoint ends
    /// between the last of them and the next), or `nil` for none.
    static func plan(
        removing count: Int, of sessions: [Session], reader: JournalReader, reason: String
    ) throws(JournalError) -> RetentionPlan? {
        let checkpoints = try reader.checkpoints()
        var count = count
        while count > 0 {
            // Everything before the first kept session (or every record).
            let limit = count < sessions.count ? sessions[count].id - 1 : Int.max
            // A removed session that ends after a kept one starts overlaps it: not cut apart.
            if sessions[..<count].allSatisfy({ ($0.endedSeq ?? 0) <= limit }),
                let cut = try cut(atMost: limit, after: sessions[count - 1].id, checkpoints: checkpoints, reader: reader) {
                return RetentionPlan(
                    sessions: sessions[..<count].map(\.id), throughSeq: cut.upto, hash: cut.hash, reason: reason)
            }
            count -= 1
        }
        return nil
    }

    /// The last checkpoint at or below `limit`, when no record lies between it and `limit`
    /// and it is at or past `lowest`.
    static func cut(
        atMost limit: Int, after lowest: Int, checkpoints: [StoredCheckpoint], reader: JournalReader
    ) throws(JournalError) -> StoredCheckpoint? {
        guard let checkpoint = checkpoints.last(where: { $0.upto <= limit }), checkpoint.upto >= lowest else { return nil }
        guard let next = try reader.chainRecords(from: checkpoint.upto + 1).current?.seq else { return checkpoint }
        return next > limit ? checkpoint : nil
    }
}

/// Deletes records by seq from every table that holds them.
enum RecordRemoval {
    /// The tables that hold records, each with the column that numbers them. (`j_types`
    /// names are shared by sessions; `j_journal`, `j_sequence`, `j_migrations` hold none.)
    static let seqColumns: [(table: String, column: String)] = [
        ("j_sessions", "session_id"), ("j_threads", "session_id"), ("j_nodes", "node_id"),
        ("j_changes", "seq"), ("j_tree_snapshots", "seq"), ("j_releases", "seq"), ("j_matches", "seq"),
        ("j_handlers", "handler_id"), ("j_events", "event_id"), ("j_event_details", "event_id"),
        ("j_call_runs", "seq"), ("j_call_details", "seq"), ("j_undelivered", "seq"), ("j_lost_calls", "seq"),
        ("j_trouble", "seq"), ("j_chain", "upto_seq"), ("j_prunes", "seq"),
    ]

    /// Deletes every record numbered through `seq` (`after` false) or after it (`after`
    /// true). Called inside a transaction.
    static func delete(_ db: borrowing Connection, through seq: Int, after: Bool = false) throws(SQLiteError) {
        for (table, column) in seqColumns {
            try db.execute("DELETE FROM \(table) WHERE \(column) \(after ? ">" : "<=") \(seq)")
        }
    }
}
