import EventTreeJournal
import Testing

@Suite struct IntTableTests {
    @Test func everyKeyKeepsItsLatestValueThroughCollisionsAndGrowth() {
        // Sequential keys, keys differing only in their high bits, strided keys, the largest:
        // from 16 slots the table grows nine times, and keys share home slots and probe on.
        let keys = Array(0..<3_000) + (1..<3_000).map { $0 << 32 } + (1..<1_000).map { $0 * 16_384 }
            + [Int.max, Int.max - 1, 1 << 62]
        var table = IntTable(capacity: 4)
        var expected: [Int: Int] = [:]
        for (index, key) in keys.enumerated() {
            table.set(index, for: key)
            expected[key] = index
        }
        for key in keys where key % 3 == 0 {
            table.set(-key, for: key)
            expected[key] = -key
        }
        #expect(expected.filter { table[$0.key] != $0.value }.isEmpty)
    }

    @Test func aKeyNeverStoredReadsAsNil() {
        var table = IntTable()
        #expect(table[0] == nil)
        for key in stride(from: 0, to: 2_000, by: 2) { table.set(key, for: key) }
        // Odd keys land in the same runs of slots as the even ones and must probe past them.
        #expect((0..<2_000).filter { table[$0] != ($0.isMultiple(of: 2) ? $0 : nil) }.isEmpty)
        #expect(table[1 << 40] == nil)
        #expect(table[Int.max] == nil)
    }

    @Test func keysDifferingOnlyInTheirHighBitsDoNotPileUp() {
        // Taking the product's low bits hashed every multiple of 2³² to slot 0: each insert
        // probed past all the keys before it, and these 16,384 took 9 s (quadratic) instead
        // of milliseconds. Time is the only symptom of a poor hash, hence a timing bound, set
        // far above the few milliseconds a good hash needs.
        var table = IntTable()
        let elapsed = ContinuousClock().measure {
            for key in 0..<16_384 { table.set(key, for: key << 32) }
        }
        #expect(elapsed < .seconds(2))
        #expect(table[12_345 << 32] == 12_345)
    }
}
