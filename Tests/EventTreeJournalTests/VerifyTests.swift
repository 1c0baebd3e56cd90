import Crypto
import EventTree
@testable import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Collects the checkpoints a writer hands out.
final class Checkpoints: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [JournalCheckpoint] = []
    func append(_ checkpoint: JournalCheckpoint) { lock.withLock { kept.append(checkpoint) } }
    var all: [JournalCheckpoint] { lock.withLock { kept } }
}

@Suite struct VerifyTests {
    /// Writes the recording script's session into a closed journal at `path`; returns the
    /// checkpoints handed out.
    @discardableResult
    static func record(_ path: String, payload: Int = 1, options: JournalOptions = JournalOptions()) throws -> [JournalCheckpoint] {
        let checkpoints = Checkpoints()
        var options = options
        options.onCheckpoint = { checkpoints.append($0) }
        let journal = try Journal(path: path, options: options)
        let nodes = try JournalRecordingTests.script(journal)
        let bus = nodes[0].bus
        nodes[0].raise(Ping(n: payload))
        bus.end()
        try journal.close()
        withExtendedLifetime(nodes) {}
        return checkpoints.all
    }

    /// The seqs of the chained records, in order.
    static func chainedSeqs(_ path: String) throws -> [Int] {
        let stream = try JournalReader(path: path).chainRecords()
        var seqs: [Int] = []
        while let record = stream.current {
            seqs.append(record.seq)
            try stream.advance()
        }
        return seqs
    }

    static func verify(_ path: String, expecting head: JournalHead? = nil) throws -> JournalVerification {
        try JournalVerifier(journal: path).verify(expectedHead: head)
    }

