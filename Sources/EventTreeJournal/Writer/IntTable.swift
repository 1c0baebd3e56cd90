/// A map from integers to integers with open addressing and a multiplicative hash: the
/// writer looks up a handler's number for every call row, and `Dictionary`'s SipHash costs
/// more than the rest of the row's bookkeeping.
///
/// Keys are only ever added or updated, never removed (the writer and the replay number
/// handlers and nodes for as long as they run), so there is no removal and the table needs
/// no tombstones.
package struct IntTable {
    private var keys: [Int]
    private var values: [Int]
    private var count = 0
    /// How far the hash's product is shifted right: what remains are its top bits, one per
    /// bit of a slot index.
    private var shift: Int
    /// Marks an empty slot (ids are sequence numbers, never negative).
    private static let empty = -1
    /// 2⁶⁴ divided by the golden ratio: multiplying by it spreads every bit of a key into the
    /// top bits of the product (Fibonacci hashing).
    private static let multiplier: UInt = 0x9E37_79B9_7F4A_7C15

    /// An empty table with room for `capacity` keys before it first grows.
    package init(capacity: Int = 64) {
        let size = max(16, (capacity * 2).nextPowerOf2)
        keys = Array(repeating: Self.empty, count: size)
        values = Array(repeating: 0, count: size)
        shift = UInt.bitWidth - size.trailingZeroBitCount
    }

    /// The slot that holds `key`, or the empty slot where it belongs.
    @inline(__always)
    private func slot(for key: Int) -> Int {
        let mask = keys.count - 1
        // The product's top bits, not its low ones: the low bits of a product depend only on
        // the low bits of the key, so keys differing only above them would share a slot.
        var index = Int(truncatingIfNeeded: (UInt(bitPattern: key) &* Self.multiplier) >> shift)
        while keys[index] != Self.empty && keys[index] != key { index = (index + 1) & mask }
        return index
    }

    /// The value stored for `key`, or nil if it has none.
    @inline(__always)
    package subscript(key: Int) -> Int? {
        let index = slot(for: key)
        return keys[index] == key ? values[index] : nil
    }

    /// Stores `value` for `key` (never negative: -1 marks an empty slot), replacing any value
    /// it had. A method rather than a subscript setter: a setter would take an optional, and
    /// nil would have to mean removal, which the table does not do.
    package mutating func set(_ value: Int, for key: Int) {
        if (count + 1) * 2 > keys.count { grow() }
        let index = slot(for: key)
        if keys[index] != key {
            keys[index] = key
            count += 1
        }
        values[index] = value
    }

    /// Doubles the slots (keeping at most half of them full, so that probes stay short) and
    /// puts every key back in its new slot.
    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != Self.empty }
        keys = Array(repeating: Self.empty, count: keys.count * 2)
        values = Array(repeating: 0, count: keys.count)
        shift -= 1
        count = 0
        for (key, value) in old { set(value, for: key) }
    }
}

extension Int {
    /// The smallest power of 2 at least this large.
    var nextPowerOf2: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
