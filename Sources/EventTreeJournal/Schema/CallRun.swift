/// A run of handler calls as one `j_call_runs` row keeps it: the calls of one event handed to
/// the writer together, in seq order, their columns as a JSON array of `[handler_no, code, nanos, offset_us]`
/// arrays (so that plain SQL unpacks them with `json_each`, as the `j_calls` view does).
///
/// A call's seq is not stored: it is its event's id plus the distance its code carries.
final class CallRun {
    /// One call of a run: the columns of a `j_calls` row.
    struct Call: Equatable {
        var seq: Int
        var handlerNumber: Int
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

    // Used by one thread, the writer's: no dynamic exclusivity check on each access.

    /// The event the calls belong to.
    @exclusivity(unchecked) private(set) var event = 0
    /// The seq of the first call and of the last one (0 when empty).
    @exclusivity(unchecked) private(set) var firstSeq = 0
    @exclusivity(unchecked) private(set) var lastSeq = 0
    /// The row's `calls` text so far (without its closing bracket while open).
    private let text = ByteBuffer(capacity: 512)

    /// Whether the run has no call.
    var isEmpty: Bool { firstSeq == 0 }

    /// Whether a call of `event` may join the run.
    func continues(_ event: Int) -> Bool { firstSeq != 0 && self.event == event }

    /// Adds a call of `event` (the run must be empty or continue `event`).
    func append(_ call: Call, of event: Int) {
        if firstSeq == 0 {
            self.event = event
            firstSeq = call.seq
            text.count = 0
        }
        lastSeq = call.seq
        // At most a comma, 4 numbers of 20 digits and a sign, 3 commas and 2 brackets.
        text.write(atMost: 96) { buffer in
            var end = 0
            buffer[end] = UInt8(ascii: firstSeq == call.seq ? "[" : ",")
            end += 1
            buffer[end] = UInt8(ascii: "[")
            end += 1
            JSONText.writeDecimal(call.handlerNumber, into: buffer, at: &end)
            buffer[end] = UInt8(ascii: ",")
            end += 1
            JSONText.writeDecimal(call.code, into: buffer, at: &end)
            buffer[end] = UInt8(ascii: ",")
            end += 1
            JSONText.writeDecimal(call.nanoseconds, into: buffer, at: &end)
            buffer[end] = UInt8(ascii: ",")
            end += 1
            if let offset = call.offsetMicroseconds {
                JSONText.writeDecimal(offset, into: buffer, at: &end)
            } else {
                for byte in "null".utf8 {
                    buffer[end] = byte
                    end += 1
                }
            }
            buffer[end] = UInt8(ascii: "]")
            end += 1
            return end
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
        }
        return try body(text.bytes)
    }

    /// Trades everything (event, calls, buffer) with `other`.
    func exchange(with other: CallRun) {
        swap(&event, &other.event)
        swap(&firstSeq, &other.firstSeq)
        swap(&lastSeq, &other.lastSeq)
        text.exchange(with: other.text)
    }

    /// Forgets the calls added since the run was last closed.
    func discard() {
        firstSeq = 0
        lastSeq = 0
    }

    // MARK: Reading

    /// The calls of a run row, or `nil` when its text is not what a writer makes (a JSON
    /// array of arrays of four integers, the last possibly `null`), a call's seq does not
    /// follow the one before, or the first and last seqs are not the row's.
    static func calls(
        in text: UnsafeBufferPointer<UInt8>, event: Int, firstSeq: Int, lastSeq: Int, into calls: inout [Call]
    ) -> Bool {
        var parser = Parser(text: text)
        let start = calls.count
        guard parser.take(UInt8(ascii: "[")) else { return false }
        var previous = Int.min
        repeat {
            guard parser.take(UInt8(ascii: "[")), let handler = parser.integer(), parser.take(UInt8(ascii: ",")),
                let code = parser.integer(), parser.take(UInt8(ascii: ",")), let nanos = parser.integer(),
                parser.take(UInt8(ascii: ","))
            else { return false }
            let offset: Int?
            if parser.takeNull() {
                offset = nil
            } else {
                guard let value = parser.integer() else { return false }
                offset = value
            }
            guard parser.take(UInt8(ascii: "]")), code >= 0 else { return false }
            let (seq, overflow) = event.addingReportingOverflow(code >> 5)
            guard !overflow, seq > previous else { return false }
            previous = seq
            calls.append(Call(seq: seq, handlerNumber: handler, code: code, nanoseconds: nanos, offsetMicroseconds: offset))
        } while parser.take(UInt8(ascii: ","))
        guard parser.take(UInt8(ascii: "]")), parser.isAtEnd, calls[start].seq == firstSeq, previous == lastSeq else {
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
