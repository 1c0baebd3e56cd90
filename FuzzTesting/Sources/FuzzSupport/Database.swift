import CFuzzSupport
import Foundation

/// A value the mutator reads from a journal or writes into it.
public enum SQLValue: Hashable, Sendable {
    case integer(Int)
    case real(Double)
    /// Text as raw bytes: it need not be UTF-8.
    case text([UInt8])
    case blob([UInt8])
    case null

    /// Text from a Swift string.
    static func text(_ string: String) -> SQLValue { .text(Array(string.utf8)) }
}

/// A read-write connection to a copy of a journal, through the plain C API, as another
/// program altering the file would use it. Failures are not errors here: a statement the
/// mutation makes impossible (a broken constraint) simply changes nothing.
final class Database {
    private let handle: OpaquePointer

    /// Opens an existing file; `nil` when SQLite cannot.
    init?(path: String) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            return nil
        }
        self.handle = handle
    }

    deinit {
        sqlite3_close(handle)
    }

    /// Rows changed by INSERT, UPDATE and DELETE statements so far.
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// Statements ``execute(_:_:)`` ran that failed. A failed one may have changed rows
    /// that ``totalChanges`` does not count: SQLite keeps no statement journal for an
    /// `UPDATE OR IGNORE`, so when a later row fails it otherwise (a datatype mismatch: an
    /// overflowing product set as a rowid) the statement stops with the rows before it
    /// changed, and counts none of them.
    private(set) var failedStatements = 0

    /// Runs one statement; whether it succeeded.
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue] = []) -> Bool {
        var succeeded = false
        query(sql, values) { _ in } completed: { succeeded = $0 }
        if !succeeded { failedStatements += 1 }
        return succeeded
    }

    /// The rows of a query (empty when it fails).
    func rows(_ sql: String, _ values: [SQLValue] = []) -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        query(sql, values) { statement in
            rows.append((0..<sqlite3_column_count(statement)).map { Self.value(statement, $0) })
        } completed: { _ in }
        return rows
    }

    /// The first column of the first row, as an integer.
    func integer(_ sql: String, _ values: [SQLValue] = []) -> Int? {
        if case .integer(let value) = rows(sql, values).first?.first { return value }
        return nil
    }

    private func query(
        _ sql: String, _ values: [SQLValue], _ row: (OpaquePointer) -> Void, completed: (Bool) -> Void
    ) {
        if Self.isTracing && !sql.hasPrefix("SELECT") { Self.trace(sql, values) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            return completed(false)
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() { Self.bind(value, to: statement, at: Int32(index + 1)) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return completed(true)
            default: return completed(false)
            }
        }
    }

    private static func bind(_ value: SQLValue, to statement: OpaquePointer, at index: Int32) {
        switch value {
        case .integer(let value): sqlite3_bind_int64(statement, index, Int64(value))
        case .real(let value): sqlite3_bind_double(statement, index, value)
        case .text(let bytes):
            bytes.withUnsafeBufferPointer { buffer in
                _ = buffer.baseAddress.map { base in
                    base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                        sqlite3_bind_text(statement, index, text, Int32(buffer.count), fuzz_sqlite_transient())
                    }
                } ?? sqlite3_bind_text(statement, index, "", 0, fuzz_sqlite_transient())
            }
        case .blob(let bytes):
            guard !bytes.isEmpty else { return _ = sqlite3_bind_zeroblob(statement, index, 0) }
            bytes.withUnsafeBytes { buffer in
                _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), fuzz_sqlite_transient())
            }
        case .null: sqlite3_bind_null(statement, index)
        }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_NULL: return .null
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let text = sqlite3_column_text(statement, column) else { return .text([]) }
            return .text(Array(UnsafeBufferPointer(start: text, count: count)))
        default:
            let pointer = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        }
    }

    /// Whether to print every statement that changes the journal (`FUZZ_TRACE=1`), to turn
    /// a crashing input into a reproducer.
    static let isTracing = getenv("FUZZ_TRACE") != nil

    private static func trace(_ sql: String, _ values: [SQLValue]) {
        let shown = values.map { value in
            switch value {
            case .integer(let number): String(number)
            case .real(let number): String(number)
            case .text(let bytes) where bytes.count > 80: "text of \(bytes.count) bytes"
            case .text(let bytes): "'" + String(decoding: bytes, as: UTF8.self) + "' (x'\(hex(bytes))')"
            case .blob(let bytes): "x'\(hex(bytes.prefix(80)))'\(bytes.count > 80 ? "… (\(bytes.count) bytes)" : "")"
            case .null: "NULL"
            }
        }
        FileHandle.standardError.write(Data("SQL: \(sql) -- \(shown.joined(separator: ", "))\n".utf8))
    }

    private static func hex<C: Collection<UInt8>>(_ bytes: C) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
