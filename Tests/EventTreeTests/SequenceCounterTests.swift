import EventTree
import Testing

/// What a live reader of a journal relies on: below `settledBelow`, every fact has been
/// handed over (or never will be), whatever the order batches settle in.
@Suite struct SequenceCounterTests {
    @Test func settledBelowIsTheOldestOpenBatchWhateverOrderBatchesSettleIn() {
        let counter = SequenceCounter(startingAt: 10, tracksOpenBatches: true)
        let first = counter.open()
        let second = counter.open()
        _ = counter.advance()
        let third = counter.open()
        #expect([first, second, third] == [10, 11, 13])
        #expect(counter.settledBelow == 10)

        counter.settle(second)
        #expect(counter.settledBelow == 10)
        counter.settle(99)
        #expect(counter.settledBelow == 10)
        counter.settle(first)
        #expect(counter.settledBelow == 13)
        counter.settle(third)
        #expect(counter.settledBelow == 14)
        #expect(counter.settledBelow == counter.peek)
    }

    @Test func thousandsOfBatchesSettledInOrderAndOutOfOrderLeaveNoneOpen() {
        let counter = SequenceCounter(tracksOpenBatches: true)
        let open = (0..<5_000).map { _ in counter.open() }
        let oldest = open[0]
        // Every other one first, the oldest still open: the settled ones wait behind it.
        for first in open where first != oldest && first % 2 == 0 { counter.settle(first) }
        #expect(counter.settledBelow == oldest)
        // The rest newest first, then the oldest.
        for first in open.reversed() where first != oldest && first % 2 != 0 { counter.settle(first) }
        #expect(counter.settledBelow == oldest)
        counter.settle(oldest)
        #expect(counter.settledBelow == counter.peek)
    }

    /// What a journal's writer does once per transaction: settle every batch that arrived
    /// since the last, under one lock, and read where the settled numbers end.
    @Test func settlingInBulkGivesWhatSettlingOneByOneGives() {
        let bulk = SequenceCounter(startingAt: 5, tracksOpenBatches: true)
        let single = SequenceCounter(startingAt: 5, tracksOpenBatches: true)
        let open = (0..<40).map { _ in (bulk.open(), single.open()) }
        #expect(open.allSatisfy { $0.0 == $0.1 })
        let firsts = open.map(\.0)
        // The batches arrive out of order: a later one, a few older ones, the rest.
        for arrived in [[firsts[3]], Array(firsts[0..<3]), [], Array(firsts[4...].reversed())] {
            for first in arrived { single.settle(first) }
            bulk.settle(arrived)
            #expect(bulk.settledBelow == single.settledBelow)
        }
        #expect(bulk.settledBelow == 45)
        #expect(bulk.settledBelow == bulk.peek)
    }
}
