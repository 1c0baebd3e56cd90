internal import CEventTreeThread

/// A condition variable paired with a ``Lock``, for the few places that must wait (a
/// bounded buffer that is full, a durable commit not yet written, a writer with no work).
///
/// A `pthread_cond_t` whose timed waits run on the monotonic clock: a group-commit window or
/// a retry delay must not stretch or shrink when someone sets the wall clock. Like every
/// condition variable it may wake a waiter with nothing to report: callers wait in a loop
/// over their condition.
package final class Condition: @unchecked Sendable {
    // Safe: a stable heap address used only through pthread calls.
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates a condition variable whose timed waits use the monotonic clock.
    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let status = eventtree_cond_init(condition)
        precondition(status == 0, "pthread_cond_init failed with \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Releases `lock` (which the caller holds), waits for a signal, and takes `lock` again.
    package func wait(_ lock: Lock) {
        pthread_cond_wait(condition, lock.mutex)
    }

    /// ``wait(_:)`` for at most `nanoseconds` (monotonic).
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: Lock, nanoseconds: Int) -> Bool {
        wait(lock, until: monotonicNanoseconds() + max(0, nanoseconds))
    }

    /// ``wait(_:)`` until the monotonic clock reaches `deadline` (nanoseconds).
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: Lock, until deadline: Int) -> Bool {
        guard deadline > monotonicNanoseconds() else { return false }
        return eventtree_cond_wait_until(condition, lock.mutex, Int64(deadline)) == 0
    }

    /// Wakes one waiting thread, if any.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiting thread.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
