import EventTreeJournal
import EventTreeReport

/// Rows with named columns: what every command prints, in any ``OutputFormat``.
package struct Table: Sendable, Equatable {
    /// One value of a row.
    package enum Cell: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        case integer(Int)
        case null

        package init(stringLiteral value: String) { self = .text(value) }
        package init(integerLiteral value: Int) { self = .integer(value) }

        /// `nil` becomes NULL.
        package init(_ value: String?) { self = value.map(Cell.text) ?? .null }
        /// `nil` becomes NULL.
        package init(_ value: Int?) { self = value.map(Cell.integer) ?? .null }

        /// The cell as a table or CSV shows it (NULL as empty).
        package var plain: String {
            switch self {
            case .text(let text): text
            case .integer(let value): String(value)
            case .null: ""
            }
        }

        /// The cell as JSON.
        package var json: String {
            switch self {
            case .text(let text): JSON.quoted(text)
            case .integer(let value): String(value)
            case .null: "null"
            }
        }
    }

    /// The column names (JSON field names, CSV header).
    package var columns: [String]
    /// The rows; each has one cell per column.
    package var rows: [[Cell]]

    /// Creates a table.
    package init(columns: [String], rows: [[Cell]] = []) {
        self.columns = columns
        self.rows = rows
    }

    /// The table in `format`, ending with a newline unless it is an empty text table.
    ///
    /// - Parameter minimumWidths: For a text table, the least width of each column: a
    ///   table printed in parts (a followed journal) keeps its columns where they were.
    package func rendered(as format: OutputFormat, color: Bool = false, minimumWidths: [Int] = []) -> String {
        switch format {
        case .table: text(color: color, minimumWidths: minimumWidths)
        case .json: "[" + rows.map { Self.object(columns: columns, $0) }.joined(separator: ",\n ") + "]\n"
        case .jsonl: rows.map { Self.object(columns: columns, $0) + "\n" }.joined()
        case .csv: ([Self.csvLine(columns)] + rows.map { Self.csvLine($0.map(\.plain)) }).joined()
        }
    }

    /// A row as a JSON object of `columns`.
    static func object(columns: [String], _ row: [Cell]) -> String {
        "{" + zip(columns, row).map { JSON.quoted($0) + ":" + $1.json }.joined(separator: ",") + "}"
    }

    /// A CSV line of `values`, newline included.
    static func csvLine(_ values: [String]) -> String {
        values.map(csv).joined(separator: ",") + "\n"
    }

    /// A row's cells as a text table shows them (see ``VisibleText``).
    static func shown(_ row: [Cell]) -> [String] {
        row.indices.map { VisibleText.shown(row[$0].plain, limit: $0 == row.count - 1 ? VisibleText.lineLimit : VisibleText.limit) }
    }

    /// A text table's line: each value but the last padded to its column's width.
    static func line(_ values: [String], widths: [Int]) -> String {
        zip(values, widths).enumerated().map { index, pair in
            index == values.count - 1 ? pair.0 : pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }

    /// An aligned table: each cell shown as ``VisibleText`` shows it (control characters
    /// as escapes; at most ``VisibleText/limit`` characters in a padded column, and
    /// ``VisibleText/lineLimit`` in the last), so that recorded text can neither drive the
    /// terminal nor make every row as wide as its longest value.
    private func text(color: Bool, minimumWidths: [Int]) -> String {
        let cells = rows.map(Self.shown)
        let widths = columns.indices.map { column in
            max(([columns[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0,
                minimumWidths.indices.contains(column) ? minimumWidths[column] : 0)
        }
        let header = Self.line(columns, widths: widths)
        var output = (color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n"
        for row in cells { output += Self.line(row, widths: widths) + "\n" }
        return output
    }

    /// A CSV field: quoted when it holds a separator, a quote or a line break (RFC 4180),
    /// and neutralised when a spreadsheet would read it as a formula: a value that begins
    /// with `=`, `+`, `-`, `@`, a tab or a carriage return, other than a plain number such
    /// as `-3` or `-1.5`, gets a `'` in front and is quoted (OWASP's advice for CSV injection).
    private static func csv(_ value: String) -> String {
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), !isNumber(value) {
            return quoted("'" + value)
        }
        // By scalars: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return quoted(value)
    }

    private static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Whether `value` is a decimal number a spreadsheet reads as one and nothing else:
    /// an optional sign, digits, an optional fraction and an optional exponent.
    private static func isNumber(_ value: String) -> Bool {
        var rest = value.utf8[...]
        func digits() -> Int {
            let count = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            rest = rest.dropFirst(count)
            return count
        }
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { rest = rest.dropFirst() }
        guard digits() > 0 else { return false }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard digits() > 0 else { return false }
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }
}

/// The JSON this tool writes by hand, so that fields keep their order.
enum JSON {
    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String { JSONText.quoted(text) }
}
