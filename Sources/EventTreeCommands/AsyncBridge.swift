#if PostgreSQL
import EventTree
import Foundation

/// Runs asynchronous work (PostgreSQL's client) to its end from a synchronous command.
enum AsyncBridge {
    /// Runs `body` on the cooperative pool and blocks the calling thread (the tool's main
    /// thread, never one of the pool's) until it ends.
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.set(result)
            done.signal()
        }
        done.wait()
        return outcome.result!
    }
}

/// The result of the work, handed from the pool to the waiting thread under a pthread lock
/// (which the thread sanitizer sees, unlike `Synchronization.Mutex`).
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }

    var result: Result<T, any Error>? { lock.withLock { value } }
}
#endif
