import CEventTreeSQLite
import EventTree
import Foundation

/// One session of a journal, written to a journal of its own (see
/// ``Journal/extract(session:from:to:)``).
public struct JournalExtract: Sendable, Hashable {
    /// The session extracted.
    public let session: SessionID
    /// How many chained records the new journal holds, its prune's record included.
    public let records: Int
    /// The source's checkpoint that ends the session: the new journal's chain passes
    /// through it with the same hash, so `eventtree verify NEW --expect-head HEAD` proves the
    /// extract is what the source holds.
    public let sourceHead: JournalHead
    /// What was left out before the session (the new journal's chained anchor), if anything.
    public let prune: JournalPrune?

    /// Says what was written, as `eventtree extract` prints it.
    public var line: String {
        "extracted session \(session.rawValue): \(records) records; its chain passes through the source's checkpoint \(sourceHead)"
    }
}

extension Journal {
    /// Writes session `session` of the journal at `source` to a new journal at
    /// `destination` that verifies on its own: its records up to the source's checkpoint
    /// that ends the session, unchanged, after a chained anchor standing for everything the
    /// source held before it (as retention leaves one). Nothing of other sessions is
    /// copied (their event types' names included).
    ///
    /// The source is only read; it may be open for writing elsewhere.
    ///
    /// - Throws: ``JournalError/refused(path:reason:)`` when there is no such session, when
    ///   it overlaps another (two buses recorded at once), when its records are not all
    ///   chained yet (a writer under way or a crash: open the journal to write first), or
    ///   when `destination` exists; any error of reading the source or writing the copy.
    @discardableResult
    public static func extract(session: SessionID, from source: String, to destination: String) throws(JournalError) -> JournalExtract {
        let reader = try JournalReader(path: source)
        let sessions = try RetentionPlan.sessions(in: reader)
        guard let index = sessions.firstIndex(where: { $0.id == session.rawValue }) else {
            throw .refused(path: source, reason: "it has no session \(session.rawValue); 'eventtree sessions \(source)' lists them")
        }
        let start = session.rawValue
        let next = index + 1 < sessions.count ? sessions[index + 1].id : nil
        if let next, sessions[index].endedSeq.map({ $0 > next }) ?? false {
            throw .refused(path: source, reason: "session \(start) overlaps session \(next) (two buses recorded at once); they cannot be extracted apart")
        }
        if let earlier = sessions[..<index].first(where: { ($0.endedSeq ?? 0) > start }) {
            throw .refused(path: source, reason: "session \(start) overlaps session \(earlier.id) (two buses recorded at once); they cannot be extracted apart")
        }
        let checkpoints = try reader.checkpoints()
        guard let end = try RetentionPlan.cut(
            atMost: next.map { $0 - 1 } ?? Int.max, after: start, checkpoints: checkpoints, reader: reader)
        else {
            throw .refused(path: source, reason: "session \(start)'s records are not all chained yet (a writer is under way, or one crashed); let it close, or open the journal to write, then extract")
        }
        // What goes before the session: the records up to the checkpoint before it, or
        // what an earlier prune removed.
        var before: RetentionPlan?
        if let cut = try RetentionPlan.cut(atMost: start - 1, after: 1, checkpoints: checkpoints, reader: reader) {
            before = RetentionPlan(sessions: sessions[..<index].map(\.id), throughSeq: cut.upto, hash: cut.hash, reason: "extract")
        } else if let pruned = try reader.latestPrune(), pruned.throughSeq < start {
            before = RetentionPlan(
                sessions: [], throughSeq: pruned.throughSeq, hash: pruned.hash, reason: "extract",
                carried: (pruned.sessions, pruned.records))
        } else if start > 1, try reader.chainRecords().current.map({ $0.seq < start }) ?? false {
            throw .refused(path: source, reason: "session \(start) shares a checkpoint with the records before it; it cannot be cut out")
        }

        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: destination + suffix) {
            throw .refused(path: destination, reason: "it exists already; extract writes a new journal (remove it, or choose another path)")
        }
        let folder = (destination as NSString).deletingLastPathComponent
        let temporary = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(
            ".\((destination as NSString).lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        try reader.copy(to: temporary)

        let db = try trimmedCopy(at: temporary, after: end.upto, reportedAs: destination)
        var prune: JournalPrune?
        do {
            let rows = try RowWriter(
                db: db, sequence: SequenceCounter(startingAt: end.upto + 1), chainsRecords: true, redaction: .none,
                recordsHostName: true)
            rows.resumeChain(head: JournalHead(seq: end.upto, hash: end.hash), unchained: [])
            if let before {
                let bytes = try rows.fileBytes()
                let records = try rows.prune(
                    before, at: end.upto + 1, prunedAt: Date().timeIntervalSince1970, settledBelow: end.upto + 2)
                prune = JournalPrune(
                    sessions: before.sessions, throughSeq: before.throughSeq, records: records, anchorSeq: end.upto + 1,
                    reason: before.reason, bytesBefore: bytes, bytesAfter: try rows.fileBytes())
            }
        } catch {
            throw JournalError(error, path: destination)
        }
        do {
            // The names of types only other sessions raised or handled go too.
            let db = try Connection(path: temporary, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
            try db.execute("""
                DELETE FROM j_types WHERE type_id NOT IN (SELECT type_id FROM j_events)
                    AND type_id NOT IN (SELECT type_id FROM j_handlers WHERE type_id IS NOT NULL)
                    AND type_id NOT IN (SELECT type_id FROM j_matches);
                VACUUM;
                """)
        } catch {
            throw JournalError(error, path: destination)
        }
        guard rename(temporary, destination) == 0 else {
            throw .io(path: destination, operation: "move the extracted journal to", errno: errno)
        }
        let written = try JournalReader(path: destination).checkpoints().reduce(0) { $0 + $1.records }
        return JournalExtract(
            session: session, records: written, sourceHead: JournalHead(seq: end.upto, hash: end.hash), prune: prune)
    }

    /// Opens the copy at `path` and removes every record after `seq`.
    private static func trimmedCopy(at path: String, after seq: Int, reportedAs shown: String) throws(JournalError) -> Connection {
        do {
            let db = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
            try db.execute("BEGIN")
            try RecordRemoval.delete(db, through: seq, after: true)
            try db.execute("UPDATE j_sequence SET next_seq = \(seq + 2), settled_seq = \(seq + 2)")
            try db.execute("COMMIT")
            return db
        } catch {
            throw JournalError(error, path: shown)
        }
    }
}
