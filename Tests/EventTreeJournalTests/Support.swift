import CEventTreeSQLite
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation

struct Ping: Event, Equatable { var n = 1 }
struct Pong: Event, Equatable {}
struct UserName: EventRequest { typealias Answer = String }
struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }

/// Reads a view (or any query) as lines of `|`-separated values, as `sqlite3` prints them.
func lines(_ path: String, _ sql: String) throws -> [String] {
    let reader = try JournalReader(path: path)
    return try reader.rows(sql).map { $0.map(\.description).joined(separator: "|") }
}

/// Rows of `sql` read through the plain C API (read-only), as another program would: for
/// journals the reader refuses, such as older versions.
func foreignLines(_ path: String, _ sql: String) -> [String] {
    var db: OpaquePointer?
    defer { sqlite3_close(db) }
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return [] }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
    var rows: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        rows.append((0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }.joined(separator: "|"))
    }
    return rows
}

/// The bytes of a file, to prove that reading left it unchanged.
func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Holds a node the way an app object would, so that a test can let go of it from a handler.
final class Owner: @unchecked Sendable {
    private let lock = NSLock()
    private var held: EventNode?
    init(_ node: EventNode) { held = node }
    func letGo() { lock.withLock { held = nil } }
    var node: EventNode? { lock.withLock { held } }
}
