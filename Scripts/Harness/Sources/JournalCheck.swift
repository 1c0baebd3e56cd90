import EventTreeJournal
import EventTreeReplay
import Foundation

/// What a journal must be after any trial: it opens read-only, passes `integrity_check`,
/// holds every acknowledged raise, holds only whole events, verifies intact (once reopened,
/// when the trial cut its writer before it chained its tail), and replays with nothing
/// diverged or lost.
struct JournalCheck {
    /// Acknowledged raises that are not in the journal.
    var missing: [Int] = []
    /// Everything else that is wrong, one line each.
    var problems: [String] = []

    /// The journal's reader; `nil` for an older schema when `acceptingOlder`.
    private static func open(_ path: String, acceptingOlder: Bool) throws -> JournalReader? {
        do {
            return try JournalReader(path: path)
        } catch let error {
            if error.code == .olderVersion, acceptingOlder { return nil }
            throw error
        }
    }

    init(path: String, acknowledged: [Int: Int], requireAcknowledged: Bool = true) {
        do {
            // A cut while the journal was being created may leave it before its last
            // migration (each is one transaction): nothing was promised from it yet.
            guard let reader = try Self.open(path, acceptingOlder: acknowledged.isEmpty) else { return }
            let integrity = try reader.rows("PRAGMA integrity_check").map { $0.first?.string ?? "?" }
            if integrity != ["ok"] { problems.append("integrity_check: \(integrity.prefix(3).joined(separator: "; "))") }
            var present = Set<Int>()
            try reader.forEachRow("SELECT event_id FROM event_history") { row in present.insert(row.int(0)) }
            missing = acknowledged.keys.filter { !present.contains($0) }.sorted()
            if requireAcknowledged && !missing.isEmpty {
                problems.append("\(missing.count) acknowledged raises missing (first: event \(missing[0]))")
            }
            let lost = try reader.rows("SELECT count(*) FROM event_history WHERE result = 'lost'")
            if lost.first?.first?.int != 0 { problems.append("events journaled as lost: \(lost)") }
            // Whole events: a Tick is handled by the branch and the root, an Echo by the root.
            var calls: [Int: Int] = [:]
            try reader.forEachRow("SELECT event_id, count(*) FROM call_history GROUP BY event_id") { row in
                calls[row.int(0)] = row.int(1)
            }
            var torn = 0
            try reader.forEachRow("SELECT event_id, event_type FROM event_history") { row in
                let expected = row.text(1) == "Tick" ? 2 : row.text(1) == "Echo" ? 1 : -1
                if calls[row.int(0), default: 0] != expected { torn += 1 }
            }
            if torn != 0 { problems.append("\(torn) torn events (calls missing)") }
            // A writer cut before it chained its last records leaves them unproven (never
            // altered); the next open chains them, as the app's next start would.
            var verification = try JournalVerifier(journal: path).verify()
            if case .unproven = verification.verdict {
                try Journal(path: path).close()
                verification = try JournalVerifier(journal: path).verify()
            }
            if !verification.isIntact { problems.append("verify: \(verification.line)") }
            let replayer = try Replayer(journal: path)
            var bad: [String: Int] = [:]
            try replayer.replay { finding in
                if finding.classification == .diverged || finding.classification == .lost {
                    bad[finding.classification.rawValue, default: 0] += 1
                }
            }
            if !bad.isEmpty { problems.append("replay: \(bad.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))") }
        } catch let error as JournalError where error.code == .empty && acknowledged.isEmpty {
            // Cut while the journal was being created: nothing was promised yet.
        } catch {
            problems.append("cannot read: \(error)")
        }
    }

    var isClean: Bool { problems.isEmpty }
}

/// A fresh directory under the system's temporary one, removed by `cleanUp`.
func temporaryDirectory(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "eventtree-harness-\(name)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func cleanUp(_ directory: String) {
    try? FileManager.default.removeItem(atPath: directory)
}

/// The `p`-th percentile (0...100) of `values`.
func percentile(_ values: [Int], _ p: Int) -> Int {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, (sorted.count - 1) * p / 100)]
}

/// Tallies trials and prints the harness's summary line.
struct Tally {
    let name: String
    var passed = 0
    var failed = 0

    mutating func record(_ trial: String, _ problems: [String]) {
        if problems.isEmpty {
            passed += 1
        } else {
            failed += 1
            print("FAIL \(name) \(trial): \(problems.joined(separator: "; "))")
        }
    }

    func finish() -> Int32 {
        print("\(name): \(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }
}