    @Test func anUntouchedJournalIsIntactAndItsHeadIsTheLastCheckpointHandedOut() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/intact.eventtree"
            let checkpoints = try Self.record(path)
            let report = try Self.verify(path)
            #expect(report.isIntact)
            #expect(report.unchained == 0)
            #expect(report.records == (try Self.chainedSeqs(path)).count)
            #expect(report.head == checkpoints.last?.head)
            #expect(report.line == "intact: \(report.records) records in \(report.checkpoints) checkpoint\(report.checkpoints == 1 ? "" : "s") match the hash chain; head \(report.head!)")
            #expect(try Self.verify(path, expecting: checkpoints.last!.head).isIntact)
            // An earlier head proves the records up to it, and no further.
            let earlier = checkpoints.first!.head
            let partial = try Self.verify(path, expecting: earlier)
            let firstAfter = try #require(try Self.chainedSeqs(path).first { $0 > earlier.seq })
            #expect(partial.verdict == .unproven(
                seq: firstAfter,
                "records from this seq on come after the expected head \(earlier): the head kept outside the file does not cover them"))
            #expect(partial.firstBadSeq == firstAfter)
        }
    }

    @Test func aChangedRowIsNamedByItsSeq() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/changed.eventtree"
            try Self.record(path)
            let seq = try #require(Int(try lines(path, "SELECT seq FROM j_calls ORDER BY seq LIMIT 1 OFFSET 3")[0]))
            try JournalTampering.changeCall(at: seq, in: path, column: .nanos) { $0 + 1 }
            let report = try Self.verify(path)
            #expect(report.firstBadSeq == seq)
            #expect(report.line.hasPrefix("altered at seq \(seq): it was changed, inserted or moved"))
            // A changed payload, a changed node name (every path below it is derived from it):
            // each named by its record's seq.
            try Self.record(path + "2")
            let event = try #require(Int(try lines(path + "2", "SELECT event_id FROM j_events ORDER BY event_id LIMIT 1 OFFSET 2")[0]))
            execute(path + "2", "UPDATE j_events SET payload = '{\"n\":9}' WHERE event_id = \(event)")
            #expect(try Self.verify(path + "2").firstBadSeq == event)
            try Self.record(path + "3")
            let named = try #require(Int(try lines(path + "3", "SELECT max(seq) FROM j_changes WHERE name IS NOT NULL")[0]))
            execute(path + "3", "UPDATE j_changes SET name = 'elsewhere' WHERE seq = \(named)")
            #expect(try Self.verify(path + "3").firstBadSeq == named)
        }
    }

    @Test func aRaisesThreadIsChainedWithIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/thread.eventtree"
            try Self.record(path)
            let event = try #require(Int(try lines(path, "SELECT event_id FROM j_events ORDER BY event_id LIMIT 1 OFFSET 1")[0]))
            #expect(try lines(path, "SELECT thread_no IS NOT NULL FROM j_events WHERE event_id = \(event)") == ["1"])
            execute(path, "UPDATE j_events SET thread_no = thread_no + 1 WHERE event_id = \(event)")
            #expect(try Self.verify(path).firstBadSeq == event)
            // The thread's name too: a renamed thread alters the first raise that names it.
            try Self.record(path + "2")
            let first = try #require(Int(try lines(path + "2", "SELECT min(event_id) FROM j_events")[0]))
            execute(path + "2", "UPDATE j_threads SET name = 'elsewhere'")
            #expect(try Self.verify(path + "2").firstBadSeq == first)
        }
    }

    @Test func aRemovedRowIsNamedByTheRecordAfterIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/removed.eventtree"
            try Self.record(path)
            let seqs = try Self.chainedSeqs(path)
            let seq = try #require(Int(try lines(path, "SELECT seq FROM j_calls ORDER BY seq LIMIT 1 OFFSET 2")[0]))
            let next = try #require(seqs.first { $0 > seq })
            try JournalTampering.removeCall(at: seq, in: path)
            #expect(try Self.verify(path).firstBadSeq == next)
        }
    }

    @Test func anInsertedRowIsNamedByItsSeq() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/inserted.eventtree"
            try Self.record(path)
            let seqs = try Self.chainedSeqs(path)
            // A free seq between two records.
            let free = try #require(zip(seqs, seqs.dropFirst()).first { $1 - $0 > 1 }).0 + 1
            let event = try #require(Int(try lines(path, "SELECT max(event_id) FROM j_events WHERE event_id < \(free)")[0]))
            execute(path, "INSERT INTO j_call_runs (seq, event_id, last_seq, calls) VALUES (\(free), \(event), \(free), '[[\(1 << 6 | 1 << 4 | 1),5]]')")
            #expect(try Self.verify(path).firstBadSeq == free)
            // An orphan detail row (it belongs to no call) is named too.
            try Self.record(path + "2")
            execute(path + "2", "INSERT INTO j_call_details (seq, text) VALUES (\(free), 'forged')")
            #expect(try Self.verify(path + "2").firstBadSeq == free)
        }
    }

    @Test func runsOfCallsThatOverlapReadBackInSeqOrderAndAreIntact() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/overlap.eventtree"
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            for index in 1...5 { app.on(Ping.self, label: "h\(index)") { _, _ in .handled } }
            app.raise(Ping())
            app.raise(Ping(n: 2))
            bus.end()
            try journal.close()
            let stepsBefore = try Self.steps(path)
            // Split the longest run (in its event's row) into its even and its odd calls: two
            // runs whose seqs interleave, as the runs of raises on two threads written together
            // can, the even ones (from the seq after the raise) left in the event's row, the odd
            // ones in a j_call_runs row.
            let row = try lines(path, """
                SELECT event_id, event_id + finished_back - 1, calls FROM j_events WHERE calls IS NOT NULL
                ORDER BY json_array_length(calls) DESC, event_id LIMIT 1
                """)[0].split(separator: "|", maxSplits: 2).map(String.init)
            let (event, bound) = (Int(row[0])!, Int(row[1])!)
            var calls: [CallRun.Call] = []
            #expect(Array(row[2].utf8).withUnsafeBufferPointer {
                CallRun.calls(in: $0, event: event, firstSeq: event + 1, lastSeq: bound, lastSeqIsBound: true, into: &calls)
            })
            try #require(calls.count >= 3)
            var sql = ""
            for parity in 0...1 {
                let run = CallRun()
                for (index, call) in calls.enumerated() where index % 2 == parity { run.append(call, of: event) }
                let (firstSeq, lastSeq) = (run.firstSeq, run.lastSeq)
                let text = run.close { String(decoding: $0, as: UTF8.self) }
                sql += parity == 0
                    ? "UPDATE j_events SET calls = '\(text)' WHERE event_id = \(event);"
                    : "INSERT INTO j_call_runs VALUES (\(firstSeq), \(event), \(lastSeq), '\(text)');"
            }
            execute(path, sql)
            #expect(try lines(path, "SELECT count(*) FROM j_call_runs WHERE event_id = \(event)") == ["1"])
            #expect(try lines(path, "SELECT json_array_length(calls) FROM j_events WHERE event_id = \(event)")
                == ["\((calls.count + 1) / 2)"])
            #expect(try Self.steps(path) == stepsBefore)
            #expect(try Self.verify(path).isIntact)
            // A malformed run is named by its seq: in an event's row, the seq after the raise.
            let other = try #require(Int(try lines(path, "SELECT max(event_id) FROM j_events WHERE calls IS NOT NULL")[0]))
            try #require(other > event)
            execute(path, "UPDATE j_events SET calls = '[[41]]' WHERE event_id = \(other)")
            #expect(try Self.verify(path).firstBadSeq == other + 1)
            execute(path, "UPDATE j_call_runs SET calls = '[[41]]' WHERE seq = \(calls[1].seq)")
            #expect(try Self.verify(path).firstBadSeq == calls[1].seq)
        }
    }

    /// The seqs of the steps `JournalReader.steps(in:)` reads, in the order it reads them.
    static func steps(_ path: String) throws -> [Int] {
        let steps = try JournalReader(path: path).steps(in: 1...Int.max)
        var seqs: [Int] = []
        while let step = steps.current {
            seqs.append(step.seq)
            try steps.advance()
        }
        return seqs
    }

    @Test func reorderedRowsAreNamedByTheFirstThatMoved() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/reordered.eventtree"
            try Self.record(path)
            let calls = try lines(path, "SELECT seq FROM j_calls ORDER BY seq LIMIT 2 OFFSET 4").compactMap(Int.init)
            // The two calls trade places: each keeps its seq and takes the other's handler,
            // duration and time.
            let values = try ["handler_no", "nanos", "offset_us"].map { column in
                try calls.map { seq in try #require(Int(try lines(path, "SELECT \(column) FROM j_calls WHERE seq = \(seq)")[0])) }
            }
            #expect(values[0][0] != values[0][1])
            for (column, pair) in zip([JournalTampering.CallColumn.handlerNumber, .nanos, .offsetMicroseconds], values) {
                try JournalTampering.changeCall(at: calls[0], in: path, column: column) { _ in pair[1] }
                try JournalTampering.changeCall(at: calls[1], in: path, column: column) { _ in pair[0] }
            }
            #expect(try Self.verify(path).firstBadSeq == calls[0])
        }
    }

    @Test func aJournalCutShortAtACheckpointNeedsTheHeadKeptOutsideIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/cut.eventtree"
            let checkpoints = try Self.record(path)
            let head = try #require(checkpoints.last?.head)
            // Remove the last checkpoint and every record after the one before it: what is
            // left is a consistent chain, so only the head kept elsewhere can tell.
            let keep = try #require(Int(try lines(path, "SELECT upto_seq FROM j_chain ORDER BY upto_seq DESC LIMIT 1 OFFSET 1")[0]))
            execute(path, """
                DELETE FROM j_chain WHERE upto_seq > \(keep); DELETE FROM j_call_runs WHERE seq > \(keep);
                DELETE FROM j_call_details WHERE seq > \(keep); DELETE FROM j_undelivered WHERE seq > \(keep);
                DELETE FROM j_event_details WHERE event_id > \(keep); DELETE FROM j_events WHERE event_id > \(keep);
                UPDATE j_event_details SET unattended_seq = NULL WHERE unattended_seq > \(keep);
                UPDATE j_sessions SET ended_seq = NULL, ended_at = NULL WHERE ended_seq > \(keep);
                DELETE FROM j_trouble WHERE seq > \(keep);
                """)
            #expect(try Self.verify(path).isIntact)
            let report = try Self.verify(path, expecting: head)
            #expect(report.firstBadSeq == keep + 1)
            #expect(report.line.contains("the journal's chain ends at seq \(keep), before the expected head \(head)"))
        }
    }

    @Test func aJournalRewrittenAsAWholeDiffersFromTheHeadKeptOutsideIt() async throws {
        try await withTemporaryDirectory { directory in
            let original = try Self.record(directory + "/a.eventtree", payload: 1)
            // The same session with one different payload, as a forger would write it anew.
            try Self.record(directory + "/b.eventtree", payload: 2)
            let head = try #require(original.last?.head)
            let report = try Self.verify(directory + "/b.eventtree", expecting: head)
            #expect(!report.isIntact)
            #expect(report.line.contains("differs from the expected head"))
        }
    }

    @Test func signedCheckpointsAreCheckedWithThePublicKey() async throws {
        try await withTemporaryDirectory { directory in
            let key = Curve25519.Signing.PrivateKey()
            var options = JournalOptions()
            options.checkpointSigningKey = key
            options.checkpointFile = directory + "/head.txt"
            let path = directory + "/signed.eventtree"
            let checkpoints = try Self.record(path, options: options)
            let stored = try String(contentsOfFile: directory + "/head.txt", encoding: .utf8)
            #expect(stored == checkpoints.last!.line + "\n")
            let signature = try #require(checkpoints.last?.signature)
            #expect(key.publicKey.isValidSignature(signature, for: Data(checkpoints.last!.head.description.utf8)))
            #expect(!Curve25519.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Data(checkpoints.last!.head.description.utf8)))
        }
    }

    @Test func aCheckpointOfAnUnknownRuleIsMalformed() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/rule.eventtree"
            try Self.record(path)
            #expect(try lines(path, "SELECT DISTINCT rule FROM j_chain") == ["1"])
            // A checkpoint's rule is part of what it proves; one this version does not know
            // is a malformed row.
            let upto = try #require(Int(try lines(path, "SELECT min(upto_seq) FROM j_chain")[0]))
            execute(path, "UPDATE j_chain SET rule = 7 WHERE upto_seq = \(upto)")
            #expect(try Self.verify(path).line.hasPrefix("altered at seq \(upto): its checkpoint row is malformed"))
        }
    }

    @Test func aCheckpointStretchedOverTheNextOnesRecordsNamesTheFirstItDoesNotCount() async throws {
        // FuzzTesting/Crashes/fuzz-verify/chain-checkpoint-stretched: a one-pass checkpoint
        // whose upto_seq reached into the next checkpoint's records trapped the verifier.
        try await withTemporaryDirectory { directory in
            let path = directory + "/stretched.eventtree"
            try Self.record(path)
            let uptos = try lines(path, "SELECT upto_seq FROM j_chain ORDER BY upto_seq").compactMap { Int($0) }
            let seqs = try Self.chainedSeqs(path)
            // A checkpoint followed by one that covers at least two records.
            let index = try #require(uptos.indices.dropLast().first { index in
                seqs.filter { $0 > uptos[index] && $0 <= uptos[index + 1] }.count >= 2
            })
            let next = try #require(seqs.first { $0 > uptos[index] })
            execute(path, "UPDATE j_chain SET upto_seq = \(uptos[index + 1] - 1) WHERE upto_seq = \(uptos[index])")
            let report = try Self.verify(path)
            #expect(report.firstBadSeq == next)
            #expect(report.line.hasPrefix("altered at seq \(next): it was changed, inserted or moved"))
        }
    }
}
