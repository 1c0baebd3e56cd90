import CEventTreeSQLite
import Foundation

/// Checks that a journal's schema is exactly what the embedded migrations create, before
/// anything reads its views or writes its tables: a journal is untrusted input, and SQL
/// stored in it (a view, a trigger) would otherwise run with our queries.
enum SchemaCheck {
    /// One object of a schema: its type, name, table and SQL text.
    struct Object: Equatable {
        let type: String
        let name: String
        let table: String
        let sql: String?
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var expected: [Int: [Object]] = [:]

    /// Throws ``JournalError/altered(path:detail:)`` unless `db`'s schema is exactly the one
    /// the migrations up to `version` create.
    static func verify(_ db: borrowing Connection, version: Int, path: String) throws(JournalError) {
        let found: [Object]
        let wanted: [Object]
        do {
            found = try objects(of: db)
            wanted = try expectedObjects(version: version)
        } catch {
            throw JournalError(error, path: path)
        }
        guard found != wanted else { return }
        let wantedByName = Dictionary(wanted.map { ("\($0.type) \($0.name)", $0) }, uniquingKeysWith: { first, _ in first })
        let foundByName = Dictionary(found.map { ("\($0.type) \($0.name)", $0) }, uniquingKeysWith: { first, _ in first })
        for object in wanted where foundByName["\(object.type) \(object.name)"] != object {
            let detail = foundByName["\(object.type) \(object.name)"] == nil
                ? "\(object.type) \(object.name) is missing from schema version \(version)"
                : "\(object.type) \(object.name) differs from schema version \(version)"
            throw .altered(path: path, detail: detail)
        }
        let extra = found.first { wantedByName["\($0.type) \($0.name)"] == nil }
        throw .altered(path: path, detail: "\(extra.map { "\($0.type) \($0.name)" } ?? "an object") is not part of schema version \(version)")
    }

    private static func objects(of db: borrowing Connection) throws(SQLiteError) -> [Object] {
        let statement = try db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")
        var objects: [Object] = []
        while try statement.step() {
            objects.append(Object(
                type: statement.text(0) ?? "", name: statement.text(1) ?? "", table: statement.text(2) ?? "",
                sql: statement.text(3)))
        }
        return objects
    }

    /// The schema the migrations up to `version` create, built once per version in memory.
    private static func expectedObjects(version: Int) throws(SQLiteError) -> [Object] {
        if let cached = lock.withLock({ expected[version] }) { return cached }
        let db = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY)
        for migration in Migration.all where migration.version <= version { try db.execute(migration.sql) }
        let objects = try objects(of: db)
        lock.withLock { expected[version] = objects }
        return objects
    }
}
