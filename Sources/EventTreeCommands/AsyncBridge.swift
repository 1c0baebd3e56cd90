#if PostgreSQL
import Foundation
import Synchronization

/// Runs asynchronous work (PostgreSQL's client) to its end from a synchronous command.
enum AsyncBridge {
    /// Runs `body` on the cooperative pool and blocks the calling thread (the tool's main
    /// thread, never one of the pool's) until it ends.
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }
}
#endif
