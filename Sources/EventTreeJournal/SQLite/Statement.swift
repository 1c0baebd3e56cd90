import CEventTreeSQLite

/// Owns one prepared statement; finalizes it when it goes away.
struct Statement: ~Copyable {
    let handle: OpaquePointer
    let db: OpaquePointer
    let sql: String
    /// The connection's step budget, kept alive while the statement may still step.
    let budget: StepBudget?

    deinit {
        sqlite3_finalize(handle)
    }

    private func check(_ status: Int32) throws(SQLiteError) {
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
    }

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    /// Binds an optional integer (NULL for `nil`).
    func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try check(sqlite3_bind_null(handle, index)) }
    }

    /// Binds a real number.
    func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text (NULL for `nil`); SQLite copies it.
    func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_text(handle, index, value, -1, eventtree_sqlite_transient()))
    }

    /// Binds UTF-8 bytes as text; SQLite copies them.
    func bind(utf8 bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        try bind(utf8: bytes[...], at: index)
    }

    /// Binds UTF-8 bytes (a part of a buffer) as text; SQLite copies them.
    func bind(utf8 bytes: ArraySlice<UInt8>, at index: Int32) throws(SQLiteError) {
        guard !bytes.isEmpty else { return try bind("", at: index) }
        let status = bytes.withUnsafeBufferPointer { buffer in
            sqlite3_bind_text(
                handle, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(buffer.count), eventtree_sqlite_transient())
        }
        try check(status)
    }

    /// Binds UTF-8 bytes as text that SQLite reads where they are, without a copy: they must
    /// stay as they are until the statement has run, and the parameter must be bound again
    /// before it runs once more.
    func bind(inPlaceUTF8 bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws(SQLiteError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return try bind("", at: index) }
        try check(sqlite3_bind_text(
            handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil))
    }

    /// Binds bytes as a blob; SQLite copies them.
    func bind(blob bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        let status = bytes.withUnsafeBytes { buffer in
            // A zero-length blob still needs a non-NULL pointer to be a blob, not NULL.
            sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), eventtree_sqlite_transient())
        }
        try check(status)
    }

    /// Runs the statement one step: `true` when a row is ready, `false` when done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw SQLiteError(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)), sql: sql)
                .replacingCode(ifZero: status)
        }
    }

    /// Resets the statement for another run and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(SQLiteError) {
        defer { reset() }
        try step()
    }

    /// Runs a statement that returns no rows, then resets it keeping its bindings: for a
    /// caller that binds every parameter before each run (clearing a multi-row insert's
    /// hundreds of parameters only for them to be bound again is wasted work on every row).
    func runKeepingBindings() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        try step()
    }

    /// The integer in column `index` (0-based) of the current row.
    func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// The integer in column `index`, or `nil` for NULL.
    func optionalInt(_ index: Int32) -> Int? { isNull(index) ? nil : int(index) }

    /// The text in column `index`, or `nil` for NULL.
    func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: pointer)
    }

    /// Whether column `index` is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

}
