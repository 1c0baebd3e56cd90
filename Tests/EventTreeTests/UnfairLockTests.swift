import EventTree
import Foundation
import Testing

/// The lock a raise takes twice: exclusive under contention (sleepers included), and every
/// hand-over visible to the thread sanitizer (which runs this suite in CI).
@Suite struct UnfairLockTests {
    /// A counter only ever touched with the lock held.
    private final class Guarded: @unchecked Sendable {
        let lock = UnfairLock()
        var count = 0
        var inside = 0
        var overlaps = 0
    }

    @Test func threadsThatContendNeverOverlapAndNoIncrementIsLost() {
        let guarded = Guarded()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50_000 {
                guarded.lock.withLock { guarded.count += 1 }
            }
        }
        #expect(guarded.count == 200_000)
    }

    @Test func threadsThatSleepOnAHeldLockAreWokenOneByOne() {
        let guarded = Guarded()
        // Each holds the lock long enough for the others to go to sleep on it.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<5 {
                guarded.lock.withLock {
                    guarded.inside += 1
                    if guarded.inside > 1 { guarded.overlaps += 1 }
                    usleep(2_000)
                    guarded.count += 1
                    guarded.inside -= 1
                }
            }
        }
        #expect(guarded.count == 20)
        #expect(guarded.overlaps == 0)
    }
}
