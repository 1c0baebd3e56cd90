import CEventTreeSQLite

/// The step budget of a connection (see `Connection.limitSteps(to:)`): a class, so that
/// every statement keeps it alive for as long as SQLite's progress handler may read it.
final class StepBudget: @unchecked Sendable {
    // Safe: used by the one thread that uses the connection (SQLite calls the progress
    // handler on the thread stepping the statement).
    let pointer: UnsafeMutablePointer<eventtree_budget>

    /// A budget of `limit` steps.
    init(limit: Int) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: eventtree_budget(used: 0, limit: Int64(max(1, limit / 1_000))))
    }

    deinit {
        pointer.deallocate()
    }

    /// Starts the count over (for a new query).
    func reset() {
        pointer.pointee.used = 0
    }
}
