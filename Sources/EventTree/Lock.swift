#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small mutual-exclusion lock over `pthread_mutex_t`.
///
/// `Synchronization.Mutex` draws false "Swift access race" reports from the thread
/// sanitizer on Linux when threads contend for it, so contended state in EventTree is
/// guarded by this type instead, keeping the sanitizer a trustworthy signal.
/// Never call out (handlers, I/O, waits) while holding it.
package final class Lock: @unchecked Sendable {
    // Safe: the mutex lives at a stable heap address for the lifetime of the object and
    // is only touched through pthread calls, which synchronise themselves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Acquires the lock, blocking until it is free.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// The underlying mutex, for ``Condition``.
    var mutexPointer: UnsafeMutablePointer<pthread_mutex_t> { mutex }

    /// Runs `body` while holding the lock.
    ///
    /// - Parameter body: The critical section. It must not call handlers, do I/O or wait.
    /// - Returns: What `body` returns.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
