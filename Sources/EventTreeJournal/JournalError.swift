#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a journal could not be opened, read or written. Its description is one line that
/// says what happened and what to do; it never contains payloads or bound values.
///
/// A struct with a ``code`` rather than an enum, so that a new kind of failure is not a
/// breaking change: compare codes (`error.code == .locked`), or whole errors
/// (`#expect(throws: JournalError.missing(path: path))`).
public struct JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it is. Codes may be added in any release: a `switch` over them
    /// needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that holds it is spelled.
        public let description: String

        private init(_ name: String) { description = name }

        /// Nothing exists at the path.
        public static let missing = Code("missing")
        /// The path names something other than a regular file (a directory, a FIFO, a device…).
        public static let notAFile = Code("notAFile")
        /// The file is empty, or an SQLite database with nothing in it: not a journal yet.
        public static let empty = Code("empty")
        /// The path begins with `file:`, which SQLite would read as a URI.
        public static let uriPath = Code("uriPath")
        /// The file is not an SQLite database.
        public static let notADatabase = Code("notADatabase")
        /// The file is an SQLite database but not an EventTree journal.
        public static let notAJournal = Code("notAJournal")
        /// The file was written by a newer EventTree.
        public static let newerVersion = Code("newerVersion")
        /// The file was written by an older EventTree: its schema must be upgraded first.
        public static let olderVersion = Code("olderVersion")
        /// A migration applied to this journal differs from the one this binary carries.
        public static let editedMigration = Code("editedMigration")
        /// The database is damaged or truncated.
        public static let corrupt = Code("corrupt")
        /// The journal's schema is not what the migrations create: its SQL is not run.
        public static let altered = Code("altered")
        /// A record makes no sense: the file was damaged or altered at ``JournalError/seq``.
        public static let damaged = Code("damaged")
        /// Another process (or another `Journal` in this one) has the journal open for writing.
        public static let locked = Code("locked")
        /// The journal was closed.
        public static let closed = Code("closed")
        /// Records could not be written yet; they are kept in memory and retried.
        public static let writeFailed = Code("writeFailed")
        /// The journal closed with records it could not write: they are lost.
        public static let recordsLost = Code("recordsLost")
        /// Any other SQLite failure.
        public static let sqlite = Code("sqlite")
        /// A file operation outside SQLite failed.
        public static let io = Code("io")
        /// The journal cannot do what was asked of it.
        public static let refused = Code("refused")
    }

    /// What kind of failure it is.
    public let code: Code
    /// The journal's path.
    public let path: String
    /// The seq of the record a ``Code/damaged`` journal is damaged at.
    public let seq: Int?
    /// How many records wait in memory (``Code/writeFailed``) or were lost
    /// (``Code/recordsLost``).
    public let count: Int?
    /// The schema version the journal has, when it is not this EventTree's
    /// (``Code/newerVersion``, ``Code/olderVersion``).
    public let schemaVersion: Int?
    /// The SQLite error behind it, if any.
    public let cause: SQLiteError?
    /// One line, without a leading `error:`.
    public let description: String

    private init(
        _ code: Code, path: String, seq: Int? = nil, count: Int? = nil, schemaVersion: Int? = nil,
        cause: SQLiteError? = nil, _ description: String
    ) {
        self.code = code
        self.path = path
        self.seq = seq
        self.count = count
        self.schemaVersion = schemaVersion
        self.cause = cause
        self.description = description
    }

    /// Nothing exists at the path.
    public static func missing(path: String) -> JournalError {
        JournalError(.missing, path: path, "no journal at \(path): check the path")
    }

    /// The path names something other than a regular file (`kind`: a directory, a FIFO…).
    public static func notAFile(path: String, kind: String) -> JournalError {
        JournalError(.notAFile, path: path, "\(path) is \(kind), not a journal file")
    }

    /// The file is empty, or an SQLite database with nothing in it: not a journal yet.
    public static func empty(path: String) -> JournalError {
        JournalError(.empty, path: path, "\(path) is empty: it holds no journal (yet)")
    }

    /// The path begins with `file:`, which SQLite would read as a URI.
    public static func uriPath(path: String) -> JournalError {
        JournalError(
            .uriPath, path: path,
            "\(path) begins with 'file:'; pass a plain path (prefix it with ./ if the file is really named so)")
    }

    /// The file is not an SQLite database.
    public static func notADatabase(path: String) -> JournalError {
        JournalError(.notADatabase, path: path, "\(path) is not an SQLite database")
    }

    /// The file is an SQLite database but not an EventTree journal.
    public static func notAJournal(path: String) -> JournalError {
        JournalError(.notAJournal, path: path, "\(path) is an SQLite database but not an EventTree journal")
    }

    /// The file was written by a newer EventTree (schema version `found`; this one reads up
    /// to `supported`).
    public static func newerVersion(path: String, found: Int, supported: Int) -> JournalError {
        JournalError(
            .newerVersion, path: path, schemaVersion: found,
            "\(path) has journal schema version \(found); this eventtree supports up to version \(supported): use a newer eventtree")
    }

    /// The file was written by an older EventTree: reading it needs its schema upgraded
    /// first (opening it with ``Journal`` or `eventtree upgrade` migrates it, keeping every row).
    public static func olderVersion(path: String, found: Int, current: Int) -> JournalError {
        JournalError(
            .olderVersion, path: path, schemaVersion: found,
            "\(path) has journal schema version \(found), older than this eventtree's \(current): upgrade it with 'eventtree upgrade \(path)' (it migrates the file in place and keeps every row)")
    }

    /// A migration applied to this journal differs from the one this binary carries.
    public static func editedMigration(path: String, version: Int, name: String) -> JournalError {
        JournalError(
            .editedMigration, path: path,
            "\(path) was migrated with a different migration \(version) (\(name)) than this binary carries; migrations must never be edited once shipped")
    }

    /// The database is damaged or truncated.
    public static func corrupt(path: String, detail: String) -> JournalError {
        JournalError(.corrupt, path: path, "\(path) is damaged or truncated: \(detail)")
    }

    /// The journal's schema is not what the migrations create (a view, table, index or
    /// trigger was changed, removed or added): its SQL is not run.
    public static func altered(path: String, detail: String) -> JournalError {
        JournalError(.altered, path: path, "\(path) was altered (\(detail)); it is not read, as its SQL could do anything")
    }

    /// A record makes no sense (a code out of range, a link to nowhere, a cycle): the
    /// file was damaged or altered at `seq`.
    public static func damaged(path: String, seq: Int, detail: String) -> JournalError {
        JournalError(.damaged, path: path, seq: seq, "\(path) is damaged at seq \(seq): \(detail)")
    }

    /// Another process (or another `Journal` in this one) has the journal open for writing.
    public static func locked(path: String, holder: String) -> JournalError {
        JournalError(
            .locked, path: path, "\(path) is open for writing by \(holder); close it there first (a journal has one writer)")
    }

    /// The journal was closed.
    public static func closed(path: String) -> JournalError {
        JournalError(.closed, path: path, "the journal \(path) is closed")
    }

    /// Records could not be written yet; `pending` of them are kept in memory and retried.
    public static func writeFailed(path: String, pending: Int, cause: SQLiteError) -> JournalError {
        JournalError(
            .writeFailed, path: path, count: pending, cause: cause,
            "cannot write to \(path) now (\(pending) records wait in memory and are retried): \(cause)")
    }

    /// The journal closed with `count` records it could not write: they are lost. `cause`
    /// is the last write error, if writing failed.
    public static func recordsLost(path: String, count: Int, cause: SQLiteError?) -> JournalError {
        let text = "closed \(path) with \(count) records it could not write; they are lost"
        return JournalError(.recordsLost, path: path, count: count, cause: cause, cause.map { "\(text): \($0)" } ?? text)
    }

    /// Any other SQLite failure.
    public static func sqlite(path: String, cause: SQLiteError) -> JournalError {
        JournalError(.sqlite, path: path, cause: cause, "\(path): \(cause)")
    }

    /// A file operation outside SQLite failed (`operation` says which, `errno` why).
    public static func io(path: String, operation: String, errno: Int32) -> JournalError {
        JournalError(.io, path: path, "cannot \(operation) \(path): \(String(cString: strerror(errno)))")
    }

    /// The journal cannot do what was asked of it (`reason` says why, and what to do).
    public static func refused(path: String, reason: String) -> JournalError {
        JournalError(.refused, path: path, "\(path): \(reason)")
    }
}

extension JournalError {
    /// The journal error a user can act on for an SQLite error met on `path`: a file that
    /// is not a database, a damaged one and a locked one get their own codes.
    public init(_ error: SQLiteError, path: String) {
        switch error.resultCode.primary {
        case .notadb: self = .notADatabase(path: path)
        case .corrupt: self = .corrupt(path: path, detail: error.message)
        case .busy, .locked: self = .locked(path: path, holder: "another connection")
        default: self = .sqlite(path: path, cause: error)
        }
    }
}
