import Crypto
@testable import EventTreeJournal
import Testing

/// The hash chain's buffers write bytes in place; what `verify` relies on is that they hash
/// exactly the bytes the rule names, and that they stay values (the writer's model is copied
/// before each transaction and restored when it fails).
@Suite struct ChainBufferTests {
    /// `SHA-256(previous || (varint(length) || record)*)`, written out plainly.
    static func expectedHash(after previous: ChainHash, _ records: [[UInt8]]) -> [UInt8] {
        var bytes = previous.value
        for record in records {
            var length = UInt64(record.count)
            while length >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
                length >>= 7
            }
            bytes.append(UInt8(length))
            bytes += record
        }
        return Array(SHA256.hash(data: bytes))
    }

    @Test func aCheckpointHashesItsRecordsWithTheirLengthsAcrossFlushes() throws {
        // Small records, an empty one, one larger than a flush (64 KiB), whose length takes
        // three varint bytes, and one of every length up to 24 bytes (those of 8 to 16 bytes
        // are copied into their frames by two overlapping eight-byte moves).
        let records: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 7, count: 70_000), [9]]
            + (0...24).map { length in (0..<length).map { UInt8(truncatingIfNeeded: length &* 31 &+ $0 &* 7 &+ 1) } }
        var hasher = CheckpointHasher(after: .start, expectedBytes: 16)
        for record in records { _ = hasher.add(record) }
        #expect(hasher.finish().value == Self.expectedHash(after: .start, records))

        // Kept and added as frames (as the writer chains a checkpoint's records), the same
        // hash and the same tags as one by one.
        var single = CheckpointHasher(after: .start, expectedBytes: 16)
        let singleTags = records.flatMap { record in
            let (first, second) = single.add(record)
            return [first, second]
        }
        // Kept out of order (as a raise's record is kept after its calls): the frames are
        // hashed in seq order all the same, in several spans. Kept in order: one span,
        // whose frames are walked one by one.
        for inOrder in [false, true] {
            var kept = UnchainedRecords()
            let numbered = Array(records.enumerated())
            for (seq, record) in inOrder ? numbered : numbered.reversed() { kept.append(seq: seq + 1, record) }
            #expect(kept.entries.count == (inOrder ? 1 : records.count))
            var together = CheckpointHasher(after: .start, expectedBytes: 0)
            var tags = [UInt8](repeating: 0, count: 2 * records.count)
            try kept.take(below: .max) { entries, storage in
                tags.withUnsafeMutableBufferPointer { tags in together.add(kept: entries, in: storage, tags: tags.baseAddress!) }
            }
            #expect(tags == singleTags)
            #expect(together.finish().value == Self.expectedHash(after: .start, records))
        }
    }

    /// Rule 3's tags, written out plainly from the rule's text.
    static func wordTags(after previous: ChainHash, _ records: [[UInt8]]) -> [[UInt8]] {
        let factor: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, byte) in previous.value.prefix(8).enumerated() { state ^= UInt64(byte) << (8 * UInt64(index)) }
        return records.map { record in
            var digest = UInt64(record.count) &* factor
            for start in stride(from: 0, to: record.count, by: 8) {
                let word = record[start..<min(start + 8, record.count)].enumerated().reduce(UInt64(0)) {
                    $0 | UInt64($1.element) << (8 * UInt64($1.offset))
                }
                digest = (digest ^ word) &* factor
            }
            digest ^= digest >> 32
            digest = digest &* factor
            digest ^= digest >> 32
            state = (state ^ digest) &* factor
            state ^= state >> 32
            return [UInt8(state & 0xFF), UInt8(state >> 8 & 0xFF)]
        }
    }

    @Test func tagsAreTheWordHashItsDescriptionGivesAndEveryBitReachesThem() {
        let previous = ChainHash(value: Array(0..<32))
        let records: [[UInt8]] = [[], [1], Array(1...8), Array(1...9), Array(1...17), Array(repeating: 0xFF, count: 200)]
        var hasher = CheckpointHasher(after: previous)
        #expect(records.map { let (a, b) = hasher.add($0); return [a, b] } == Self.wordTags(after: previous, records))
        // Any one bit changed in a record changes its tag (a call's record is ~13 bytes).
        let call: [UInt8] = [9, 0x83, 0x8A, 0x01, 1, 5, 1, 0xD3, 0x13, 1, 0, 0, 7]
        let tag = Self.wordTags(after: previous, [call])
        for bit in 0..<(8 * call.count) {
            var changed = call
            changed[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(Self.wordTags(after: previous, [changed]) != tag, "bit \(bit)")
        }
    }

    @Test func aRecordsIntegersThatCannotBeMissingHaveNoPresenceByte() {
        // A call: kind 9, seq 300 (varint), then handler 3, code 41, nanos 1,250 (zigzag
        // varints), offset 0 (may be missing: present byte 1), no detail (0).
        let encoder = ChainEncoder()
        encoder.call(seq: 300, handler: 3, code: 41, nanoseconds: 1_250, offsetMicroseconds: 0, detail: nil)
        #expect(Array(encoder.bytes) == [9, 0xAC, 0x02, 6, 82, 0xC4, 0x13, 1, 0, 0])
        // A missing offset is still told from 0.
        encoder.call(seq: 300, handler: 3, code: 41, nanoseconds: 1_250, offsetMicroseconds: nil, detail: nil)
        #expect(Array(encoder.bytes) == [9, 0xAC, 0x02, 6, 82, 0xC4, 0x13, 0, 0])
    }

    @Test func aCopiedCheckpointHasherGoesOnWithoutTheOther() {
        var first = CheckpointHasher(after: .start)
        _ = first.add([1, 2, 3])
        var second = first
        let firstTag = first.add([4])
        let secondTag = second.add([5, 6])
        #expect(first.finish().value == Self.expectedHash(after: .start, [[1, 2, 3], [4]]))
        #expect(second.finish().value == Self.expectedHash(after: .start, [[1, 2, 3], [5, 6]]))
        var again = CheckpointHasher(after: .start)
        _ = again.add([1, 2, 3])
        #expect(again.add([4]) == firstTag)
        #expect(firstTag != secondTag)
    }

    @Test func unchainedRecordsAreAValueAndComeOutInSeqOrder() throws {
        var records = UnchainedRecords()
        records.append(seq: 11, [11, 11])
        records.append(seq: 12, [12])
        // A raise's record comes after its calls but goes before them.
        records.append(seq: 10, [10, 10, 10])
        // 11 and 12 follow one another, in seq and in the buffer: one span; 10 is one of its own.
        #expect(records.entries.map { [$0.seq, $0.lastSeq] } == [[10, 10], [11, 12]])
        // The span holds records on both sides of 12: split.
        let taken = try Self.take(&records, below: 12)
        #expect(taken.map(\.0) == [10, 11])
        #expect(taken.map(\.1) == [[10, 10, 10], [11, 11]])
        #expect(records.entries.map(\.seq) == [12])
        records.append(seq: 13, [13, 13])
        #expect(records.entries.map { [$0.seq, $0.lastSeq] } == [[12, 13]])

        // A copy (the writer's model before a transaction) keeps what it had, as it was,
        // though the original took everything and wrote new bytes where the old ones were.
        let saved = records
        _ = try Self.take(&records, below: .max)
        records.append(seq: 20, [20, 20, 20, 20, 20, 20])
        var restored = saved
        restored.append(seq: 14, [14])
        // A gap in the seqs starts a new span.
        restored.append(seq: 16, [16, 16])
        #expect(restored.entries.map { [$0.seq, $0.lastSeq] } == [[12, 14], [16, 16]])
        let fromCopy = try Self.take(&restored, below: .max)
        #expect(fromCopy.map(\.0) == [12, 13, 14, 16])
        #expect(fromCopy.map(\.1) == [[12], [13, 13], [14], [16, 16]])
        #expect(restored.isEmpty)
        let remaining = try Self.take(&records, below: .max)
        #expect(remaining.map(\.1) == [[20, 20, 20, 20, 20, 20]])
        #expect(try Self.take(&records, below: .max).isEmpty)
    }

    /// The records `records.take(below:)` takes out, as seqs and bytes (the frames of each
    /// span, one after another, without the one-byte length these short records have).
    private static func take(_ records: inout UnchainedRecords, below seq: Int) throws -> [(Int, [UInt8])] {
        try records.take(below: seq) { entries, storage in
            entries.flatMap { entry in
                var at = entry.start
                return (entry.seq...entry.lastSeq).map { seq in
                    let length = Int(storage[at])
                    defer { at += 1 + length }
                    return (seq, Array(storage[(at + 1)..<(at + 1 + length)]))
                }
            }
        } ?? []
    }
}
