import Crypto

/// How a checkpoint chains its records (`j_chain.rule`).
package enum ChainRule: Int, Sendable {
    /// Each record on its own: `hash = SHA-256(previous hash || record)`, a record's tag
    /// being the first two bytes of the hash after it. Every checkpoint written before
    /// schema version 5.
    case perRecord = 1
    /// The checkpoint's records in one pass (``CheckpointHasher``), tags from FNV-1a over
    /// each byte. Since schema version 5.
    case perCheckpoint = 2
    /// As ``perCheckpoint``, tags from a multiply-and-fold hash over eight bytes at a time
    /// (``CheckpointHasher``). Since schema version 7.
    case perCheckpointWords = 3
}

/// Chains the records of one checkpoint by ``ChainRule/perCheckpoint`` or
/// ``ChainRule/perCheckpointWords``: the checkpoint's hash is SHA-256 of the previous
/// checkpoint's hash followed by every record, each as its length (a varint) and its bytes;
/// a record's tag is two bytes of a running 64-bit state seeded from the previous hash, so
/// that `verify` still names the first record changed, inserted or moved, and the hash
/// proves the whole.
///
/// The tag's state runs over a record's bytes (rule 2: FNV-1a, byte by byte, over the
/// length varint and the bytes; the tag is its low two bytes) or over its words (rule 3:
/// `state = (state ^ word) * K` over the length, then over each eight bytes of the record
/// read little-endian, the last zero-padded; then `state ^= state >> 32`, `state *= K`,
/// `state ^= state >> 32`, so that every bit of the record reaches the tag, which is the low
/// two bytes; `K` is 0x9E3779B97F4A7C15). Rule 3 costs a multiplication per eight bytes
/// rather than one per byte.
///
/// One SHA-256 pass per checkpoint instead of one per record: with calls of ~13 bytes, a
/// record costs a quarter of a SHA-256 block instead of a block and a finalisation.
package struct CheckpointHasher {
    /// The previous hash and the records, as hashed: one `update` per checkpoint, or per
    /// ``flushSize`` bytes of a large one. Copied before a write when shared.
    private var pending: ByteBuffer
    private var sha = SHA256()
    private var tagState: UInt64
    /// ``ChainRule/perCheckpointWords`` (otherwise ``ChainRule/perCheckpoint``).
    private let tagsWords: Bool

    /// Bytes gathered before they are handed to SHA-256.
    private static let flushSize = 1 << 16
    /// The multiplier of rule 3's tags.
    private static let wordFactor: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Starts a checkpoint after `previous` (``ChainHash/start`` for the first), by `rule`
    /// (``ChainRule/perCheckpoint`` or ``ChainRule/perCheckpointWords``), with room for
    /// about `expectedBytes` of records (a durable raise's checkpoint is small; a large one
    /// is hashed in parts).
    package init(after previous: ChainHash, rule: ChainRule, expectedBytes: Int = 4_096) {
        precondition(rule != .perRecord, "a checkpoint hasher chains a checkpoint in one pass")
        tagsWords = rule == .perCheckpointWords
        pending = ByteBuffer(capacity: min(Self.flushSize, previous.value.count + expectedBytes))
        previous.value.withUnsafeBytes(pending.append)
        var seed: UInt64 = 0
        for (index, byte) in previous.value.prefix(8).enumerated() { seed |= UInt64(byte) << (8 * UInt64(index)) }
        tagState = 0xcbf2_9ce4_8422_2325 ^ seed
    }

    /// Adds the next record, returning its tag.
    package mutating func add(_ record: UnsafeRawBufferPointer) -> (UInt8, UInt8) {
        ByteBuffer.makeUnique(&pending)
        var state = tagState
        append(record, tagging: &state)
        tagState = state
        return (UInt8(truncatingIfNeeded: state), UInt8(truncatingIfNeeded: state >> 8))
    }

    /// Adds `count` records, the record at `index` being `record(index)`, and stores each
    /// one's tag (two bytes) at `tags`: what ``add(_:)-(UnsafeRawBufferPointer)`` does for
    /// each, with the buffer's uniqueness checked once.
    mutating func add(
        count: Int, _ record: (Int) -> UnsafeRawBufferPointer, tags: UnsafeMutablePointer<UInt8>
    ) {
        ByteBuffer.makeUnique(&pending)
        var state = tagState
        for index in 0..<count {
            append(record(index), tagging: &state)
            tags[2 * index] = UInt8(truncatingIfNeeded: state)
            tags[2 * index + 1] = UInt8(truncatingIfNeeded: state >> 8)
        }
        tagState = state
    }

    /// Appends a record (its length, a varint of at most ten bytes, then its bytes) to the
    /// pending bytes (unique by now), running the tag's state over them.
    @inline(__always)
    private mutating func append(_ record: UnsafeRawBufferPointer, tagging state: inout UInt64) {
        let wordwise = tagsWords
        var running = state
        // (Eight more bytes than written: rule 3 reads the record's last word from the copy,
        // zeros after it.)
        pending.write(atMost: 18 + record.count) { buffer in
            var at = 0
            var length = UInt64(record.count)
            while true {
                let byte = length >= 0x80 ? UInt8(truncatingIfNeeded: length) | 0x80 : UInt8(length)
                buffer[at] = byte
                at += 1
                if !wordwise { running = (running ^ UInt64(byte)) &* 0x100_0000_01b3 }
                if length < 0x80 { break }
                length >>= 7
            }
            let copy = UnsafeMutableRawPointer(buffer.baseAddress! + at)
            if let source = record.baseAddress, !record.isEmpty {
                copy.copyMemory(from: source, byteCount: record.count)
            }
            if wordwise {
                copy.storeBytes(of: 0, toByteOffset: record.count, as: UInt64.self)
                running = Self.wordTag(running, UnsafeRawPointer(copy), count: record.count)
            } else {
                for byte in record { running = (running ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            return at + record.count
        }
        state = running
        if pending.count >= Self.flushSize {
            sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
            pending.count = 0
        }
    }

    /// Rule 3's state after the record of `count` bytes at `bytes` (followed by at least
    /// seven zero bytes), from `state` (see the type's description).
    @inline(__always)
    private static func wordTag(_ state: UInt64, _ bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        var running = (state ^ UInt64(count)) &* wordFactor
        var offset = 0
        while offset < count {
            running = (running ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* wordFactor
            offset += 8
        }
        running ^= running >> 32
        running = running &* wordFactor
        return running ^ (running >> 32)
    }

    /// Adds a record held in an array.
    package mutating func add(_ record: [UInt8]) -> (UInt8, UInt8) {
        record.withUnsafeBytes { add($0) }
    }

    /// The checkpoint's hash, after its last record.
    package consuming func finish() -> ChainHash {
        sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
        return ChainHash(value: Array(sha.finalize()))
    }
}
