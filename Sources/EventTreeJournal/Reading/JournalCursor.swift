import CEventTreeSQLite

/// Steps through a query's rows one at a time, for merging several ordered streams.
public final class JournalCursor {
    private let statement: Statement
    private let path: String
    /// Whether the cursor stands on a row. (A cursor is used by one thread: no dynamic
    /// exclusivity check on each read.)
    @exclusivity(unchecked) public private(set) var hasRow = false

    init(statement: consuming Statement, path: String) {
        self.statement = statement
        self.path = path
    }

    /// Moves to the next row.
    ///
    /// - Returns: Whether there is one.
    @discardableResult
    public func advance() throws(JournalError) -> Bool {
        do {
            hasRow = try statement.step()
        } catch {
            hasRow = false
            throw JournalError(error, path: path)
        }
        return hasRow
    }

    /// The current row: valid until the next ``advance()``.
    public var row: JournalRow { JournalRow(statement: statement.handle) }
}

extension JournalReader {
    /// Opens a cursor over a query with bound arguments, standing on its first row (if any).
    public func cursor(_ sql: String, _ arguments: [JournalValue] = []) throws(JournalError) -> JournalCursor {
        let statement: Statement
        do {
            statement = try Self.prepare(sql, arguments, in: db)
        } catch {
            throw JournalError(error, path: path)
        }
        let cursor = JournalCursor(statement: statement, path: path)
        try cursor.advance()
        return cursor
    }

    private static func prepare(
        _ sql: String, _ arguments: [JournalValue], in db: borrowing Connection
    ) throws(SQLiteError) -> Statement {
        let statement = try db.prepare(sql)
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            switch argument {
            case .integer(let value): try statement.bind(value, at: position)
            case .real(let value): try statement.bind(value, at: position)
            case .text(let value): try statement.bind(value, at: position)
            case .null: try statement.bind(nil as String?, at: position)
            }
        }
        return statement
    }
}
