import CEventTreeSQLite
import EventTree
@testable import EventTreeJournal
import EventTreeTesting
import Testing

@Suite struct CallRunTests {
    typealias Call = CallRun.Call

    /// The text a run of `calls` of event 100 is stored as.
    func text(of calls: [Call]) -> String {
        let run = CallRun()
        for call in calls { run.append(call, of: 100) }
        return run.close { String(decoding: $0, as: UTF8.self) }
    }

    func decode(_ text: String, event: Int = 100, first: Int, last: Int) -> [Call]? {
        var calls: [Call] = []
        let bytes = Array(text.utf8)
        let decodes = bytes.withUnsafeBufferPointer {
            CallRun.calls(in: $0, event: event, firstSeq: first, lastSeq: last, into: &calls)
        }
        return decodes ? calls : nil
    }

    @Test func aRaiseOfThousandsOfCallsIsKeptInRunsOfBoundedSpan() async throws {
        // One run per raise made every read of a stretch of seqs unpack the whole raise: a
        // raise of 10^6 calls took `query` 95 s. Runs now end before `longestSpan` seqs.
        try await withTemporaryJournal { journal throws in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            for index in 0..<3_000 { app.on(NamedEvent.self, label: "h\(index)") { _, _ in .handled } }
            app.raise(NamedEvent("big"))
            try journal.flush()
            let raise = try #require(Int(try lines(journal.path, "SELECT event_id FROM j_events").first ?? ""))
            #expect(try lines(journal.path, "SELECT seq - \(raise), last_seq - \(raise) FROM j_call_runs ORDER BY seq")
                == ["1|1024", "1025|2048", "2049|3000"])
            #expect(try lines(journal.path, "SELECT count(*), min(seq) - \(raise), max(seq) - \(raise) FROM call_history")
                == ["3000|1|3000"])
            // Read back a stretch that starts inside the second run, in seq order.
            #expect(try lines(journal.path, "SELECT handler_label FROM call_history WHERE seq BETWEEN \(raise + 1500) AND \(raise + 1502) ORDER BY seq")
                == ["h1499", "h1500", "h1501"])
            _ = app
            try journal.close()
            #expect(try JournalVerifier(journal: journal.path).verify().isIntact)
        }
    }

    @Test func aRunIsAJSONArrayOfItsCallsAndReadsBackExactly() {
        let largest = CallRun.largestHandlerNumber
        let calls = [
            Call(seq: 101, handlerNumber: 3, code: 1 << 6 | 1 << 4 | 1, nanoseconds: 1_250, offsetMicroseconds: 0),
            Call(seq: 102, handlerNumber: 4, code: 2 << 6 | 1 << 4 | 1, nanoseconds: 7, offsetMicroseconds: 12),
            Call(seq: 107, handlerNumber: 12, code: 7 << 6 | 2 << 4 | 2, nanoseconds: 0, offsetMicroseconds: nil),
            Call(seq: 108, handlerNumber: 12, code: 8 << 6 | 2 << 4 | 2, nanoseconds: 0, offsetMicroseconds: 0),
            Call(seq: 100 + (1 << 40), handlerNumber: largest, code: (1 << 40) << 6 | 6, nanoseconds: 9_999_999_999, offsetMicroseconds: 123_456),
        ]
        let stored = text(of: calls)
        // [handler * 64 + phase * 16 + outcome, nanos, offset, seqs skipped since the run's first],
        // trailing zeros left out.
        #expect(stored == "[[209,1250],[273,7,12],[802,0,null,4],[802,0,0,4],[\(largest << 6 | 6),9999999999,123456,\((1 << 40) - 5)]]")
        #expect(decode(stored, first: 101, last: 100 + (1 << 40)) == calls)
        // SQLite's own JSON (the migration's json_array) and spaces read the same.
        #expect(decode(" [ [209, 1250, 0, 0] ] ", first: 101, last: 101) == [calls[0]])
        // A run is reused after it is closed.
        let run = CallRun()
        run.append(calls[0], of: 100)
        run.close { _ in }
        #expect(run.isEmpty)
        run.append(calls[2], of: 100)
        #expect(run.close { String(decoding: $0, as: UTF8.self) } == "[[802,0,null]]")
    }

    @Test func numbersOfEveryLengthAreWrittenInDecimalAndReadBack() {
        // Every length from 1 to 19 digits, at both ends of each (digits go two at a time).
        var values = [0, 9, 10, 99, 100, 101, 999, 1_000, 9_999, 10_000, 12_345, Int.max]
        var power = 1
        for _ in 1...18 {
            power *= 10
            values += [power - 1, power, power + 1, power * 5 + 37]
        }
        for value in values {
            let call = Call(seq: 101, handlerNumber: 3, code: 1 << 6 | 1, nanoseconds: value, offsetMicroseconds: value)
            let stored = text(of: [call])
            #expect(stored == (value == 0 ? "[[193,0]]" : "[[193,\(value),\(value)]]"))
            #expect(decode(stored, first: 101, last: 101) == [call])
        }
    }

    @Test func aRunThatIsNotWhatAWriterMakesDoesNotDecode() {
        let one = "[[105,1250]]"
        #expect(decode(one, first: 101, last: 101) != nil)
        for broken in [
            "", "[]", "[[105]]", "[[105,1250]", "[[105,1250]]x", "[[105,1250],]", "[[105.5,1250]]",
            "[[-105,1250]]", "[[105,1250,\"0\"]]", "[[105,1250,0,0,1]]", "[[99999999999999999999,1250]]",
            "[[105,1250,0,-1]]", "[[105,1250,null,null]]",
        ] {
            #expect(decode(broken, first: 101, last: 101) == nil, "\(broken)")
        }
        // The row's first and last seqs must be its calls'.
        #expect(decode(one, first: 102, last: 101) == nil)
        #expect(decode(one, first: 101, last: 102) == nil)
        #expect(decode("[[105,1],[105,1,0,2]]", first: 101, last: 104) != nil)
        #expect(decode("[[105,1],[105,1,0,2]]", first: 101, last: 103) == nil)
        // A seq past Int.max is refused, not wrapped; so is a seq before its event.
        #expect(decode("[[105,1],[105,1,0,\(Int.max)]]", first: 101, last: 101) == nil)
        #expect(decode(one, event: 102, first: 101, last: 101) == nil)
    }
}
