#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EventTree
import Foundation

/// The advisory lock that makes a journal's writer the only one in the whole system: an
/// exclusive `flock` on `JOURNAL.lock`, holding the owner's process id. A clean close
/// removes the lock file, so that a closed journal has nothing beside it.
///
/// The system SQLite still has the WAL-reset race that needs two writers or checkpointers
/// at once, so a second writer is refused before it opens the database.
final class FileLock: @unchecked Sendable {
    // Safe: `descriptor` is only touched under `lock` (a pthread lock, which the thread
    // sanitizer sees, unlike `Synchronization.Mutex`).
    private let lock = Lock()
    /// The locked file's descriptor until ``release()``.
    private var descriptor: Int32?
    private let lockPath: String

    /// Takes the lock for `journalPath`, or says who holds it.
    init(journalPath: String) throws(JournalError) {
        lockPath = journalPath + ".lock"
        let locked = try Self.acquire(lockPath, journalPath: journalPath)
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(locked, 0)
        _ = pwrite(locked, pid, pid.count, 0)
        descriptor = locked
    }

    /// Opens (creating) and locks the file at `lockPath`, starting over when the file it
    /// locked was removed meanwhile (a writer that closed while this one waited).
    private static func acquire(_ lockPath: String, journalPath: String) throws(JournalError) -> Int32 {
        while true {
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .io(path: lockPath, operation: "create the lock file", errno: errno) }
            // A reader may hold a shared lock for an instant to see whether a writer is
            // active (see `isHeld`): try a few times before calling the journal locked.
            var attempts = 0
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK && attempts < 5 {
                attempts += 1
                usleep(2_000)
            }
            guard attempts < 5 else {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = pread(descriptor, &buffer, buffer.count, 0)
                let pid = count > 0
                    ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
                close(descriptor)
                throw .locked(path: journalPath, holder: pid == String(getpid()) ? "this process (another Journal)" : "process \(pid)")
            }
            // A lock on a file that was removed meanwhile locks nothing.
            var held = stat()
            var current = stat()
            if fstat(descriptor, &held) == 0, stat(lockPath, &current) == 0, current.st_ino == held.st_ino {
                return descriptor
            }
            close(descriptor)
        }
    }

    /// Removes the lock file and gives up the lock; later calls do nothing. Call it once
    /// the database is closed.
    func release() {
        lock.withLock {
            guard let locked = descriptor else { return }
            // Removed while still held: a writer waiting for it then finds it gone and
            // starts over.
            unlink(lockPath)
            flock(locked, LOCK_UN)
            close(locked)
            descriptor = nil
        }
    }

    deinit {
        release()
    }

    /// Whether a writer holds the lock of `journalPath` now. Creates nothing: without a
    /// lock file there is no writer.
    static func isHeld(journalPath: String) -> Bool {
        let descriptor = open(journalPath + ".lock", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }
}
