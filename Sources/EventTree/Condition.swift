#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A condition variable paired with a ``Lock``, for the few places that must wait
/// (a bounded buffer that is full, a durable commit not yet written).
package final class Condition: @unchecked Sendable {
    // Safe: same argument as `Lock`: a stable heap address used only through pthread calls.
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates a condition variable.
    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init failed with \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Atomically releases `lock` and waits until signalled; reacquires `lock` before returning.
    package func wait(_ lock: Lock) {
        pthread_cond_wait(condition, lock.mutexPointer)
    }

    /// Like ``wait(_:)`` but returns after at most `nanoseconds`.
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: Lock, nanoseconds: Int) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Int(now.tv_nsec) + nanoseconds
        var deadline = timespec(tv_sec: now.tv_sec + total / 1_000_000_000, tv_nsec: total % 1_000_000_000)
        return pthread_cond_timedwait(condition, lock.mutexPointer, &deadline) == 0
    }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
