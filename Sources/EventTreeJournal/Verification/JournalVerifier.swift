import Crypto
import Foundation

/// Checks that a journal is what its writer wrote: SQLite's `integrity_check`, then every
/// record against the hash chain, in seq order.
///
/// ```swift
/// let report = try JournalVerifier(journal: "app.eventtree").verify()
/// print(report.line)   // "intact: 1,204 records in 37 checkpoints; head 1290:6f1c…"
/// ```
///
/// The chain proves that no record was changed, removed, inserted or moved, and names the
/// first that was. It cannot see a journal cut short at a checkpoint, or rewritten as a
/// whole with a new chain: for those, compare with a head kept outside the file
/// (``JournalOptions/onCheckpoint``, ``JournalOptions/checkpointFile``) through
/// `expectedHead`, signed if you like (``JournalOptions/checkpointSigningKey``).
public struct JournalVerifier {
    private let reader: JournalReader

    /// Opens `path` read-only (as an untrusted file).
    ///
    /// - Throws: ``JournalError`` when it cannot be read as a journal.
    public init(journal path: String) throws(JournalError) {
        reader = try JournalReader(path: path)
    }

    /// Verifies the journal.
    ///
    /// - Parameter expectedHead: A head recorded earlier (and kept elsewhere): the chain
    ///   must pass through it, with the same hash.
    /// - Returns: The verdict, with the first bad seq when there is one.
    /// - Throws: ``JournalError`` when the journal cannot be read at all.
    public func verify(expectedHead: JournalHead? = nil) throws(JournalError) -> JournalVerification {
        let integrity = try reader.integrityCheck()
        let checkpoints = try reader.checkpoints()
        let head = checkpoints.last.map { JournalHead(seq: $0.upto, hash: $0.hash) }
        let pruned = integrity == "ok" ? try reader.latestPrune() : nil
        func result(_ verdict: JournalVerification.Verdict, records: Int, unchained: Int) -> JournalVerification {
            JournalVerification(
                verdict: verdict, records: records, checkpoints: checkpoints.count, unchained: unchained, head: head,
                pruned: pruned)
        }
        guard integrity == "ok" else {
            return result(.damaged("integrity_check failed: \(integrity)"), records: 0, unchained: 0)
        }
        // A pruned journal's chain starts from the hash its latest prune kept.
        let start = pruned?.throughSeq ?? 0
        if let pruned, pruned.hash.count != 32 || pruned.throughSeq < 1 || pruned.throughSeq >= pruned.seq {
            return result(.altered(seq: pruned.seq, "its prune record is malformed"), records: 0, unchained: 0)
        }
        for (index, checkpoint) in checkpoints.enumerated() {
            // Bounds first: the counts below must not overflow on a hostile file.
            if checkpoint.upto < 1 || checkpoint.upto > JournalReader.maximumSeq || checkpoint.records < 1
                || checkpoint.records > checkpoint.upto || checkpoint.hash.count != 32
                || checkpoint.tags.count != 2 * checkpoint.records || checkpoint.rule == nil
            {
                return result(.altered(seq: checkpoint.upto, "its checkpoint row is malformed"), records: 0, unchained: 0)
            }
            if index > 0, checkpoint.upto <= checkpoints[index - 1].upto {
                return result(.altered(seq: checkpoint.upto, "its checkpoint is out of order"), records: 0, unchained: 0)
            }
            if checkpoint.upto <= start {
                return result(
                    .altered(seq: checkpoint.upto, "its checkpoint lies in what the journal's prune removed (through seq \(start))"),
                    records: 0, unchained: 0)
            }
        }

        var hash = pruned.map { ChainHash(value: $0.hash) } ?? ChainHash.start
        // The checkpoint in progress, when it chains its records in one pass (started at
        // its first record).
        var hasher = CheckpointHasher(after: .start)
        var checkpoint = 0
        var position = 0
        var records = 0
        var unchained = 0
        var lastSeq = Int.min
        var reachedExpected = false
        // The first record no checkpoint covers, and the first after the expected head.
        var firstUncovered: Int?
        var firstAfterExpected: Int?
        let stream = try reader.chainRecords()
        while let record = stream.current {
            defer { lastSeq = record.seq }
            if record.seq <= lastSeq {
                return result(.altered(seq: record.seq, "it appears twice, or out of seq order"), records: records, unchained: unchained)
            }
            if record.seq <= start {
                return result(
                    .altered(seq: record.seq, "it lies in what the journal's prune removed (through seq \(start)): it was inserted"),
                    records: records, unchained: unchained)
            }
            // Close the checkpoints this record is past.
            while checkpoint < checkpoints.count, record.seq > checkpoints[checkpoint].upto {
                let closed = checkpoints[checkpoint]
                if position < closed.records {
                    return result(
                        .altered(seq: closed.upto, "it is missing: its checkpoint counts \(closed.records) records up to it, the file holds \(position)"),
                        records: records, unchained: unchained)
                }
                checkpoint += 1
                position = 0
            }
            if let expectedHead, record.seq > expectedHead.seq, firstAfterExpected == nil { firstAfterExpected = record.seq }
            guard checkpoint < checkpoints.count else {
                unchained += 1
                if firstUncovered == nil { firstUncovered = record.seq }
                try stream.advance()
                continue
            }
            let current = checkpoints[checkpoint]
            records += 1
            // A record its checkpoint does not count (inserted after its last one).
            guard position < current.records else {
                return result(
                    .altered(seq: record.seq, "it was changed, inserted or moved: it no longer matches the hash chain"),
                    records: records, unchained: unchained)
            }
            if position == 0 { hasher = CheckpointHasher(after: hash) }
            let (first, second) = hasher.add(record.bytes)
            if current.tags[2 * position] != first || current.tags[2 * position + 1] != second {
                return result(
                    .altered(seq: record.seq, "it was changed, inserted or moved: it no longer matches the hash chain"),
                    records: records, unchained: unchained)
            }
            position += 1
            if position == current.records { hash = hasher.finish() }
            if position == current.records && hash.value != current.hash {
                // Every tag matched but the hash does not: a change the two-byte tags missed.
                return result(
                    .altered(seq: current.upto, "the records up to it no longer match their checkpoint's hash"),
                    records: records, unchained: unchained)
            }
            if let expectedHead, record.seq == expectedHead.seq {
                reachedExpected = true
                // A checkpoint has a hash at its end only (where heads are taken).
                if position != current.records || hash.value != expectedHead.hash {
                    return result(
                        .altered(seq: record.seq, "the chain differs from the expected head \(expectedHead) here: the journal was rewritten"),
                        records: records, unchained: unchained)
                }
            }
            try stream.advance()
        }
        if checkpoint < checkpoints.count {
            let closed = checkpoints[checkpoint]
            if position < closed.records {
                return result(
                    .altered(seq: closed.upto, "it is missing: its checkpoint counts \(closed.records) records up to it, the file holds \(position)"),
                    records: records, unchained: unchained)
            }
        }
        if let expectedHead, !reachedExpected, expectedHead.seq <= start {
            // The head lies in what was pruned: only the prune's own anchor can be compared.
            guard expectedHead.seq == start, let pruned, expectedHead.hash == pruned.hash else {
                return result(
                    .unproven(seq: expectedHead.seq, "the expected head \(expectedHead) lies in what the journal's prune removed (through seq \(start)): nothing left proves it"),
                    records: records, unchained: unchained)
            }
            reachedExpected = true
        }
        if let expectedHead, !reachedExpected {
            let end = head?.seq ?? 0
            let reason = expectedHead.seq > end
                ? "the journal's chain ends at seq \(end), before the expected head \(expectedHead): records were cut from its end (or its -wal was deleted)"
                : "no record has the expected head's seq \(expectedHead.seq): the journal was rewritten"
            return result(.altered(seq: min(expectedHead.seq, end + 1), reason), records: records, unchained: unchained)
        }
        // A cleanly closed journal ends with a checkpoint: records after it are a crashed
        // writer's tail (which the next open chains) or were added to the file.
        if let firstUncovered {
            let reason = checkpoints.isEmpty
                ? "the journal has \(unchained) record\(unchained == 1 ? "" : "s") and no checkpoint: nothing proves them (its chain was removed, or it was never written)"
                : "\(unchained) record\(unchained == 1 ? " from this seq on is" : "s from this seq on are") covered by no checkpoint: the tail of a writer that stopped before chaining them (opening the journal to write chains them) or records added to the file"
            return result(.unproven(seq: firstUncovered, reason), records: records, unchained: unchained)
        }
        if let expectedHead, let firstAfterExpected {
            return result(
                .unproven(seq: firstAfterExpected, "records from this seq on come after the expected head \(expectedHead): the head kept outside the file does not cover them"),
                records: records, unchained: unchained)
        }
        // Checked once every record is proven: a count then differs only when it was changed.
        if let session = try reader.firstSessionWithWrongCounts() {
            return result(.altered(seq: session.endedSeq, session.reason), records: records, unchained: unchained)
        }
        return result(.intact, records: records, unchained: unchained)
    }
}

