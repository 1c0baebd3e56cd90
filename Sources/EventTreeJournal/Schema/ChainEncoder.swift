import Crypto

/// The canonical bytes of journal records, for the hash chain.
///
/// A journal's records are its facts as stored: a session started or ended, a tree change
/// (with who released the node, and a snapshot of the tree after it), a handler added or
/// removed, a handler's match with a type, a raise (with how it ended), a dead letter or
/// unhandled error, a handler call, an undelivered step, a trouble note, a prune. The writer
/// encodes each record from the values it binds; `verify` encodes each from the values it reads; both
/// call the one function per record kind here, so the two encodings are the same bytes
/// exactly when the file holds what was written. (The sessions' counts and the sequence's
/// bookkeeping are summaries, not records, and are not chained.)
///
/// Records are chained in seq order, one checkpoint at a time, starting from 32 zero bytes
/// (see ``ChainRule`` and ``CheckpointHasher``).
package final class ChainEncoder {
    /// Storage written byte by byte (a plain buffer: no copy-on-write check per byte; the
    /// encoder is used by one thread), grown as needed.
    private var storage: UnsafeMutablePointer<UInt8>
    /// How many bytes fit before the storage grows.
    private(set) var capacity = 256
    private var count = 0
    /// Whether to encode at all (a journal that does not chain skips the work).
    package let isEnabled: Bool

    package init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// Gives back the storage an unusually large record made grow past
    /// `ByteBuffer.keptCapacity` (the record just encoded is then gone).
    func releaseExcess() {
        guard capacity > ByteBuffer.keptCapacity else { return }
        storage.deallocate()
        capacity = 256
        storage = .allocate(capacity: capacity)
        count = 0
    }

    /// The bytes of the record just encoded, valid until the next record is encoded.
    package var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    @inline(__always)
    private func put(_ byte: UInt8) {
        if count == capacity { grow() }
        storage[count] = byte
        count += 1
    }

    private func grow() {
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity *= 2
    }

    /// The record kinds, as their first byte.
    package enum Kind: UInt8 {
        case sessionStarted = 1, sessionEnded, treeChange, handlerAdded, handlerRemoved, handlerMatched, raise,
            unattended, call, undelivered, trouble, pruned
    }

    /// Writes `value` as a varint at `bytes + at` (the caller has made room for ten bytes)
    /// and moves `at` past it. The position stays in a local: stores through the buffer
    /// would otherwise reload `count` each time, and most of a record is integers.
    @inline(__always)
    static func put(varint value: UInt64, into bytes: UnsafeMutablePointer<UInt8>, at: inout Int) {
        var value = value
        while value >= 0x80 {
            bytes[at] = UInt8(truncatingIfNeeded: value) | 0x80
            at += 1
            value >>= 7
        }
        bytes[at] = UInt8(value)
        at += 1
    }

    /// Starts a record: its kind and its seq (`capacity` is never below 256: room for both).
    @inline(__always)
    private func start(_ kind: Kind, seq: Int) {
        storage[0] = kind.rawValue
        var at = 1
        Self.put(varint: UInt64(bitPattern: Int64(seq)), into: storage, at: &at)
        count = at
    }

    private func varint(_ value: UInt64) {
        // Ten bytes hold any varint: room is made once, then the bytes are stored directly.
        while capacity - count < 10 { grow() }
        var at = count
        Self.put(varint: value, into: storage, at: &at)
        count = at
    }

    /// The tag of `value` (0 for `nil`, 1 for an integer) and its zigzag varint.
    @inline(__always)
    private func int(_ value: Int?) {
        // The tag and the longest varint fit once room is made.
        while capacity - count < 11 { grow() }
        var at = count
        Self.put(int: value, into: storage, at: &at)
        count = at
    }

    /// An integer that cannot be missing: its zigzag varint, with no presence byte.
    @inline(__always)
    private func int(_ value: Int) {
        while capacity - count < 11 { grow() }
        var at = count
        Self.put(int: value, into: storage, at: &at)
        count = at
    }

    /// Writes `value` as ``int(_:)-(Int)`` does at `bytes + at` (the caller has made room for
    /// 11 bytes) and moves `at` past it.
    @inline(__always)
    private static func put(int value: Int, into bytes: UnsafeMutablePointer<UInt8>, at: inout Int) {
        put(varint: UInt64(bitPattern: Int64((value << 1) ^ (value >> 63))), into: bytes, at: &at)
    }

    /// Writes `value` as ``int(_:)-(Int?)`` does at `bytes + at` (the caller has made room for 11
    /// bytes) and moves `at` past it.
    @inline(__always)
    private static func put(int value: Int?, into bytes: UnsafeMutablePointer<UInt8>, at: inout Int) {
        guard let value else {
            bytes[at] = 0
            at += 1
            return
        }
        bytes[at] = 1
        at += 1
        // Zigzag, so that small negative numbers stay short.
        put(varint: UInt64(bitPattern: Int64((value << 1) ^ (value >> 63))), into: bytes, at: &at)
    }

    private func real(_ value: Double?) {
        guard let value else { return put(0) }
        put(3)
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { put(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    private func text<Bytes: Collection<UInt8>>(utf8 value: Bytes?) {
        guard let value else { return put(0) }
        put(2)
        varint(UInt64(value.count))
        let copied: Void? = value.withContiguousStorageIfAvailable(bytes(_:))
        if copied == nil { for byte in value { put(byte) } }
    }

    private func text(_ value: String?) {
        guard var value else { return put(0) }
        // A native string's UTF-8 in one copy, rather than byte by byte through its `utf8` view.
        value.withUTF8 { utf8 in
            put(2)
            varint(UInt64(utf8.count))
            bytes(utf8)
        }
    }

    /// Appends `source` in one copy.
    private func bytes(_ source: UnsafeBufferPointer<UInt8>) {
        while capacity - count < source.count { grow() }
        guard let base = source.baseAddress else { return }
        (storage + count).update(from: base, count: source.count)
        count += source.count
    }

    // MARK: One function per record kind

    package func sessionStarted(
        seq: Int, startedAt: Double, process: String, host: String, appVersion: String?
    ) {
        guard isEnabled else { return }
        start(.sessionStarted, seq: seq)
        real(startedAt)
        text(process)
        text(host)
        text(appVersion)
    }

    package func sessionEnded(seq: Int, session: Int, endedAt: Double?) {
        guard isEnabled else { return }
        start(.sessionEnded, seq: seq)
        int(session)
        real(endedAt)
    }

    /// A tree change, with the session of a created node, who released the node (the event
    /// and handler number) if a handler did, and the snapshot of the tree written after it.
    package func treeChange(
        seq: Int, node: Int, change: Int, parent: Int?, position: Int?, name: String?, session: Int?,
        releasedBy: (event: Int, handler: Int)?, snapshot: String?
    ) {
        guard isEnabled else { return }
        start(.treeChange, seq: seq)
        int(node)
        int(change)
        int(parent)
        int(position)
        text(name)
        int(session)
        int(releasedBy?.event)
        int(releasedBy?.handler)
        text(snapshot)
    }

    package func handlerAdded(
        seq: Int, number: Int, node: Int, eventType: String?, channel: Int, phases: Int, label: String,
        file: String, line: Int
    ) {
        guard isEnabled else { return }
        start(.handlerAdded, seq: seq)
        int(number)
        int(node)
        text(eventType)
        int(channel)
        int(phases)
        text(label)
        text(file)
        int(line)
    }

    package func handlerRemoved(seq: Int, handler: Int) {
        guard isEnabled else { return }
        start(.handlerRemoved, seq: seq)
        int(handler)
    }

    package func handlerMatched(seq: Int, number: Int, eventType: String?) {
        guard isEnabled else { return }
        start(.handlerMatched, seq: seq)
        int(number)
        text(eventType)
    }

    /// A raise with how it ended (`finishedBack` and the rest are `nil` when it never did).
    package func raise<Payload: Collection<UInt8>>(
        seq: Int, session: Int, eventType: String?, kind: Int, origin: Int, mode: Int, payload: Payload?,
        finishedBack: Int?, result: Int?, raisedMicroseconds: Int?, cause: Int?, transformedFrom: Int?,
        stopHandler: Int?, stopNode: Int?, stopPhase: Int?, message: String?, lostCalls: Int, onFailure: Int,
        thread: Int? = nil, threadName: String? = nil
    ) {
        guard isEnabled else { return }
        start(.raise, seq: seq)
        int(session)
        text(eventType)
        int(kind)
        int(origin)
        int(mode)
        text(utf8: payload)
        int(finishedBack)
        int(result)
        int(raisedMicroseconds)
        int(cause)
        int(transformedFrom)
        int(stopHandler)
        int(stopNode)
        int(stopPhase)
        text(message)
        int(lostCalls)
        int(onFailure)
        // Absent (not even a marker) for a raise of no known thread.
        if let thread {
            int(thread)
            text(threadName)
        }
    }

    package func unattended(seq: Int, event: Int) {
        guard isEnabled else { return }
        start(.unattended, seq: seq)
        int(event)
    }

    package func call(
        seq: Int, handler: Int, code: Int, nanoseconds: Int, offsetMicroseconds: Int?, detail: String?
    ) {
        guard isEnabled else { return }
        // The room (never below 256 bytes) holds a call without its detail.
        count = Self.writeCall(
            seq: seq, handler: handler, code: code, nanoseconds: nanoseconds, offsetMicroseconds: offsetMicroseconds,
            into: storage)
        guard let detail else { return }
        // The detail's text in place of the tag for `nil`.
        count -= 1
        text(detail)
    }

    /// The most bytes ``writeCall(seq:handler:code:nanoseconds:offsetMicroseconds:into:)``
    /// writes: the kind, the seq, the four integers and the detail's tag.
    static let callLimit = 1 + 10 + 3 * 11 + 11 + 1

    /// Writes the record of a call without a detail at `bytes` (room for ``callLimit``
    /// bytes) and returns its length: what ``call(seq:handler:code:nanoseconds:offsetMicroseconds:detail:)``
    /// encodes, for a writer that keeps it where it is written.
    @inline(__always)
    static func writeCall(
        seq: Int, handler: Int, code: Int, nanoseconds: Int, offsetMicroseconds: Int?,
        into bytes: UnsafeMutablePointer<UInt8>
    ) -> Int {
        bytes[0] = Kind.call.rawValue
        var at = 1
        put(varint: UInt64(bitPattern: Int64(seq)), into: bytes, at: &at)
        put(int: handler, into: bytes, at: &at)
        put(int: code, into: bytes, at: &at)
        put(int: nanoseconds, into: bytes, at: &at)
        put(int: offsetMicroseconds, into: bytes, at: &at)
        // No detail: its tag (0 for `nil`).
        bytes[at] = 0
        return at + 1
    }

    /// An undelivered step, with the numbers of the handlers whose calls it lost (ascending).
    package func undelivered(
        seq: Int, event: Int, node: Int, phase: Int, lostCalls: Int, lostHandlers: [Int]
    ) {
        guard isEnabled else { return }
        start(.undelivered, seq: seq)
        int(event)
        int(node)
        int(phase)
        int(lostCalls)
        varint(UInt64(lostHandlers.count))
        for handler in lostHandlers { int(handler) }
    }

    package func trouble(seq: Int, session: Int?, at: Double, kind: String, message: String, records: Int) {
        guard isEnabled else { return }
        start(.trouble, seq: seq)
        int(session)
        real(at)
        text(kind)
        text(message)
        int(records)
    }

    /// A prune: the sessions and records removed through `throughSeq`, and the chain's
    /// hash after it (where the retained chain starts).
    package func pruned(
        seq: Int, prunedAt: Double, throughSeq: Int, hash: [UInt8], sessions: Int, records: Int, reason: String
    ) {
        guard isEnabled else { return }
        start(.pruned, seq: seq)
        real(prunedAt)
        int(throughSeq)
        text(utf8: hash)
        int(sessions)
        int(records)
        text(reason)
    }
}

/// The running hash of a chain of records.
package struct ChainHash: Sendable, Equatable {
    /// The hash after the last record chained (32 zero bytes before the first).
    package private(set) var value: [UInt8]

    /// The hash that starts every chain.
    package static let start = ChainHash(value: Array(repeating: 0, count: 32))

    package init(value: [UInt8]) {
        self.value = value
    }

    /// Equal when the hashes are.
    package static func == (lhs: ChainHash, rhs: ChainHash) -> Bool { lhs.value == rhs.value }

    /// The hash in lowercase hex.
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in value {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
