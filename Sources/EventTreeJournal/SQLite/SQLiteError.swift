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

    /// The result code, matchable by name: `error.resultCode == .full`, or in a `catch`
    /// pattern, `case ResultCode.busy = error.resultCode`.
    public var resultCode: ResultCode { ResultCode(rawValue: code) }

    /// Whether this is `SQLITE_FULL`: the disk (or the database's page limit) is full.
    public var isDiskFull: Bool { resultCode == .full }

    /// Whether the database refused the data itself (a constraint, a value too large or
    /// of the wrong type): writing the same rows again fails the same way, unlike a full
    /// disk or an I/O error.
    public var refusesTheData: Bool {
        let code = resultCode
        return code == .constraint || code == .toobig || code == .mismatch
    }

    /// An SQLite result code. Comparing with a primary code (`.ioerr`) matches every
    /// extended code of it (`SQLITE_IOERR_WRITE`, `SQLITE_IOERR_FSYNC`…), as GRDB does.
    public struct ResultCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The (possibly extended) code.
        public let rawValue: Int32

        /// Wraps a code.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code (the low byte).
        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xff) }

        /// `SQLITE_ERROR`: a generic error (a missing table, bad SQL).
        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        /// `SQLITE_BUSY`: another connection holds a lock.
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a conflict within this connection.
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        /// `SQLITE_READONLY`: the database cannot be written.
        public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
        /// `SQLITE_INTERRUPT`: the operation was interrupted (a time budget ran out).
        public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk, or the database's page limit, is full.
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)
        /// `SQLITE_TOOBIG`: a string or blob is larger than the database allows.
        public static let toobig = ResultCode(rawValue: SQLITE_TOOBIG)
        /// `SQLITE_CONSTRAINT`: a row breaks a constraint (a `UNIQUE` key taken already).
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a value of the wrong type for its column.
        public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)

        /// Equal when the codes are equal, or when either is a primary code and the other
        /// one of its extended codes.
        public static func == (lhs: ResultCode, rhs: ResultCode) -> Bool {
            if lhs.rawValue == rhs.rawValue { return true }
            if lhs.rawValue == lhs.primary.rawValue || rhs.rawValue == rhs.primary.rawValue {
                return lhs.primary.rawValue == rhs.primary.rawValue
            }
            return false
        }

        /// Hashes the primary code (so that equal codes hash alike).
        public func hash(into hasher: inout Hasher) { hasher.combine(primary.rawValue) }

        /// `sqlite3_errstr` of the code.
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// `SQLite error N (description): message [while running: sql]`.
    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var text = "SQLite error \(code) (\(name)): \(message)"
        if let sql { text += " [while running: \(sql.count > 120 ? String(sql.prefix(117)) + "..." : sql)]" }
        return text
    }
}
