#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A condition variable paired with a ``Lock``, for the few places that must wait
/// (a bounded buffer that is full, a durable commit not yet written).
///
/// Timed waits run on the monotonic clock: a group-commit window or a retry delay must
/// not stretch or shrink when someone sets the wall clock.
package final class Condition: @unchecked Sendable {
    // Safe: same argument as `Lock`: a stable heap address used only through pthread calls.
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates a condition variable whose timed waits use the monotonic clock.
    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Darwin)
        let status = pthread_cond_init(condition, nil)
        #else
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        defer { pthread_condattr_destroy(&attributes) }
        // "pthread_condattr_setclock() shall set the clock attribute ... used to measure
        // the timeout service of pthread_cond_timedwait()" (POSIX).
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let status = pthread_cond_init(condition, &attributes)
        #endif
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
        wait(lock, until: monotonicNanoseconds() + max(0, nanoseconds))
    }

    /// Like ``wait(_:)`` but returns once the monotonic clock reaches `deadline`
    /// (nanoseconds, as ``monotonicNanoseconds()`` counts them).
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: Lock, until deadline: Int) -> Bool {
        #if canImport(Darwin)
        let remaining = max(0, deadline - monotonicNanoseconds())
        var relative = timespec(tv_sec: remaining / 1_000_000_000, tv_nsec: remaining % 1_000_000_000)
        return pthread_cond_timedwait_relative_np(condition, lock.mutexPointer, &relative) == 0
        #else
        var absolute = timespec(tv_sec: deadline / 1_000_000_000, tv_nsec: deadline % 1_000_000_000)
        return pthread_cond_timedwait(condition, lock.mutexPointer, &absolute) == 0
        #endif
    }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
