#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CEventTreeSQLite
import Foundation

/// A read-only connection to a journal, which it treats as untrusted input.
///
/// Opening resolves the path before SQLite sees it, refuses anything that is not a
/// non-empty regular file, opens with `SQLITE_OPEN_READONLY` and SQLite's defensive
/// settings, and checks the application id and the schema version. It never writes,
/// migrates or checkpoints, and it never creates files next to a closed journal. A journal
/// being written by another process stays readable.
public final class JournalReader {
    /// The journal's resolved path.
    public let path: String
    /// The journal's schema version.
    public let schemaVersion: Int
    let db: Connection
    let cache = ReaderCache()
    /// Where a private copy is read from (see `init`), removed with the reader.
    private let privateDirectory: String?

    deinit {
        if let privateDirectory { try? FileManager.default.removeItem(atPath: privateDirectory) }
    }

    /// Copies the journal and its -wal into a new private directory.
    private static func privateCopy(of path: String) throws(JournalError) -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "eventtree-read-\(UUID().uuidString)"
        let copy = directory + "/" + (path as NSString).lastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw .io(path: path, operation: "copy (to read its -wal without creating a -shm beside it)", errno: EIO)
        }
        return (directory, copy)
    }

    /// Opens `path` for reading.
    ///
    /// - Throws: ``JournalError`` for a missing, non-regular, empty, `file:`-prefixed,
    ///   non-SQLite, non-journal, truncated or newer journal.
    public init(path: String) throws(JournalError) {
        let resolved = try JournalFile.resolve(path, forWriting: false)
        self.path = resolved
        var hasWAL = FileManager.default.fileExists(atPath: resolved + "-wal")
        let hasSHM = FileManager.default.fileExists(atPath: resolved + "-shm")
        var readPath = resolved
        if hasWAL && !hasSHM {
            // A writer that did not close left its -wal (a crash), or the -shm was removed:
            // opening in place would make SQLite create a -shm beside a closed journal (or,
            // in a read-only directory, fail to see the -wal's committed frames). Read a
            // private copy of the journal and its -wal instead; the file stays untouched.
            let copy = try Self.privateCopy(of: resolved)
            privateDirectory = copy.directory
            readPath = copy.path
        } else {
            privateDirectory = nil
        }
        hasWAL = FileManager.default.fileExists(atPath: readPath + "-wal")
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (hasWAL ? 0 : SQLITE_OPEN_URI)
        // Without a -wal file no writer is active: open it immutable, so that SQLite
        // creates no -shm or -wal file beside it.
        let name = hasWAL ? readPath : "file:" + Self.uriEncoded(readPath) + "?immutable=1"
        var db: Connection
        do {
            db = try Self.openDefensively(name, flags: flags)
        } catch {
            throw JournalError(error, path: resolved)
        }
        let identity = try Migrator.identify(db, path: resolved)
        try Migrator.validate(identity, of: db, path: resolved, allowEmpty: false)
        // The typed reader and the views read the current schema only; an older file is
        // upgraded by its writer (or `eventtree upgrade`), never here: reading changes nothing.
        guard identity.version == Migrator.latestVersion else {
            throw .olderVersion(path: resolved, found: identity.version, current: Migrator.latestVersion)
        }
        try SchemaCheck.verify(db, version: identity.version, path: resolved)
        // The schema is now known to be exactly ours, so its views may use the JSON
        // functions (which SQLite 3.40 does not mark innocuous: `j_calls` unpacks runs
        // with json_each and json_extract); no SQL of the file's own can run with them.
        if eventtree_sqlite_enable_trusted_schema(db.handle) != SQLITE_OK {
            throw JournalError(db.error(SQLITE_ERROR, sql: "sqlite3_db_config(SQLITE_DBCONFIG_TRUSTED_SCHEMA)"), path: resolved)
        }
        // No query on an untrusted file runs unbounded: a budget in proportion to its size
        // (a legitimate query reads the file a few times over, not more).
        let pages = ((try? db.integer("PRAGMA page_count")) ?? nil) ?? 0
        db.limitSteps(to: max(100_000_000, pages * 20_000))
        if !hasWAL { try Self.checkNotTruncated(db, path: readPath, reportedAs: resolved) }
        schemaVersion = identity.version
        self.db = db
    }

    private static func openDefensively(_ name: String, flags: Int32) throws(SQLiteError) -> Connection {
        let db = try Connection(path: name, flags: flags)
        // "SQLITE_DBCONFIG_DEFENSIVE … disables language features that allow ordinary SQL
        // to deliberately corrupt the database file"; with trusted_schema off, functions
        // in the (untrusted) schema's views and triggers cannot have side effects.
        var status = eventtree_sqlite_enable_defensive(db.handle)
        guard status == SQLITE_OK else { throw db.error(status, sql: "sqlite3_db_config(SQLITE_DBCONFIG_DEFENSIVE)") }
        status = eventtree_sqlite_disable_trusted_schema(db.handle)
        guard status == SQLITE_OK else { throw db.error(status, sql: "sqlite3_db_config(SQLITE_DBCONFIG_TRUSTED_SCHEMA)") }
        try db.execute("PRAGMA query_only = 1")
        return db
    }

    /// A database whose header promises more pages than the file holds was cut short.
    private static func checkNotTruncated(
        _ db: borrowing Connection, path: String, reportedAs reported: String
    ) throws(JournalError) {
        do {
            let pages = try db.integer("PRAGMA page_count") ?? 0
            let pageSize = try db.integer("PRAGMA page_size") ?? 4096
            var info = stat()
            if stat(path, &info) == 0, Int(info.st_size) < pages * pageSize {
                throw JournalError.corrupt(
                    path: reported, detail: "the file holds \(info.st_size) bytes but its header promises \(pages * pageSize)")
            }
        } catch let error as JournalError {
            throw error
        } catch let error as SQLiteError {
            throw JournalError(error, path: reported)
        } catch {
            throw .corrupt(path: reported, detail: "\(error)")
        }
    }

    private static func uriEncoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// The seq below which every record is committed for good, for readers that follow a
    /// journal while it is written: threads hand their records over out of seq order, so a
    /// lower seq may commit after a higher one. `Int.max` when no writer has the journal open.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read.
    public func settledBelow() throws -> Int {
        guard FileLock.isHeld(journalPath: path) else { return Int.max }
        return try rows("SELECT settled_seq FROM j_sequence").first?.first?.int ?? 0
    }

    /// The journal's identity: a random UUID written once when the journal was created, and
    /// kept by copies of the file. Rows shipped from many
    /// journals into one database are told apart by it.
    ///
    /// - Throws: ``JournalError`` when the journal holds no single, well-formed identity
    ///   (an edited file) or cannot be read.
    public func journalID() throws -> UUID {
        let ids = try rows("SELECT journal_id FROM j_journal LIMIT 2")
        guard ids.count == 1, let text = ids[0][0].string, let id = UUID(uuidString: text) else {
            throw JournalError.corrupt(path: path, detail: "its identity (table j_journal) is not one UUID")
        }
        return id
    }

    /// Whether a writer (a `Journal` in this or another process) has the journal open now.
    public var isBeingWritten: Bool { FileLock.isHeld(journalPath: path) }

    /// The highest seq such that it and every lower seq are committed for good: a reader
    /// that copies the journal elsewhere takes the rows up to it, and later ones next time.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read.
    public func settledThrough() throws -> Int {
        let next = try rows("SELECT next_seq FROM j_sequence").first?.first?.int ?? 1
        let settled = try settledBelow()
        return settled == Int.max ? next - 1 : min(next - 1, settled - 1)
    }

    /// Runs a query with bound arguments and calls `body` for each row, streaming.
    ///
    /// - Parameters:
    ///   - sql: One statement. Arguments are always bound, never spliced into the text.
    ///   - arguments: The values of its `?` parameters, in order.
    ///   - body: Reads the row. The row is valid only during the call.
    /// - Throws: ``JournalError`` when the statement fails (a damaged journal says so),
    ///   or what `body` throws.
    public func forEachRow(
        _ sql: String, _ arguments: [JournalValue] = [], _ body: (JournalRow) throws -> Void
    ) throws {
        let rows = try cursor(sql, arguments)
        while rows.hasRow {
            try body(rows.row)
            try rows.advance()
        }
    }

    /// Runs a query and returns its rows as values (for small results).
    public func rows(_ sql: String, _ arguments: [JournalValue] = []) throws -> [[JournalValue]] {
        var rows: [[JournalValue]] = []
        try forEachRow(sql, arguments) { row in rows.append(row.values) }
        return rows
    }
}

