import CEventTreeSQLite
import Foundation

/// Builds a journal file from the rows of a copy kept elsewhere (a fleet database), so that
/// every reading command and API reads it as it reads the original.
///
/// The file is created with this binary's migrations up to the copy's schema version, filled
/// with the rows' images (``JournalTableRows/image``) in one transaction, cut at the copy's
/// settled seq, and migrated to the current schema. The rows are untrusted input: an image
/// that does not decode or does not fit its table is ``JournalError/corrupt(path:detail:)``
/// naming `source`, and a reader opened on the result checks everything a file is checked for.
///
/// ```swift
/// let rebuilder = try JournalRebuilder(creating: path, schemaVersion: 4, source: "fleet")
/// try rebuilder.insert(image, into: "j_call_runs")
/// try rebuilder.finish(settledThrough: 1_234)
/// ```
public final class JournalRebuilder {
    /// The file being built.
    public let path: String
    private let source: String
    private let db: Connection
    private var inserts: [String: PreparedInsert] = [:]

    /// Creates the file at `path` (which must not exist) with the schema of `schemaVersion`.
    ///
    /// - Parameters:
    ///   - path: Where the journal is built.
    ///   - schemaVersion: The journal schema version the images were made at.
    ///   - source: Where the images come from, for error messages.
    /// - Throws: ``JournalError/newerVersion(path:found:supported:)`` for images of a
    ///   schema this binary does not know, or when the file cannot be created.
    public init(creating path: String, schemaVersion: Int, source: String) throws(JournalError) {
        guard schemaVersion <= Migrator.latestVersion else {
            throw .newerVersion(path: source, found: schemaVersion, supported: Migrator.latestVersion)
        }
        guard schemaVersion >= 1 else { throw .corrupt(path: source, detail: "it gives journal schema version \(schemaVersion)") }
        let resolved = try JournalFile.resolve(path, forWriting: true)
        guard !FileManager.default.fileExists(atPath: resolved) else {
            throw .io(path: resolved, operation: "build a journal at (the file exists)", errno: EEXIST)
        }
        let db: Connection
        do {
            db = try Connection(path: resolved, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
        } catch {
            throw JournalError(error, path: resolved)
        }
        try Migrator.migrate(db, from: 0, through: schemaVersion, path: resolved)
        do {
            try db.execute("BEGIN IMMEDIATE")
            // The rows the migrations themselves write (identity, sequence) come from the copy.
            let tables = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            var existing: Set<String> = []
            while try tables.step() { existing.insert(tables.text(0) ?? "") }
            for table in JournalTable.all where existing.contains(table.name) {
                try db.execute("DELETE FROM \(table.name)")
            }
        } catch {
            throw JournalError(error, path: resolved)
        }
        self.path = resolved
        self.source = source
        self.db = db
    }

    /// Adds one row, given as its image, to `table`.
    ///
    /// - Throws: ``JournalError/corrupt(path:detail:)`` (naming the source) for a table the
    ///   journal does not have, an image that does not decode or does not fit the table, or a
    ///   row that breaks the table's constraints (a duplicate key).
    public func insert(_ image: [UInt8], into table: String) throws(JournalError) {
        let insert = try preparedInsert(into: table)
        let values: [JournalRowImage.Value]
        do {
            values = try JournalRowImage.values(of: image)
        } catch {
            throw .corrupt(path: source, detail: "a row of \(table) does not decode: \(error.detail)")
        }
        guard values.count == insert.columns else {
            throw .corrupt(path: source, detail: "a row of \(table) has \(values.count) values; the table has \(insert.columns) columns")
        }
        do {
            for (index, value) in values.enumerated() {
                let position = Int32(index + 1)
                switch value {
                case .null: try insert.statement.bind(nil as Int?, at: position)
                case .integer(let number): try insert.statement.bind(number, at: position)
                case .real(let number): try insert.statement.bind(number, at: position)
                case .text(let bytes): try insert.statement.bind(utf8: bytes, at: position)
                case .blob(let bytes): try insert.statement.bind(blob: bytes, at: position)
                }
            }
            try insert.statement.run()
        } catch {
            throw .corrupt(path: source, detail: "a row of \(table) does not fit: \(error.message)")
        }
    }

    private func preparedInsert(into table: String) throws(JournalError) -> PreparedInsert {
        if let prepared = inserts[table] { return prepared }
        guard JournalTable.named(table) != nil else {
            throw .corrupt(path: source, detail: "it has rows of '\(table)', which is not a table of a journal")
        }
        do {
            let columns = try db.prepare("SELECT * FROM \(table)")
            let count = Int(sqlite3_column_count(columns.handle))
            let placeholders = Array(repeating: "?", count: count).joined(separator: ", ")
            let prepared = PreparedInsert(statement: try db.prepare("INSERT INTO \(table) VALUES (\(placeholders))"), columns: count)
            inserts[table] = prepared
            return prepared
        } catch {
            throw .corrupt(path: source, detail: "it has rows of '\(table)', which a journal of its version does not have")
        }
    }

    /// Ends the journal at `seq` (every record up to it is in the copy, none after),
    /// commits and migrates it to the current schema. The file is complete when this
    /// returns (and closed when the rebuilder goes away).
    ///
    /// - Throws: ``JournalError`` when the copy lacks the journal's identity or sequence,
    ///   or the file cannot be written.
    public func finish(settledThrough seq: Int) throws(JournalError) {
        guard try count(of: "j_sequence") == 1 else { throw .corrupt(path: source, detail: "it has no journal sequence") }
        // Rows shipped before the journal was pruned stay in the copy's source (a fleet
        // keeps its history); the copy is the journal as it is now, from its latest prune.
        do {
            if let through = try db.integer("SELECT max(through_seq) FROM j_prunes") {
                try RecordRemoval.delete(db, through: through)
            }
        } catch {
            throw JournalError(error, path: path)
        }
        try execute("COMMIT")
        let version = (try? db.integer("PRAGMA user_version")) ?? nil ?? 0
        try Migrator.migrate(db, from: version, path: path)
        guard try count(of: "j_journal") == 1 else { throw .corrupt(path: source, detail: "it has no journal identity") }
        try execute("UPDATE j_sequence SET next_seq = \(seq + 1), settled_seq = \(seq + 1)")
    }

    private func count(of table: String) throws(JournalError) -> Int {
        do {
            return try db.integer("SELECT count(*) FROM \(table)") ?? 0
        } catch {
            throw JournalError(error, path: path)
        }
    }

    private func execute(_ sql: String) throws(JournalError) {
        do {
            try db.execute(sql)
        } catch {
            throw JournalError(error, path: path)
        }
    }
}

/// An insert statement kept for one table.
private final class PreparedInsert {
    let statement: Statement
    let columns: Int

    init(statement: consuming Statement, columns: Int) {
        self.statement = statement
        self.columns = columns
    }
}
