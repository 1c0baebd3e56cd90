import CEventTreeSQLite

/// The rows of one journal table, one at a time, each as an image that
/// ``JournalRebuilder/insert(_:into:)`` takes back: what a copier ships elsewhere.
///
/// ```swift
/// let rows = try reader.tableRows(of: table, seqs: 1...settled)
/// while rows.hasRow {
///     send(table.name, rows.seq, rows.image)
///     try rows.advance()
/// }
/// ```
public final class JournalTableRows {
    private let cursor: JournalCursor

    init(cursor: JournalCursor) {
        self.cursor = cursor
    }

    /// Whether the rows stand on one.
    public var hasRow: Bool { cursor.hasRow }

    /// The row's seq (the value of its table's ``JournalTable/seqColumn``), or `nil` for a
    /// table taken whole.
    public var seq: Int? { cursor.row.optionalInt(0) }

    /// The row's image: every value as SQLite stored it.
    public var image: [UInt8] {
        var bytes: [UInt8] = []
        JournalRowImage.append(cursor.row.statement, skipping: 1, to: &bytes)
        return bytes
    }

    /// Moves to the next row.
    ///
    /// - Returns: Whether there is one.
    @discardableResult
    public func advance() throws(JournalError) -> Bool {
        try cursor.advance()
    }
}

extension JournalReader {
    /// The rows of `table`, in seq order: for a table with a seq column, those whose seq
    /// lies in `seqs` (all of them when `nil`); a table taken whole ignores `seqs`.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read.
    public func tableRows(of table: JournalTable, seqs: ClosedRange<Int>? = nil) throws(JournalError) -> JournalTableRows {
        guard let column = table.seqColumn else {
            return JournalTableRows(cursor: try cursor("SELECT NULL, * FROM \(table.name)"))
        }
        guard let seqs else {
            return JournalTableRows(cursor: try cursor("SELECT \(column), * FROM \(table.name) ORDER BY \(column)"))
        }
        return JournalTableRows(cursor: try cursor(
            "SELECT \(column), * FROM \(table.name) WHERE \(column) BETWEEN ? AND ? ORDER BY \(column)",
            [.integer(seqs.lowerBound), .integer(seqs.upperBound)]))
    }
}
