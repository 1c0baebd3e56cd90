import EventTree
import Foundation
import Testing

/// The condition variable the journal's writer, its durable raisers and `flush` wait on: no
/// wake-up is lost between a waiter's check and its sleep, a broadcast wakes every waiter, and
/// a timed wait ends on time (the thread sanitizer runs this suite in CI).
@Suite struct ConditionTests {
    /// State only ever touched with `lock` held.
    private final class Shared: @unchecked Sendable {
        let lock = Lock()
        let changed = Condition()
        var turn = 0
        var released = false
        var woken = 0
        var timeouts = 0
    }

    @Test func twoThreadsHandingTurnsBackAndForthNeverMissAWakeUp() {
        let shared = Shared()
        let turns = 20_000
        // Thread 0 takes the even turns, thread 1 the odd ones: each waits for the other's
        // signal, so a signal lost between a check and a sleep stalls the pair for a whole
        // timed wait (and is counted).
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            shared.lock.withLock {
                while shared.turn < turns {
                    if shared.turn % 2 == side {
                        shared.turn += 1
                        shared.changed.signal()
                    } else if !shared.changed.wait(shared.lock, nanoseconds: 2_000_000_000) {
                        shared.timeouts += 1
                    }
                }
                shared.changed.signal()
            }
        }
        #expect(shared.turn == turns)
        #expect(shared.timeouts == 0)
    }

    @Test func aBroadcastWakesEveryWaiter() {
        let shared = Shared()
        let waiters = 4
        let threads = (0..<waiters).map { _ in
            let thread = Thread {
                shared.lock.withLock {
                    while !shared.released {
                        if !shared.changed.wait(shared.lock, nanoseconds: 5_000_000_000) { shared.timeouts += 1 }
                    }
                    shared.woken += 1
                }
            }
            thread.start()
            return thread
        }
        // Let them all reach their wait, then release them with one broadcast.
        while threads.contains(where: { !$0.isExecuting }) { usleep(1_000) }
        usleep(50_000)
        shared.lock.withLock {
            shared.released = true
            shared.changed.broadcast()
        }
        let deadline = Date().addingTimeInterval(4)
        while shared.lock.withLock({ shared.woken }) < waiters && Date() < deadline { usleep(1_000) }
        shared.lock.withLock {
            #expect(shared.woken == waiters)
            #expect(shared.timeouts == 0)
        }
    }

    @Test func aTimedWaitNobodySignalsEndsAfterItsTimeAndSaysSo() {
        let shared = Shared()
        let started = monotonicNanoseconds()
        let signalled = shared.lock.withLock { shared.changed.wait(shared.lock, nanoseconds: 30_000_000) }
        let elapsed = monotonicNanoseconds() - started
        #expect(!signalled)
        #expect(elapsed >= 30_000_000)
        #expect(elapsed < 2_000_000_000)
        // A deadline already past returns at once, without sleeping.
        let passed = shared.lock.withLock { shared.changed.wait(shared.lock, until: monotonicNanoseconds() - 1) }
        #expect(!passed)
    }
}
