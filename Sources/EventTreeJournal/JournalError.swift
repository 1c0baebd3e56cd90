#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a journal could not be opened, read or written. Its description is one line that
/// says what happened and what to do; it never contains payloads or bound values.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing exists at the path.
    case missing(path: String)
    /// The path names something other than a regular file (a directory, a FIFO, a device…).
    case notAFile(path: String, kind: String)
    /// The file is empty, or an SQLite database with nothing in it: not a journal yet.
    case empty(path: String)
    /// The path begins with `file:`, which SQLite would read as a URI.
    case uriPath(path: String)
    /// The file is not an SQLite database.
    case notADatabase(path: String)
    /// The file is an SQLite database but not an EventTree journal.
    case notAJournal(path: String)
    /// The file was written by a newer EventTree.
    case newerVersion(path: String, found: Int, supported: Int)
    /// The file was written by an older EventTree: reading it needs its schema upgraded
    /// first (opening it with ``Journal`` or `eventtree upgrade` migrates it, keeping every row).
    case olderVersion(path: String, found: Int, current: Int)
    /// A migration applied to this journal differs from the one this binary carries.
    case editedMigration(path: String, version: Int, name: String)
    /// The database is damaged or truncated.
    case corrupt(path: String, detail: String)
    /// The journal's schema is not what the migrations create (a view, table, index or
    /// trigger was changed, removed or added): its SQL is not run.
    case altered(path: String, detail: String)
    /// A record makes no sense (a code out of range, a link to nowhere, a cycle): the
    /// file was damaged or altered at `seq`.
    case damaged(path: String, seq: Int, detail: String)
    /// Another process (or another `Journal` in this one) has the journal open for writing.
    case locked(path: String, holder: String)
    /// The journal was closed.
    case closed(path: String)
    /// Records could not be written yet; they are kept in memory and retried.
    case writeFailed(path: String, pending: Int, cause: SQLiteError)
    /// The journal closed with records it could not write: they are lost, and this says
    /// how many. `cause` is the last write error, if writing failed.
    case recordsLost(path: String, count: Int, cause: SQLiteError?)
    /// Any other SQLite failure.
    case sqlite(path: String, cause: SQLiteError)
    /// A file operation outside SQLite failed (`operation` says which, `errno` why).
    case io(path: String, operation: String, errno: Int32)
    /// The journal cannot do what was asked of it (`reason` says why, and what to do).
    case refused(path: String, reason: String)

    /// One line, without a leading `error:`.
    public var description: String {
        switch self {
        case let .missing(path):
            "no journal at \(path): check the path"
        case let .notAFile(path, kind):
            "\(path) is \(kind), not a journal file"
        case let .empty(path):
            "\(path) is empty: it holds no journal (yet)"
        case let .uriPath(path):
            "\(path) begins with 'file:'; pass a plain path (prefix it with ./ if the file is really named so)"
        case let .notADatabase(path):
            "\(path) is not an SQLite database"
        case let .notAJournal(path):
            "\(path) is an SQLite database but not an EventTree journal"
        case let .newerVersion(path, found, supported):
            "\(path) has journal schema version \(found); this eventtree supports up to version \(supported): use a newer eventtree"
        case let .olderVersion(path, found, current):
            "\(path) has journal schema version \(found), older than this eventtree's \(current): upgrade it with 'eventtree upgrade \(path)' (it migrates the file in place and keeps every row)"
        case let .editedMigration(path, version, name):
            "\(path) was migrated with a different migration \(version) (\(name)) than this binary carries; migrations must never be edited once shipped"
        case let .corrupt(path, detail):
            "\(path) is damaged or truncated: \(detail)"
        case let .altered(path, detail):
            "\(path) was altered (\(detail)); it is not read, as its SQL could do anything"
        case let .damaged(path, seq, detail):
            "\(path) is damaged at seq \(seq): \(detail)"
        case let .locked(path, holder):
            "\(path) is open for writing by \(holder); close it there first (a journal has one writer)"
        case let .closed(path):
            "the journal \(path) is closed"
        case let .writeFailed(path, pending, cause):
            "cannot write to \(path) now (\(pending) records wait in memory and are retried): \(cause)"
        case let .recordsLost(path, count, cause?):
            "closed \(path) with \(count) records it could not write; they are lost: \(cause)"
        case let .recordsLost(path, count, nil):
            "closed \(path) with \(count) records it could not write; they are lost"
        case let .sqlite(path, cause):
            "\(path): \(cause)"
        case let .io(path, operation, code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case let .refused(path, reason):
            "\(path): \(reason)"
        }
    }
}

extension JournalError {
    /// The journal error a user can act on for an SQLite error met on `path`: a file that
    /// is not a database, a damaged one and a locked one get their own cases.
    public init(_ error: SQLiteError, path: String) {
        switch error.resultCode.primary {
        case .notadb: self = .notADatabase(path: path)
        case .corrupt: self = .corrupt(path: path, detail: error.message)
        case .busy, .locked: self = .locked(path: path, holder: "another connection")
        default: self = .sqlite(path: path, cause: error)
        }
    }
}
