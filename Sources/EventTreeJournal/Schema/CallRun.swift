/// A run of handler calls as the journal keeps it (its event row's `calls` when it starts at
/// the seq after the raise and the raise ends within ``eventRowReach``, otherwise a
/// `j_call_runs` row): the calls of one event handed to
/// the writer together, in seq order, as a JSON array with one array per call (so that plain
/// SQL unpacks them with `json_each`, as the `j_calls` view does):
///
///     [handler_no * 64 + phase * 16 + outcome, nanos, offset_us, skipped]
///
/// A call's seq is not stored: it is the run's first seq plus the call's index in the run plus
/// `skipped` (the seqs before it, since the run's first, that are not calls of the run: a
/// nested raise's records, another thread's). The code's distance to the event follows from
/// it. Trailing elements are left out when they say nothing: `skipped` when 0, then
/// `offset_us` when 0 (`null` when unknown, in runs migrated from journals that had none), so
/// the common call is `[81,1250]`.
final class CallRun {
    /// One call of a run: the columns of a `j_calls` row.
    struct Call: Equatable {
        var seq: Int
        var handlerNumber: Int
        /// `(seq - event) * 64 + phase * 16 + outcome` (see ``JournalCodes``).
        var code: Int
        var nanoseconds: Int
        var offsetMicroseconds: Int?

        /// Stands for a run that does not decode, at its seq: no written call looks like it.
        static func malformed(at seq: Int) -> Call {
            Call(seq: seq, handlerNumber: -1, code: -1, nanoseconds: 0, offsetMicroseconds: nil)
        }

        /// Whether it stands for a run that does not decode.
        var isMalformed: Bool { code < 0 }
    }

    /// The largest handler number a run can hold (it shares a number with the code's low bits).
    static var largestHandlerNumber: Int { Int.max >> 6 }

    /// How far an event row's run reaches: an event keeps its run in its row only when its
    /// raise ends within this many seqs of it (`finished_back` at most this), so that its
    /// calls lie between `event_id + 1` and `event_id + eventRowReach - 1`, and a reader
    /// finds the runs of a stretch of seqs from the event rows just before it, not from the
    /// journal's first. A longer raise keeps its calls in `j_call_runs`.
    static let eventRowReach = 1_024

    /// How many seqs a run spans at most: a longer run of one event's calls is cut into runs
    /// that each start within this many seqs of their last call, so that reading a stretch
    /// of seqs never unpacks more than this much before it.
    static let longestSpan = 1_024

    // Used by one thread, the writer's: no dynamic exclusivity check on each access.

    /// The event the calls belong to.
    @exclusivity(unchecked) private(set) var event = 0
    /// The seq of the first call and of the last one (0 when empty).
    @exclusivity(unchecked) private(set) var firstSeq = 0
    @exclusivity(unchecked) private(set) var lastSeq = 0
    /// The first seq past the run's longest span (0 when empty): what a call must be below
    /// to join it.
    @exclusivity(unchecked) private var spanEnd = 0
    /// How many calls the run has.
    @exclusivity(unchecked) private(set) var count = 0
    /// The row's `calls` text so far (without its closing bracket while open).
    private let text = ByteBuffer(capacity: 512)

    /// The bytes kept for the row's text.
    var textCapacity: Int { text.capacity }

    /// Whether the run has no call.
    var isEmpty: Bool { firstSeq == 0 }

    /// Whether a call of `event` at `seq` may join the run (on the writer's path for every
    /// call, hence inlined).
    @inline(__always)
    func continues(_ event: Int, at seq: Int) -> Bool {
        seq < spanEnd && self.event == event
    }

    /// Adds a call of `event` (the run must be empty or continue `event`; the call's seq
    /// must follow the run's last and its code's distance be its seq's, its handler number
    /// at most ``largestHandlerNumber``).
    func append(_ call: Call, of event: Int) {
        if firstSeq == 0 {
            self.event = event
            firstSeq = call.seq
            spanEnd = call.seq + Self.longestSpan
            count = 0
            text.count = 0
        }
        // (The writer builds every call so; checked in debug builds only: a writer that
        // stopped the app over a run it could not encode would lose more than the run.)
        assert(
            call.seq >= firstSeq + count && call.code >> 6 == call.seq - event
                && (0...Self.largestHandlerNumber).contains(call.handlerNumber),
            "a call that a run cannot hold")
        let skipped = call.seq - firstSeq - count
        let opensRun = count == 0
        lastSeq = call.seq
        count += 1
        let handlerAndCode = call.handlerNumber << 6 | call.code & 63
        let nanoseconds = call.nanoseconds
        // The offset is written unless it and `skipped` are 0.
        let offset = call.offsetMicroseconds ?? 0
        let offsetIsNull = call.offsetMicroseconds == nil
        let writesOffset = skipped != 0 || offset != 0 || offsetIsNull
        // At most a comma, 4 numbers of 20 digits and a sign, 3 commas and 2 brackets.
        text.write(atMost: 96) { buffer in
            var end = 0
            buffer[0] = opensRun ? UInt8(ascii: "[") : UInt8(ascii: ",")
            buffer[1] = UInt8(ascii: "[")
            end = 2
            JSONText.writeDecimal(handlerAndCode, into: buffer, at: &end)
            buffer[end] = UInt8(ascii: ",")
            end += 1
            JSONText.writeDecimal(nanoseconds, into: buffer, at: &end)
            if writesOffset {
                buffer[end] = UInt8(ascii: ",")
                end += 1
                if offsetIsNull {
                    (buffer[end], buffer[end + 1], buffer[end + 2], buffer[end + 3]) = (0x6E, 0x75, 0x6C, 0x6C)  // null
                    end += 4
                } else {
                    JSONText.writeDecimal(offset, into: buffer, at: &end)
                }
                if skipped != 0 {
                    buffer[end] = UInt8(ascii: ",")
                    end += 1
                    JSONText.writeDecimal(skipped, into: buffer, at: &end)
                }
            }
            buffer[end] = UInt8(ascii: "]")
            return end + 1
        }
    }

