import Crypto

/// How a checkpoint chains its records (`j_chain.rule`).
package enum ChainRule: Int, Sendable {
    /// Each record on its own: `hash = SHA-256(previous hash || record)`, a record's tag
    /// being the first two bytes of the hash after it. Every checkpoint written before
    /// schema version 5.
    case perRecord = 1
    /// The checkpoint's records in one pass (``CheckpointHasher``). Since schema version 5.
    case perCheckpoint = 2
}

/// Chains the records of one checkpoint by ``ChainRule/perCheckpoint``: the checkpoint's
/// hash is SHA-256 of the previous checkpoint's hash followed by every record, each as its
/// length (a varint) and its bytes; a record's tag is the low two bytes of a running 64-bit
/// FNV-1a over the same bytes, seeded from the previous hash, so that `verify` still names
/// the first record changed, inserted or moved, and the hash proves the whole.
///
/// One SHA-256 pass per checkpoint instead of one per record: with calls of ~17 bytes, a
/// record costs a quarter of a SHA-256 block instead of a block and a finalisation.
package struct CheckpointHasher {
    /// The previous hash and the records, as hashed: one `update` per checkpoint, or per
    /// ``flushSize`` bytes of a large one. Copied before a write when shared.
    private var pending: ByteBuffer
    private var sha = SHA256()
    private var tagState: UInt64

    /// Bytes gathered before they are handed to SHA-256.
    private static let flushSize = 1 << 16

    /// Starts a checkpoint after `previous` (``ChainHash/start`` for the first), with room
    /// for about `expectedBytes` of records (a durable raise's checkpoint is small; a
    /// large one is hashed in parts).
    package init(after previous: ChainHash, expectedBytes: Int = 4_096) {
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
        var running = state
        pending.write(atMost: 10 + record.count) { buffer in
            var at = 0
            var length = UInt64(record.count)
            while true {
                let byte = length >= 0x80 ? UInt8(truncatingIfNeeded: length) | 0x80 : UInt8(length)
                buffer[at] = byte
                at += 1
                running = (running ^ UInt64(byte)) &* 0x100_0000_01b3
                if length < 0x80 { break }
                length >>= 7
            }
            guard let source = record.baseAddress, !record.isEmpty else { return at }
            UnsafeMutableRawPointer(buffer.baseAddress! + at).copyMemory(from: source, byteCount: record.count)
            for byte in record { running = (running ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return at + record.count
        }
        state = running
        if pending.count >= Self.flushSize {
            sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
            pending.count = 0
        }
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
