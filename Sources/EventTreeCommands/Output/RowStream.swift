/// Rows written as they come in a machine format (`json`, `jsonl`, `csv`), exactly as
/// ``Table/rendered(as:color:minimumWidths:)`` renders the same rows at once, so that a
/// command's output need not be held in memory to be printed.
struct RowStream {
    private let format: OutputFormat
    private let columns: [String]
    private let output: ChunkedOutput
    private var rows = 0

    /// A stream of rows with `columns` in `format` (not `table`), to `output`.
    init(columns: [String], format: OutputFormat, to output: ChunkedOutput) {
        precondition(format != .table, "a text table is aligned, so not streamed: use TableSpool")
        self.format = format
        self.columns = columns
        self.output = output
        if format == .csv { output.write(Table.csvLine(columns)) }
    }

    /// Appends a row of cells (as JSON: an object of the columns).
    mutating func append(_ row: [Table.Cell]) {
        switch format {
        case .csv: output.write(Table.csvLine(row.map(\.plain)))
        default: append(json: Table.object(columns: columns, row))
        }
    }

    /// Appends a value already rendered as compact JSON (json and jsonl only).
    mutating func append(json text: String) {
        switch format {
        case .jsonl: output.write(text + "\n")
        default: output.write((rows == 0 ? "[" : ",\n ") + text)
        }
        rows += 1
    }

    /// Ends the output (a JSON array's closing bracket).
    func finish() {
        if format == .json { output.write(rows == 0 ? "[]\n" : "]\n") }
        output.flush()
    }
}
