#if canImport(Darwin)
import Darwin
#endif
internal import CEventTreeThread
import Synchronization

/// A mutual-exclusion lock for the short critical sections a raise passes through (the bus's
/// state, the sequence's open batches, the journal writer's queue), which a ``Condition``
/// can wait on.
///
/// On Linux it is a word and a futex: taking it free is one compare-and-exchange, releasing
/// it one exchange, and only a contended lock makes a system call (the three-state mutex of
/// Drepper's "Futexes Are Tricky": 0 free, 1 held, 2 held with sleepers). That is a tenth of
/// `pthread_mutex_lock` and `pthread_mutex_unlock`'s instructions. A thread that was woken
/// takes the lock with an atomic exchange of its own, so the thread sanitizer sees every
/// hand-over (which a lock handed over inside the kernel, like `Synchronization.Mutex`'s
/// priority-inheriting futex, hides from it). It is not fair, and not recursive. Elsewhere
/// it is a ``Lock``.
///
/// Never call out (handlers, I/O, waits) while holding it.
package final class UnfairLock: @unchecked Sendable {
    #if os(Linux)
    // Safe: the word lives at a stable heap address for the lifetime of the object and is
    // only touched atomically (and by the futex calls, which read it atomically).
    private let word: UnsafeMutablePointer<Atomic<UInt32>>
    #else
    private let fallback = Lock()

    /// The underlying mutex, for ``Condition``.
    var mutexPointer: UnsafeMutablePointer<pthread_mutex_t> { fallback.mutexPointer }
    #endif

    /// Creates an unlocked lock.
    package init() {
        #if os(Linux)
        word = .allocate(capacity: 1)
        word.initialize(to: Atomic(0))
        #endif
    }

    deinit {
        #if os(Linux)
        word.deinitialize(count: 1)
        word.deallocate()
        #endif
    }

    /// Acquires the lock, blocking until it is free.
    @inline(__always)
    package func lock() {
        #if os(Linux)
        let (taken, _) = word.pointee.compareExchange(
            expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed)
        if !taken { waitForLock() }
        #else
        fallback.lock()
        #endif
    }

    /// Releases the lock, waking one waiting thread if there is one.
    @inline(__always)
    package func unlock() {
        #if os(Linux)
        if word.pointee.exchange(0, ordering: .releasing) == 2 { eventtree_futex_wake(UnsafeMutableRawPointer(word), 1) }
        #else
        fallback.unlock()
        #endif
    }

    #if os(Linux)
    /// Marks the lock as having sleepers and sleeps until it is free, then takes it (still
    /// marked: an unlock cannot tell whether another sleeper remains, so it wakes one).
    @inline(never)
    private func waitForLock() {
        while word.pointee.exchange(2, ordering: .acquiring) != 0 {
            eventtree_futex_wait(UnsafeMutableRawPointer(word), 2, -1)
        }
    }
    #endif

    /// Runs `body` while holding the lock.
    ///
    /// - Parameter body: The critical section. It must not call handlers, do I/O or wait.
    /// - Returns: What `body` returns.
    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
