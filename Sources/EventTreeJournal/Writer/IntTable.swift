/// A map from integers to integers with open addressing and a multiplicative hash: the
/// writer looks up a handler's number for every call row, and `Dictionary`'s SipHash costs
/// more than the rest of the row's bookkeeping.
package struct IntTable {
    private var keys: [Int]
    private var values: [Int]
    private var count = 0
    /// Marks an empty slot (ids are sequence numbers, never negative).
    private static let empty = -1

    package init(capacity: Int = 64) {
        let size = max(16, (capacity * 2).nextPowerOf2)
        keys = Array(repeating: Self.empty, count: size)
        values = Array(repeating: 0, count: size)
    }

    private func slot(for key: Int) -> Int {
        let mask = keys.count - 1
        var index = Int(truncatingIfNeeded: UInt(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15 >> 32) & mask
        while keys[index] != Self.empty && keys[index] != key { index = (index + 1) & mask }
        return index
    }

    package subscript(key: Int) -> Int? {
        get {
            let index = slot(for: key)
            return keys[index] == key ? values[index] : nil
        }
        set {
            guard let newValue else { return }
            if (count + 1) * 2 > keys.count { grow() }
            let index = slot(for: key)
            if keys[index] != key {
                keys[index] = key
                count += 1
            }
            values[index] = newValue
        }
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != Self.empty }
        keys = Array(repeating: Self.empty, count: keys.count * 2)
        values = Array(repeating: 0, count: keys.count)
        count = 0
        for (key, value) in old { self[key] = value }
    }
}

extension Int {
    /// The smallest power of 2 at least this large.
    var nextPowerOf2: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