/// A value bound to, or read from, SQL.
public enum JournalValue: Sendable, Hashable, CustomStringConvertible {
    /// An integer.
    case integer(Int)
    /// A real number.
    case real(Double)
    /// Text.
    case text(String)
    /// NULL.
    case null

    /// The integer, if this is one.
    public var int: Int? { if case .integer(let value) = self { value } else { nil } }
    /// The text, if this is text.
    public var string: String? { if case .text(let value) = self { value } else { nil } }

    /// The value as the `sqlite3` shell prints it (NULL as the empty string).
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .null: ""
        }
    }
}

/// One result row of ``JournalReader/forEachRow(_:_:_:)``, valid during the callback.
public struct JournalRow {
    let statement: OpaquePointer

    /// The number of columns.
    public var count: Int { Int(sqlite3_column_count(statement)) }

    /// The integer in column `index` (0 for NULL).
    public func int(_ index: Int) -> Int { Int(sqlite3_column_int64(statement, Int32(index))) }

    /// The integer in column `index`, or `nil` for NULL.
    public func optionalInt(_ index: Int) -> Int? { isNull(index) ? nil : int(index) }

    /// The real number in column `index` (0 for NULL).
    public func double(_ index: Int) -> Double { sqlite3_column_double(statement, Int32(index)) }

