/// The main-actor calls a bus enqueued (see ``WhenRaisedElsewhere/enqueue``) that have not
/// run yet, and who waits for them (``EventBus/waitForEnqueuedCalls()``).
final class EnqueuedCalls: @unchecked Sendable {
    // Safe: `pending` and `waiters` are read and written only with `lock` held.
    private let lock = Lock()
    private var pending = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Notes a call enqueued.
    func enqueued() {
        lock.withLock { pending += 1 }
    }

    /// Notes an enqueued call done; the last one resumes every waiter.
    func finished() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            pending -= 1
            guard pending == 0 else { return [] }
            defer { waiters = [] }
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once no enqueued call is pending.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = lock.withLock {
                if pending == 0 { return true }
                waiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }
}
