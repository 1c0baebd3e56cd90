import CEventTreeSQLite

/// An error reported by SQLite: the result code, SQLite's message, and the SQL that was
/// running. Bound values are never part of it.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_FULL`, `SQLITE_IOERR_WRITE`, …).
    public let code: Int32
    /// SQLite's message.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?

    /// Creates an error.
    public init(code: Int32, message: String, sql: String?) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the extended code's low byte).
    public var primaryCode: Int32 { code & 0xff }

    /// Whether this is `SQLITE_FULL`: the disk (or the database's page limit) is full.
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL }

    /// `SQLite error N (description): message [while running: sql]`.
    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var text = "SQLite error \(code) (\(name)): \(message)"
        if let sql { text += " [while running: \(sql.count > 120 ? String(sql.prefix(117)) + "..." : sql)]" }
        return text
    }
}
