#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`, which a ``Condition`` can wait on: the
/// one lock type of EventTree (the bus's state, the sequence's open batches, the journal
/// writer's queue, the recorders' own state).
///
/// Debug builds make it an error-checking mutex and trap on a misuse (a thread taking a lock
/// it holds, or releasing one it does not), as swift-nio's `NIOLock` does. It is used instead
/// of `Synchronization.Mutex`, which draws false "Swift access race" reports from the thread
/// sanitizer on Linux when threads contend for it. Never call out (handlers, I/O, waits)
/// while holding it.
package final class Lock: @unchecked Sendable {
    // Safe: the mutex lives at a stable heap address for the lifetime of the object and
    // is only touched through pthread calls, which synchronise themselves.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        // Assertions run in debug builds only: there the mutex checks its use.
        assert(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)) == 0)
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Acquires the lock, blocking until it is free.
    @inlinable @inline(__always)
    package func lock() {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed with \(status): a thread took a lock it holds")
    }

    /// Releases the lock.
    @inlinable @inline(__always)
    package func unlock() {
        let status = pthread_mutex_unlock(mutex)
        assert(status == 0, "pthread_mutex_unlock failed with \(status): a thread released a lock it does not hold")
    }

    /// Runs `body` while holding the lock.
    ///
    /// - Parameter body: The critical section. It must not call handlers, do I/O or wait.
    /// - Returns: What `body` returns.
    @inlinable @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
