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
        func result(_ verdict: JournalVerification.Verdict, records: Int, unchained: Int) -> JournalVerification {
            JournalVerification(
                verdict: verdict, records: records, checkpoints: checkpoints.count, unchained: unchained, head: head)
        }
        guard integrity == "ok" else {
            return result(.damaged("integrity_check failed: \(integrity)"), records: 0, unchained: 0)
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
        }

        var hash = ChainHash.start
        // The checkpoint in progress, when it chains its records in one pass (started at
        // its first record).
        var hasher = CheckpointHasher(after: .start, rule: .perCheckpointWords)
        var checkpoint = 0
        var position = 0
        var records = 0
        var unchained = 0
        var lastSeq = Int.min
        var reachedExpected = false
        // Records of rule 3's checkpoints are dense; those of older ones keep their form (a
        // file's rules only ever go up: a dense record below an older checkpoint is altered).
        let denseAfter = checkpoints.filter { $0.rule != .perCheckpointWords }.map(\.upto).max() ?? 0
        let stream = try reader.chainRecords(denseAfter: denseAfter)
        while let record = stream.current {
            defer { lastSeq = record.seq }
            if record.seq <= lastSeq {
                return result(.altered(seq: record.seq, "it appears twice, or out of seq order"), records: records, unchained: unchained)
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
            guard checkpoint < checkpoints.count else {
                unchained += 1
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
            let (first, second): (UInt8, UInt8)
            if let rule = current.rule, rule != .perRecord {
                if position == 0 { hasher = CheckpointHasher(after: hash, rule: rule) }
                (first, second) = hasher.add(record.bytes)
            } else {
                (first, second) = hash.chain(record.bytes)
            }
            if current.tags[2 * position] != first || current.tags[2 * position + 1] != second {
                return result(
                    .altered(seq: record.seq, "it was changed, inserted or moved: it no longer matches the hash chain"),
                    records: records, unchained: unchained)
            }
            position += 1
            if position == current.records && current.rule != .perRecord { hash = hasher.finish() }
            if position == current.records && hash.value != current.hash {
                // Every tag matched but the hash does not: a change the two-byte tags missed.
                return result(
                    .altered(seq: current.upto, "the records up to it no longer match their checkpoint's hash"),
                    records: records, unchained: unchained)
            }
            if let expectedHead, record.seq == expectedHead.seq {
                reachedExpected = true
                // A checkpoint chaining in one pass has a hash at its end only (where heads are taken).
                let hasHash = current.rule == .perRecord || position == current.records
                if !hasHash || hash.value != expectedHead.hash {
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
        if let expectedHead, !reachedExpected {
            let end = head?.seq ?? 0
            let reason = expectedHead.seq > end
                ? "the journal's chain ends at seq \(end), before the expected head \(expectedHead): records were cut from its end (or its -wal was deleted)"
                : "no record has the expected head's seq \(expectedHead.seq): the journal was rewritten"
            return result(.altered(seq: min(expectedHead.seq, end + 1), reason), records: records, unchained: unchained)
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
        /// Every chained record matches the chain.
        case intact
        /// The record at `seq` (or the first after a removed one) differs from what was
        /// written; the reason says how.
        case altered(seq: Int, String)
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
    /// chain them (a crash while other threads were still raising), so not proven.
    public let unchained: Int
    /// The chain's last checkpoint, as stored.
    public let head: JournalHead?

    /// Whether the journal is intact.
    public var isIntact: Bool { verdict == .intact }

    /// The first bad seq, when there is one.
    public var firstBadSeq: Int? {
        if case .altered(let seq, _) = verdict { return seq }
        return nil
    }

    /// The one-line verdict, ending with the head.
    public var line: String {
        let headText = "head \(head?.description ?? "none")"
        switch verdict {
        case .intact:
            let tail = unchained == 0 ? "" : "; \(unchained) records after the last checkpoint are not chained (their writer stopped before it could chain them)"
            return "intact: \(records) records in \(checkpoints) checkpoint\(checkpoints == 1 ? "" : "s") match the hash chain\(tail); \(headText)"
        case let .altered(seq, reason):
            return "altered at seq \(seq): \(reason); \(headText)"
        case .damaged(let reason):
            return "damaged: \(reason); \(headText)"
        }
    }
}

extension JournalReader {
    /// `PRAGMA integrity_check`'s first line (`ok` when the file is sound).
    func integrityCheck() throws(JournalError) -> String {
        var lines: [String] = []
        try each("PRAGMA integrity_check") { row throws(JournalError) in
            if lines.count < 3 { lines.append(row.text(0) ?? "?") }
        }
        return lines.joined(separator: "; ")
    }
}
