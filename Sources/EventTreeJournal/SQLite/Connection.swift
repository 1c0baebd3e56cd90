import CEventTreeSQLite

/// Owns one SQLite connection; closes it when it goes away.
///
/// Used from one thread at a time (the journal's writer, or one reader).
struct Connection: ~Copyable {
    let handle: OpaquePointer
    /// The step budget of a connection to an untrusted file (see ``limitSteps(to:)``).
    private(set) var budget: StepBudget?

    /// Opens `path` with `flags` (`SQLITE_OPEN_*`).
    init(path: String, flags: Int32) throws(SQLiteError) {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(db)
            throw SQLiteError(code: status, message: message, sql: nil)
        }
        handle = db
        // "The sqlite3_extended_result_codes() routine enables or disables the extended
        // result codes feature": on, so that errors name the precise cause (SQLITE_IOERR_WRITE…).
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        // sqlite3_close_v2 defers the close until every statement is finalized.
        sqlite3_close_v2(handle)
    }

    /// The error for `status`, with this connection's message and `sql`.
    func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            .replacingCode(ifZero: status)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        var statement: OpaquePointer?
        // SQLITE_PREPARE_PERSISTENT: the statement is kept and reused for the connection's life.
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, sql: sql) }
        budget?.reset()
        return Statement(handle: statement, db: handle, sql: sql, budget: budget)
    }

    /// The integer a query's first row starts with, or `nil` when it returns no row.
    func integer(_ sql: String) throws(SQLiteError) -> Int? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int(0)
    }

    /// Interrupts any one query that runs more than `steps` virtual-machine steps: a query
    /// on an untrusted file never runs unbounded. The count starts over with each prepared
    /// statement.
    mutating func limitSteps(to steps: Int) {
        let budget = StepBudget(limit: steps)
        eventtree_install_budget(handle, budget.pointer)
        self.budget = budget
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether the connection is inside a transaction.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}

extension SQLiteError {
    func replacingCode(ifZero status: Int32) -> SQLiteError {
        code == SQLITE_OK ? SQLiteError(code: status, message: message, sql: sql) : self
    }
}
