/// Rows of one table waiting to be inserted several to a statement: each statement SQLite
/// runs costs it a cursor to open and position, a halt and a reset, about as much as a small
/// row's insert; one statement of ``rowsPerStatement`` rows pays that once.
///
/// Used by the writer thread only, inside its transaction: ``flush()`` before the commit.
final class PendingRows {
    /// One value of a row.
    enum Value {
        case integer(Int)
        case null
        case text([UInt8])

        init(_ value: Int?) {
            self = value.map(Value.integer) ?? .null
        }
    }

    /// How many rows one full statement inserts.
    static let rowsPerStatement = 16

    private let columns: Int
    private let many: Statement
    private let one: Statement
    /// The rows waiting, flattened.
    @exclusivity(unchecked) private var values: [Value] = []

    /// Prepares the statements that insert into `table`'s `columns`, in that order.
    init(into table: String, columns: [String], db: borrowing Connection) throws(SQLiteError) {
        self.columns = columns.count
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        many = try db.prepare(insert + Array(repeating: row, count: Self.rowsPerStatement).joined(separator: ", "))
        one = try db.prepare(insert + row)
        values.reserveCapacity(Self.rowsPerStatement * columns.count)
    }

    /// Adds the next value of the row being made (the columns in order).
    func append(_ value: Value) {
        values.append(value)
    }

    /// Ends the row being made; a full statement's worth of rows is inserted at once.
    func endRow() throws(SQLiteError) {
        assert(values.count % columns == 0, "a row of \(values.count % columns) values; the table has \(columns) columns")
        if values.count == Self.rowsPerStatement * columns { try flush() }
    }

    /// Inserts every row waiting.
    func flush() throws(SQLiteError) {
        defer { values.removeAll(keepingCapacity: true) }
        var start = 0
        if values.count == Self.rowsPerStatement * columns {
            try Self.bind(values[...], to: many)
            try many.run()
            start = values.count
        }
        while start < values.count {
            try Self.bind(values[start..<start + columns], to: one)
            try one.run()
            start += columns
        }
    }

    /// Forgets the rows waiting (their transaction is rolled back).
    func discard() {
        values.removeAll(keepingCapacity: true)
    }

    private static func bind(_ values: ArraySlice<Value>, to statement: borrowing Statement) throws(SQLiteError) {
        var position: Int32 = 1
        for value in values {
            switch value {
            case .integer(let number): try statement.bind(number, at: position)
            case .null: try statement.bind(nil as Int?, at: position)
            case .text(let bytes): try statement.bind(utf8: bytes, at: position)
            }
            position += 1
        }
    }
}
