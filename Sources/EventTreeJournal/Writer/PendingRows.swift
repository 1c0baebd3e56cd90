/// Rows of one table waiting to be inserted several to a statement: each statement SQLite
/// runs costs it a cursor to open and position, a halt and a reset, about as much as a small
/// row's insert; one statement of ``rowsPerStatement`` rows pays that once.
///
/// Used by the writer thread only, inside its transaction: ``flush()`` before the commit.
final class PendingRows {
    /// One value of a row. Trivially copyable (a text's bytes wait in ``bytes``), so that
    /// emptying the rows after their insert destroys nothing value by value.
    private enum Value {
        case integer(Int)
        case null
        /// The bytes `start..<end` of ``bytes``.
        case text(start: Int, end: Int)
    }

    /// How many rows one full statement inserts: the statement's own cost is spread over
    /// its rows (Benchmarks/README.md has the figures).
    static let rowsPerStatement = 64

    private let columns: Int
    private let many: Statement
    private let one: Statement
    /// The rows waiting, flattened. (Unchecked: only the writer's thread touches them.)
    @exclusivity(unchecked) private var values: [Value] = []
    /// The UTF-8 bytes of their texts, one after the other: bound where they are (SQLite
    /// copies a text it is given to own, a malloc and a copy per text), since nothing is
    /// written here between binding the rows and running their statement.
    private let bytes = ByteBuffer(capacity: 1_024)

    /// Prepares the statements that insert into `table`'s `columns`, in that order.
    init(into table: String, columns: [String], db: borrowing Connection) throws(SQLiteError) {
        self.columns = columns.count
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        many = try db.prepare(insert + Array(repeating: row, count: Self.rowsPerStatement).joined(separator: ", "))
        one = try db.prepare(insert + row)
        values.reserveCapacity(Self.rowsPerStatement * columns.count)
    }

    /// Adds the next value of the row being made (the columns in order): an integer.
    func append(_ value: Int) {
        values.append(.integer(value))
    }

    /// Adds the next value of the row being made: an integer, or NULL for `nil`.
    func append(_ value: Int?) {
        values.append(value.map(Value.integer) ?? .null)
    }

    /// Adds the next value of the row being made: text, as its UTF-8 bytes.
    func append(text: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        bytes.append(UnsafeRawBufferPointer(text))
        values.append(.text(start: start, end: bytes.count))
    }

    /// Ends the row being made; a full statement's worth of rows is inserted at once.
    func endRow() throws(SQLiteError) {
        assert(values.count % columns == 0, "a row of \(values.count % columns) values; the table has \(columns) columns")
        if values.count == Self.rowsPerStatement * columns { try flush() }
    }

    /// Inserts every row waiting.
    func flush() throws(SQLiteError) {
        defer { discard() }
        var start = 0
        if values.count == Self.rowsPerStatement * columns {
            // Every parameter is bound before each run: the bindings need no clearing.
            try bind(values.indices, to: many)
            try many.runKeepingBindings()
            start = values.count
        }
        while start < values.count {
            try bind(start..<start + columns, to: one)
            try one.runKeepingBindings()
            start += columns
        }
    }

    /// Forgets the rows waiting (their transaction is rolled back).
    func discard() {
        values.removeAll(keepingCapacity: true)
        // (Unless a large text made them grow: see `ByteBuffer.keptCapacity`.)
        bytes.empty(keepingAtMost: ByteBuffer.keptCapacity)
    }

    /// The bytes kept for texts.
    var textCapacity: Int { bytes.capacity }

    /// Binds the values at `positions` to `statement`'s parameters, in order.
    private func bind(_ positions: Range<Int>, to statement: borrowing Statement) throws(SQLiteError) {
        var parameter: Int32 = 1
        for index in positions {
            switch values[index] {
            case .integer(let number): try statement.bind(number, at: parameter)
            case .null: try statement.bind(nil as Int?, at: parameter)
            case .text(let start, let end):
                try statement.bind(inPlaceUTF8: UnsafeBufferPointer(rebasing: bytes.bytes[start..<end]), at: parameter)
            }
            parameter += 1
        }
    }
}
