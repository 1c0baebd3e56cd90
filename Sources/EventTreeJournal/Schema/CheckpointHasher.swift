import Crypto

/// How a checkpoint chains its records (`j_chain.rule`). One rule so far; the column lets a
/// later schema chain differently without reinterpreting the checkpoints already written.
package enum ChainRule: Int, Sendable {
    /// The checkpoint's records in one pass, tags from each record's digest (see
    /// ``CheckpointHasher``).
    case checkpointDigests = 1
}

/// Chains the records of one checkpoint: the checkpoint's hash is SHA-256 of the previous
/// checkpoint's hash followed by every record, each as its length (a varint) and its bytes
/// (its *frame*); a record's tag is the low two bytes of a running 64-bit state seeded from
/// the previous hash, so that `verify` still names the first record changed, inserted or
/// moved, and the hash proves the whole.
///
/// The state runs over each record's *digest*: `s = (s ^ digest) * K; s ^= s >> 32`, with
/// `K` = 0x9E3779B97F4A7C15 and the digest a hash of the record alone (``digest(of:count:)``):
/// `d = count * K`, then `d = (d ^ w) * K` for each eight bytes `w` of the record read
/// little-endian (the last zero-padded), then `d ^= d >> 32; d *= K; d ^= d >> 32`. Every bit
/// of a record reaches its tag, at a multiplication per eight bytes rather than one per byte.
/// The writer keeps each record as its frame, so that chaining a checkpoint costs a digest
/// per record and one copy per run of frames kept one after another (short runs gathered for
/// one SHA-256 update, long ones hashed where they lie), not a copy per record.
///
/// One SHA-256 pass per checkpoint instead of one per record: with calls of ~13 bytes, a
/// record costs a quarter of a SHA-256 block instead of a block and a finalisation.
package struct CheckpointHasher {
    /// The previous hash and the records' frames, as hashed, gathered for one `update` per
    /// checkpoint, or per ``flushSize`` bytes of a large one. Copied before a write when shared.
    private var pending: ByteBuffer
    private var sha = SHA256()
    private var tagState: UInt64

    /// Bytes gathered before they are handed to SHA-256.
    private static let flushSize = 1 << 16
    /// The digests' multiplier.
    private static let factor: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Starts a checkpoint after `previous` (``ChainHash/start`` for the first), with room
    /// for about `expectedBytes` of records (a large checkpoint is hashed in parts).
    package init(after previous: ChainHash, expectedBytes: Int = 4_096) {
        pending = ByteBuffer(capacity: min(Self.flushSize, previous.value.count + expectedBytes))
        previous.value.withUnsafeBytes(pending.append)
        var seed: UInt64 = 0
        for (index, byte) in previous.value.prefix(8).enumerated() { seed |= UInt64(byte) << (8 * UInt64(index)) }
        tagState = 0xcbf2_9ce4_8422_2325 ^ seed
    }

    /// The digest of the record of `count` bytes at `bytes`. Its last word is read
    /// whole: the seven bytes after the record must be readable (whatever they hold: the
    /// bytes past the record are masked off, which is reading the last word zero-padded).
    @inline(__always)
    static func digest(of bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        // (Wrapping arithmetic throughout: a count is never negative, and no trap is needed.)
        var digest = UInt64(truncatingIfNeeded: count) &* factor
        var offset = 0
        let whole = count & ~7
        while offset < whole {
            digest = (digest ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* factor
            offset &+= 8
        }
        let rest = UInt64(truncatingIfNeeded: count & 7)
        if rest != 0 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            digest = (digest ^ (word & ((1 &<< (rest &* 8)) &- 1))) &* factor
        }
        digest ^= digest >> 32
        digest = digest &* factor
        return digest ^ (digest >> 32)
    }

    /// Writes a record's frame, its length (a varint of at most ten bytes) then its bytes,
    /// and eight zero bytes after it (not counted: room for at least `18 + record.count`
    /// bytes, so that the record's last word can be read whole), returning the frame's length.
    @inline(__always)
    static func writeFrame(of record: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var at = 0
        ChainEncoder.put(varint: UInt64(record.count), into: buffer.baseAddress!, at: &at)
        let copy = UnsafeMutableRawPointer(buffer.baseAddress! + at)
        if let source = record.baseAddress, !record.isEmpty {
            let count = record.count
            if count >= 8 && count <= 16 {
                // Most records (a call's is 12 bytes): two eight-byte moves, overlapping in
                // the middle, rather than a call to memmove.
                let head = source.loadUnaligned(as: UInt64.self)
                let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                copy.storeBytes(of: head, as: UInt64.self)
                copy.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
            } else {
                copy.copyMemory(from: source, byteCount: count)
            }
        }
        copy.storeBytes(of: 0, toByteOffset: record.count, as: UInt64.self)
        return at + record.count
    }

    /// Adds the next record, returning its tag.
    package mutating func add(_ record: UnsafeRawBufferPointer) -> (UInt8, UInt8) {
        ByteBuffer.makeUnique(&pending)
        pending.write(atMost: 18 + record.count) { Self.writeFrame(of: record, into: $0) }
        let kept = pending.bytes.baseAddress! + (pending.count - record.count)
        let state = Self.tag(tagState, Self.digest(of: kept, count: record.count))
        tagState = state
        if pending.count >= Self.flushSize {
            sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
            pending.count = 0
        }
        return (UInt8(truncatingIfNeeded: state), UInt8(truncatingIfNeeded: state >> 8))
    }

    /// Adds a record held in an array.
    package mutating func add(_ record: [UInt8]) -> (UInt8, UInt8) {
        record.withUnsafeBytes { add($0) }
    }

    /// The tag state after a record of `digest`.
    @inline(__always)
    private static func tag(_ state: UInt64, _ digest: UInt64) -> UInt64 {
        let mixed = (state ^ digest) &* factor
        return mixed ^ (mixed >> 32)
    }

    /// The record in the frame at `offset` of `storage` (as ``writeFrame(of:into:)`` made
    /// it): where its bytes start, and where the frame ends.
    @inline(__always)
    static func record(in storage: UnsafeRawBufferPointer, at offset: Int) -> (start: Int, end: Int) {
        // The length, a varint: one byte for any record under 128 bytes (every call without
        // a detail).
        var at = offset
        var length = 0
        var shift = 0
        while true {
            let byte = storage.load(fromByteOffset: at, as: UInt8.self)
            at &+= 1
            length |= Int(byte & 0x7F) &<< shift
            if byte < 0x80 { break }
            shift &+= 7
        }
        return (at, at &+ length)
    }

    /// Adds the records kept as `entries` (spans of frames in `storage`, as
    /// ``writeFrame(of:into:)`` made them), and stores each record's tag (two bytes) at
    /// `tags`: what ``add(_:)-(UnsafeRawBufferPointer)`` does for each, with a copy per run
    /// of frames that follow one another. The digests are taken here, from frames written a
    /// while ago: taken as a record is kept, each read its bytes back from stores still on
    /// their way to memory (a stall of a dozen cycles or more per word, most of keeping a
    /// record).
    mutating func add(
        kept entries: UnsafeBufferPointer<UnchainedRecords.Entry>, in storage: UnsafeRawBufferPointer,
        tags: UnsafeMutablePointer<UInt8>
    ) {
        guard let base = storage.baseAddress else { return }
        ByteBuffer.makeUnique(&pending)
        var state = tagState
        var spanStart = 0
        var spanEnd = 0
        var tag = tags
        for entry in entries {
            let end = entry.start &+ entry.count
            var at = entry.start
            while at < end {
                let record = Self.record(in: storage, at: at)
                state = Self.tag(state, Self.digest(of: base + record.start, count: record.end &- record.start))
                tag[0] = UInt8(truncatingIfNeeded: state)
                tag[1] = UInt8(truncatingIfNeeded: state >> 8)
                tag += 2
                at = record.end
            }
            if entry.start != spanEnd {
                hash(UnsafeRawBufferPointer(rebasing: storage[spanStart..<spanEnd]))
                spanStart = entry.start
            }
            spanEnd = end
        }
        hash(UnsafeRawBufferPointer(rebasing: storage[spanStart..<spanEnd]))
        tagState = state
    }

    /// Hands `bytes` to SHA-256 after the pending ones: gathered while short (an `update`
    /// costs more than copying a few dozen bytes), at once when long.
    @inline(__always)
    private mutating func hash(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count < 4_096 && pending.count + bytes.count <= Self.flushSize {
            pending.append(bytes)
            return
        }
        if pending.count > 0 {
            sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
            pending.count = 0
        }
        sha.update(bufferPointer: bytes)
    }

    /// The checkpoint's hash, after its last record.
    package consuming func finish() -> ChainHash {
        sha.update(bufferPointer: UnsafeRawBufferPointer(pending.bytes))
        return ChainHash(value: Array(sha.finalize()))
    }
}
