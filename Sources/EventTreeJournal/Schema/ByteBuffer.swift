/// Bytes written in place: no copy-on-write check or growth test per byte, and appending
/// bytes is one memory copy (an array's `append(contentsOf:)` of a few dozen bytes costs
/// several times the copy). Used by one thread at a time; a value that holds one makes it
/// unique before writing (``makeUnique(_:)``), to keep value semantics.
final class ByteBuffer {
    // Unchecked, the three of them: one thread at a time uses a buffer (see above).
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    /// The most a buffer reused for every row keeps between writes (see
    /// ``empty(keepingAtMost:)``): far above the usual record, far below a large payload.
    static let keptCapacity = 1 << 16

    /// How many bytes fit before the storage grows.
    @exclusivity(unchecked) private(set) var capacity: Int
    /// How many bytes are written (set it lower to drop the last ones).
    @exclusivity(unchecked) var count = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// The bytes written, valid until the next write.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// Makes `buffer` its holder's own before a write: a copy when it is shared, so that the
    /// value holding it keeps value semantics.
    @inline(__always)
    static func makeUnique(_ buffer: inout ByteBuffer) {
        if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy() }
    }

    /// A buffer holding the same bytes.
    private func copy() -> ByteBuffer {
        let copy = ByteBuffer(capacity: capacity)
        copy.storage.initialize(from: storage, count: count)
        copy.count = count
        return copy
    }

    /// Empties the buffer, and gives its storage back when it grew past `limit` bytes
    /// (for an unusually large value), starting over with room for `limit`: a buffer reused
    /// for every row does not keep the size of the largest one for good.
    func empty(keepingAtMost limit: Int) {
        count = 0
        guard capacity > limit else { return }
        storage.deallocate()
        capacity = max(1, limit)
        storage = .allocate(capacity: capacity)
    }

    /// Trades contents with `other`.
    func exchange(with other: ByteBuffer) {
        swap(&storage, &other.storage)
        swap(&capacity, &other.capacity)
        swap(&count, &other.count)
    }

    /// Appends `bytes`, with one memory copy.
    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: count + bytes.count) }
        UnsafeMutableRawPointer(storage + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends one byte.
    @inline(__always)
    func append(byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        storage[count] = byte
        count += 1
    }

    /// Lets `body` write up to `limit` bytes at the end; it returns how many it wrote.
    @inline(__always)
    func write(atMost limit: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        if capacity - count < limit { grow(toHold: count + limit) }
        count += body(UnsafeMutableBufferPointer(start: storage + count, count: limit))
    }

    private func grow(toHold needed: Int) {
        capacity = max(capacity * 2, needed)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
    }
}
