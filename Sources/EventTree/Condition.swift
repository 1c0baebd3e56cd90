#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CEventTreeThread
import Synchronization

/// A condition variable paired with an ``UnfairLock``, for the few places that must wait
/// (a bounded buffer that is full, a durable commit not yet written, a writer with no work).
///
/// On Linux it is a futex word that every signal advances: a waiter notes the word under the
/// lock, releases the lock and sleeps unless the word has moved since, so a signal given
/// between the two is never lost. A signal or broadcast with nobody waiting is two atomic
/// operations and no system call. Like every condition variable it may wake a waiter with
/// nothing to report: callers wait in a loop over their condition.
///
/// Timed waits run on the monotonic clock: a group-commit window or a retry delay must
/// not stretch or shrink when someone sets the wall clock.
package final class Condition: @unchecked Sendable {
    #if os(Linux)
    // Safe: both words live at stable heap addresses for the lifetime of the object and
    // are only touched atomically (and by the futex calls, which read the first atomically).
    /// Advanced by every signal and broadcast (a waiter sleeps only while it has not moved).
    private let generation: UnsafeMutablePointer<Atomic<UInt32>>
    /// The threads in a wait (counted before they note the generation).
    private let waiters: UnsafeMutablePointer<Atomic<Int>>
    #else
    // Safe: a stable heap address used only through pthread calls.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    #endif

    /// Creates a condition variable whose timed waits use the monotonic clock.
    package init() {
        #if os(Linux)
        generation = .allocate(capacity: 1)
        generation.initialize(to: Atomic(0))
        waiters = .allocate(capacity: 1)
        waiters.initialize(to: Atomic(0))
        #else
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let status = pthread_cond_init(condition, nil)
        precondition(status == 0, "pthread_cond_init failed with \(status)")
        #endif
    }

    deinit {
        #if os(Linux)
        generation.deinitialize(count: 1)
        generation.deallocate()
        waiters.deinitialize(count: 1)
        waiters.deallocate()
        #else
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        #endif
    }

    /// Releases `lock` (which the caller holds), waits for a signal, and takes `lock` again.
    package func wait(_ lock: UnfairLock) {
        #if os(Linux)
        _ = sleep(releasing: lock, nanoseconds: nil)
        #else
        pthread_cond_wait(condition, lock.mutexPointer)
        #endif
    }

    /// ``wait(_:)`` for at most `nanoseconds` (monotonic).
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: UnfairLock, nanoseconds: Int) -> Bool {
        wait(lock, until: monotonicNanoseconds() + max(0, nanoseconds))
    }

    /// ``wait(_:)`` until the monotonic clock reaches `deadline` (nanoseconds).
    ///
    /// - Returns: `false` when the wait timed out.
    @discardableResult
    package func wait(_ lock: UnfairLock, until deadline: Int) -> Bool {
        let remaining = deadline - monotonicNanoseconds()
        guard remaining > 0 else { return false }
        #if os(Linux)
        return sleep(releasing: lock, nanoseconds: remaining)
        #else
        var relative = timespec(tv_sec: remaining / 1_000_000_000, tv_nsec: remaining % 1_000_000_000)
        return pthread_cond_timedwait_relative_np(condition, lock.mutexPointer, &relative) == 0
        #endif
    }

    /// Wakes one waiting thread, if any.
    package func signal() {
        #if os(Linux)
        wake(all: false)
        #else
        pthread_cond_signal(condition)
        #endif
    }

    /// Wakes every waiting thread.
    package func broadcast() {
        #if os(Linux)
        wake(all: true)
        #else
        pthread_cond_broadcast(condition)
        #endif
    }

    #if os(Linux)
    /// Sleeps with `lock` released until the generation moves on (or `nanoseconds` pass).
    /// Returns `false` when the time ran out.
    private func sleep(releasing lock: UnfairLock, nanoseconds: Int?) -> Bool {
        // Counted before the generation is noted: a signaller that advances the generation
        // after this thread noted it sees the count, and one that does not see the count
        // advanced the generation before it was noted (both are sequentially consistent).
        waiters.pointee.add(1, ordering: .sequentiallyConsistent)
        let noted = generation.pointee.load(ordering: .sequentiallyConsistent)
        lock.unlock()
        let timedOut = eventtree_futex_wait(UnsafeMutableRawPointer(generation), noted, Int64(nanoseconds ?? -1)) != 0
        lock.lock()
        waiters.pointee.subtract(1, ordering: .relaxed)
        return !timedOut
    }

    /// Advances the generation and wakes one or all sleepers, when anybody waits.
    private func wake(all: Bool) {
        generation.pointee.add(1, ordering: .sequentiallyConsistent)
        guard waiters.pointee.load(ordering: .sequentiallyConsistent) > 0 else { return }
        eventtree_futex_wake(UnsafeMutableRawPointer(generation), all ? Int32.max : 1)
    }
    #endif
}
