import Foundation

/// Work running on a thread of its own, for tests that must block while it runs.
///
/// Blocking waits in tests must not sit on Swift concurrency's cooperative threads (as
/// many as the machine has cores): a test that waits on one while its work waits for
/// another can hang the whole parallel suite. This runs the work on a `Thread`.
package final class BackgroundThread<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is written once by the thread before `done` is signalled, and read
    // only after waiting for `done`.
    private var value: Value?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Value) {
        let thread = Thread { [self] in
            value = body()
            done.signal()
        }
        thread.start()
    }

    /// Waits for the work to finish and returns its result.
    package func result() -> Value {
        done.wait()
        done.signal()
        return value!
    }
}
