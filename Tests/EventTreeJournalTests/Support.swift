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