/// A point of a journal's hash chain: the seq of a record and the chain's hash after it,
/// written `SEQ:HASH` (the hash in lowercase hex).
public struct JournalHead: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The record's seq.
    public let seq: Int
    /// The chain's SHA-256 after it.
    public let hash: [UInt8]

    /// A head.
    public init(seq: Int, hash: [UInt8]) {
        self.seq = seq
        self.hash = hash
    }

    /// Parses `SEQ:HASH`; `nil` when it is not one.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let seq = Int(parts[0]), parts[1].count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = parts[1].startIndex
        while index < parts[1].endIndex {
            let next = parts[1].index(index, offsetBy: 2)
            guard let byte = UInt8(parts[1][index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(seq: seq, hash: bytes)
    }

    /// `SEQ:HASH`.
    public var description: String { "\(seq):\(ChainHash(value: hash).hex)" }
}

/// What ``JournalVerifier`` found.
public struct JournalVerification: Sendable {
    /// The verdict.
    public enum Verdict: Sendable, Equatable {
        /// Every record is covered by a checkpoint (and, given one, by the expected head) and
        /// matches the chain.
        case intact
        /// The record at `seq` (or the first after a removed one) differs from what was
        /// written; the reason says how.
        case altered(seq: Int, String)
        /// Nothing is known to be wrong, but the records from `seq` on are covered by no
        /// checkpoint (or come after the expected head): nothing proves them.
        case unproven(seq: Int, String)
        /// The file itself is damaged.
        case damaged(String)
    }

    /// The verdict.
    public let verdict: Verdict
    /// How many records were checked against the chain.
    public let records: Int
    /// How many checkpoints the chain has.
    public let checkpoints: Int
    /// Records after the last checkpoint: written by a writer that stopped before it could
    /// chain them (a crash while other threads were still raising), or added to the file; a
    /// journal with any is ``Verdict/unproven(seq:_:)``.
    public let unchained: Int
    /// The chain's last checkpoint, as stored.
    public let head: JournalHead?
    /// What retention removed from the journal's start, if it removed anything: the
    /// verdict proves the rest from there.
    public let pruned: JournalPruneRecord?

    /// Whether the journal is intact.
    public var isIntact: Bool { verdict == .intact }

    /// The first bad seq (altered, or the first unproven), when there is one.
    public var firstBadSeq: Int? {
        switch verdict {
        case .altered(let seq, _), .unproven(let seq, _): seq
        case .intact, .damaged: nil
        }
    }

    /// The verdict's name: `intact`, `altered`, `unproven` or `damaged`.
    public var verdictKind: String {
        switch verdict {
        case .intact: "intact"
        case .altered: "altered"
        case .unproven: "unproven"
        case .damaged: "damaged"
        }
    }

    /// The one-line verdict, ending with the head.
    public var line: String {
        var headText = "head \(head?.description ?? "none")"
        if let pruned { headText += "; \(pruned.line)" }
        switch verdict {
        case .intact:
            return "intact: \(records) records in \(checkpoints) checkpoint\(checkpoints == 1 ? "" : "s") match the hash chain; \(headText)"
        case let .altered(seq, reason):
            return "altered at seq \(seq): \(reason); \(headText)"
        case let .unproven(seq, reason):
            return "unproven from seq \(seq): \(reason); \(headText)"
        case .damaged(let reason):
            return "damaged: \(reason); \(headText)"
        }
    }
}

/// A prune's chained record, as `verify` reads it: what retention removed since the
/// journal began.
public struct JournalPruneRecord: Sendable, Hashable {
    /// The record's seq.
    public let seq: Int
    /// When the prune ran, in seconds since 1970.
    public let prunedAt: Double
    /// The last seq removed.
    public let throughSeq: Int
    /// The chain's hash after it, where the retained chain starts.
    public let hash: [UInt8]
    /// Sessions removed since the journal began.
    public let sessions: Int
    /// Chained records removed since the journal began.
    public let records: Int
    /// Which limit asked for the prune.
    public let reason: String

    /// Says what was pruned, and when.
    public var line: String {
        // Read from an untrusted file: a time out of any plausible range is not formatted.
        let date = (0...4e9).contains(prunedAt)
            ? Date(timeIntervalSince1970: prunedAt).formatted(.iso8601) : "an unknown date"
        return "pruned before it: \(sessions) session\(sessions == 1 ? "" : "s") (\(records) records through seq \(throughSeq)), "
            + "last on \(date) by \(reason), anchored at seq \(seq)"
    }

    /// The reasons a prune records; any other text reads as `unknown` (it is printed).
    static let reasons: Set<String> = ["size", "age", "sessions", "extract"]
}

extension JournalReader {
    /// The latest prune's record (the one that removed the most), if the journal was pruned.
    package func latestPrune() throws(JournalError) -> JournalPruneRecord? {
        var found: JournalPruneRecord?
        try each(
            "SELECT seq, pruned_at, through_seq, hash, sessions, records, reason FROM j_prunes ORDER BY through_seq DESC LIMIT 1"
        ) { row throws(JournalError) in
            found = JournalPruneRecord(
                seq: row.int(0), prunedAt: row.double(1), throughSeq: row.int(2), hash: row.bytes(3) ?? [],
                sessions: row.int(4), records: row.int(5),
                reason: row.text(6).flatMap { JournalPruneRecord.reasons.contains($0) ? $0 : nil } ?? "unknown")
        }
        return found
    }

    /// The first ended session whose stored counts (events, steps, dropped records) differ
    /// from a count of its chained rows. The counts are summaries outside the chain: this is
    /// what proves the numbers `sessions` prints. An ended session's counts are complete
    /// (the writer publishes them with its end); a session still running or cut by a crash
    /// may lag its rows and is not compared.
    func firstSessionWithWrongCounts() throws(JournalError) -> (endedSeq: Int, reason: String)? {
        var found: (endedSeq: Int, reason: String)?
        try each("""
            SELECT s.session_id, s.ended_seq, s.events, s.steps, s.dropped,
                   (SELECT count(*) FROM j_events e WHERE e.session_id = s.session_id),
                   (SELECT count(*) FROM j_calls c JOIN j_events e ON e.event_id = c.event_id
                     WHERE e.session_id = s.session_id)
                   + (SELECT count(*) FROM j_undelivered u JOIN j_events e ON e.event_id = u.event_id
                       WHERE e.session_id = s.session_id),
                   (SELECT coalesce(sum(t.records), 0) FROM j_trouble t
                     WHERE t.session_id = s.session_id AND t.kind = 'dropped')
            FROM j_sessions s WHERE s.ended_seq IS NOT NULL ORDER BY s.session_id
            """) { row throws(JournalError) in
            guard found == nil else { return }
            let stored = (row.int(2), row.int(3), row.int(4))
            let counted = (row.int(5), row.int(6), row.int(7))
            if stored != counted {
                found = (row.int(1), "session \(row.int(0)) stores \(stored.0) events, \(stored.1) steps and \(stored.2) dropped records, but its chained rows hold \(counted.0), \(counted.1) and \(counted.2): its counts were changed")
            }
        }
        return found
    }

    /// `PRAGMA integrity_check`'s first line (`ok` when the file is sound).
    func integrityCheck() throws(JournalError) -> String {
        var lines: [String] = []
        try each("PRAGMA integrity_check") { row throws(JournalError) in
            if lines.count < 3 { lines.append(row.text(0) ?? "?") }
        }
        return lines.joined(separator: "; ")
    }
}