    /// Ends the run: hands its row's `calls` text to `body` and empties it.
    func close<R, E: Error>(_ body: (_ calls: UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        text.write(atMost: 1) { buffer in
            buffer[0] = UInt8(ascii: "]")
            return 1
        }
        defer {
            firstSeq = 0
            lastSeq = 0
            spanEnd = 0
        }
        return try body(text.bytes)
    }

    /// Trades everything (event, calls, buffer) with `other`.
    func exchange(with other: CallRun) {
        swap(&event, &other.event)
        swap(&firstSeq, &other.firstSeq)
        swap(&lastSeq, &other.lastSeq)
        swap(&spanEnd, &other.spanEnd)
        swap(&count, &other.count)
        text.exchange(with: other.text)
    }

    /// Gives back what an unusually long run made its text buffer grow past
    /// `ByteBuffer.keptCapacity` (the run must be closed or discarded).
    func releaseExcess() {
        text.empty(keepingAtMost: ByteBuffer.keptCapacity)
    }

    /// Forgets the calls added since the run was last closed.
    func discard() {
        firstSeq = 0
        lastSeq = 0
        spanEnd = 0
    }

    // MARK: Reading

    /// Reads the calls of a run into `calls`; `false` when its text is not what a writer makes
    /// (a JSON array of arrays of two to four integers, the third possibly `null`), a call's
    /// seq does not follow the one before or cannot be the event's, or the first call's seq is
    /// not `firstSeq` or the last's not `lastSeq` (when `lastSeqIsBound`, the last is at most
    /// `lastSeq`: a run in its event's row ends before its event does).
    static func calls(
        in text: UnsafeBufferPointer<UInt8>, event: Int, firstSeq: Int, lastSeq: Int, lastSeqIsBound: Bool = false,
        into calls: inout [Call]
    ) -> Bool {
        var parser = Parser(text: text)
        let start = calls.count
        guard parser.take(UInt8(ascii: "[")) else { return false }
        var previous = Int.min
        var index = 0
        repeat {
            guard parser.take(UInt8(ascii: "[")), let handlerAndCode = parser.integer(), handlerAndCode >= 0,
                parser.take(UInt8(ascii: ",")), let nanos = parser.integer()
            else { return false }
            var offset: Int? = 0
            var skipped = 0
            if parser.take(UInt8(ascii: ",")) {
                if parser.takeNull() {
                    offset = nil
                } else {
                    guard let value = parser.integer() else { return false }
                    offset = value
                }
                if parser.take(UInt8(ascii: ",")) {
                    guard let value = parser.integer(), value >= 0 else { return false }
                    skipped = value
                }
            }
            guard parser.take(UInt8(ascii: "]")) else { return false }
            // seq = firstSeq + index + skipped; code = (seq - event) * 64 + phase and outcome.
            let (along, overflow1) = index.addingReportingOverflow(skipped)
            let (seq, overflow2) = firstSeq.addingReportingOverflow(along)
            let (back, overflow3) = seq.subtractingReportingOverflow(event)
            guard !overflow1, !overflow2, !overflow3, back >= 0, back <= Int.max >> 6, seq > previous else { return false }
            previous = seq
            index += 1
            calls.append(Call(
                seq: seq, handlerNumber: handlerAndCode >> 6, code: back << 6 | handlerAndCode & 63, nanoseconds: nanos,
                offsetMicroseconds: offset))
        } while parser.take(UInt8(ascii: ","))
        guard parser.take(UInt8(ascii: "]")), parser.isAtEnd, calls[start].seq == firstSeq,
            lastSeqIsBound ? previous <= lastSeq : previous == lastSeq
        else {
            return false
        }
        return true
    }

    /// Reads the little JSON a run's text is made of.
    private struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        var index = 0

        var isAtEnd: Bool {
            mutating get {
                skipSpace()
                return index == text.count
            }
        }

        mutating func skipSpace() {
            while index < text.count, text[index] == 0x20 || text[index] == 0x0A || text[index] == 0x0D || text[index] == 0x09 {
                index += 1
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < text.count, text[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func takeNull() -> Bool {
            skipSpace()
            guard text.count - index >= 4, text[index] == UInt8(ascii: "n"), text[index + 1] == UInt8(ascii: "u"),
                text[index + 2] == UInt8(ascii: "l"), text[index + 3] == UInt8(ascii: "l")
            else { return false }
            index += 4
            return true
        }

        /// A JSON integer that fits an `Int`.
        mutating func integer() -> Int? {
            skipSpace()
            let negative = index < text.count && text[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value = 0
            let start = index
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
                let digit = Int(text[index] &- UInt8(ascii: "0"))
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                index += 1
            }
            return index > start ? value : nil
        }
    }
}