    /// The text in column `index`, or `nil` for NULL.
    public func text(_ index: Int) -> String? {
        sqlite3_column_text(statement, Int32(index)).map { String(cString: $0) }
    }

    /// The exact bytes of the text or blob in column `index`, or `nil` for NULL.
    public func bytes(_ index: Int) -> [UInt8]? {
        guard !isNull(index) else { return nil }
        // "sqlite3_column_text() ... then sqlite3_column_bytes()": the order the manual
        // advises, so that the length is that of the text form.
        let pointer = sqlite3_column_text(statement, Int32(index))
        let count = Int(sqlite3_column_bytes(statement, Int32(index)))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// The bytes of the text in column `index` (empty for NULL), lent to `body`.
    func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let pointer = sqlite3_column_text(statement, Int32(index))
        let count = Int(sqlite3_column_bytes(statement, Int32(index)))
        return body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// Whether column `index` is NULL.
    public func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL }

    /// The value in column `index`.
    public func value(_ index: Int) -> JournalValue {
        switch sqlite3_column_type(statement, Int32(index)) {
        case SQLITE_INTEGER: .integer(int(index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(statement, Int32(index)))
        case SQLITE_NULL: .null
        default: .text(text(index) ?? "")
        }
    }

    /// Every column's value.
    public var values: [JournalValue] { (0..<count).map(value) }
}

extension JournalReader {
    /// Writes a consistent copy of the journal, compacted, to a new file at `path`
    /// (`VACUUM INTO`); the journal itself is only read.
    package func copy(to path: String) throws(JournalError) {
        do {
            // query_only forbids VACUUM even into another file; the journal is still not written.
            try db.execute("PRAGMA query_only = 0")
            defer { try? db.execute("PRAGMA query_only = 1") }
            try db.execute("VACUUM INTO '\(path.replacingOccurrences(of: "'", with: "''"))'")
        } catch {
            throw JournalError(error, path: path)
        }
    }
}
