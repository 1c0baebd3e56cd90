#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Turns fuzzer input into a damaged copy of a seed journal.
///
/// The input is a program. Its first byte picks the seed and the kind of damage; the next
/// says how many operations follow. Each works on whole records and values, as SQL run on
/// the copy through the plain C API (what someone editing the file with `sqlite3` could
/// do): set a column of a row to an interesting value, delete a row or a whole table,
/// duplicate a row under another key, swap a column between two rows, shift a column of
/// every row. The schema is never touched, so that the reader gets past its schema check
/// and reads the records. Some inputs then write raw bytes over a page of the file,
/// truncate it, or put garbage in a -wal beside it.
public enum JournalMutator {
    /// What a mutation did, for oracles that depend on it.
    public struct Report: Sendable {
        /// The seed the journal was copied from.
        public let seed: SeedJournal
        /// Rows SQL changed, as SQLite counts them (0 with no failed statement: the records
        /// are exactly the seed's).
        public let changedRows: Int
        /// How many of its statements failed: each may have changed rows `changedRows` does
        /// not count (see `Database.failedStatements`), so a copy is untouched only when
        /// none failed.
        public let failedStatements: Int
        /// Whether bytes were written over the file or a -wal put beside it.
        public let rawDamage: Bool
        /// The program's single update, when it made exactly one change of an integer
        /// column to another integer (see ``JournalMutator/chainedIntegerColumns``).
        public let integerChange: IntegerChange?
    }

    /// One column of one row changed from an integer to another.
    public struct IntegerChange: Sendable, CustomStringConvertible {
        public let table: String
        public let column: String
        public let key: [SQLValue]
        public let old: Int
        public let new: Int

        public var description: String { "\(table).\(column) of row \(key): \(old) -> \(new)" }
    }

    /// Writes a copy of a seed to ``Scratch/journal`` and damages it as `input` says.
    public static func makeJournal(from input: inout FuzzInput) -> Report {
        let header = input.byte()
        let seed = SeedJournals.all[Int(header & 1) % SeedJournals.all.count]
        Scratch.writeJournal(seed.bytes)
        var changedRows = 0
        var failedStatements = 0
        var integerChange: IntegerChange?
        // Mostly SQL; one input in eight also gets raw bytes after it, one in eight only those.
        let mode = (header >> 1) % 8
        if mode != 7, let database = Database(path: Scratch.journal) {
            var program = Program(database: database, input: input)
            program.run()
            input = program.input
            changedRows = database.totalChanges
            failedStatements = database.failedStatements
            integerChange = changedRows == 1 && failedStatements == 0 ? program.integerChanges.first : nil
        }
        if mode >= 6 { damageBytes(&input) }
        return Report(
            seed: seed, changedRows: changedRows, failedStatements: failedStatements, rawDamage: mode >= 6,
            integerChange: integerChange)
    }

    /// Writes raw bytes over a page of the file (its header included), truncates it, or
    /// leaves a -wal of the input's bytes beside it.
    private static func damageBytes(_ input: inout FuzzInput) {
        let pageSize = 4_096
        var bytes = Array(FileManager.default.contents(atPath: Scratch.journal) ?? Data())
        let kind = input.byte() % 4
        if Database.isTracing { FileHandle.standardError.write(Data("raw damage \(kind)\n".utf8)) }
        switch kind {
        case 0:
            // A -wal left by a "writer": the reader copies both and SQLite judges the frames.
            Scratch.writeBeside(suffix: "-wal", input.rest())
        case 1:
            truncate(Scratch.journal, off_t(input.index(below: bytes.count)))
        default:
            let offset = input.index(below: max(1, bytes.count / pageSize)) * pageSize + input.index(below: pageSize)
            for (index, byte) in input.bytes(upTo: 512).enumerated() where offset + index < bytes.count {
                bytes[offset + index] = byte
            }
            Scratch.writeJournal(bytes)
        }
    }

    /// The integer columns that every record's bytes in the hash chain cover, by table:
    /// an integer changed to another in one of them must make `verify` fail. (Not keys,
    /// whose change can turn a record into another valid-looking one; not the summaries
    /// that are deliberately unchained.)
    public static let chainedIntegerColumns: [String: Set<String>] = [
        "j_events": ["session_id", "kind", "origin_id", "mode", "finished_back", "result", "raised_us"],
        "j_call_runs": ["event_id", "last_seq"],
        "j_changes": ["node_id", "change", "parent_id", "position"],
        "j_tree_snapshots": ["session_id"],
        "j_undelivered": ["event_id", "node_id", "phase", "lost_calls"],
        "j_handlers": ["node_id", "channel", "phases", "line", "removed_seq"],
        "j_trouble": ["records"],
    ]
}

/// The tables and columns of the journal's schema, read once from the demo seed.
struct Schema {
    struct Table {
        let name: String
        let columns: [String]
        /// The primary key's columns (every journal table has one).
        let key: [String]
    }

    let tables: [Table]

    static let journal: Schema = {
        _ = SeedJournals.all
        guard let database = Database(path: Scratch.directory + "/seed-demo.eventtree") else {
            fatalError("cannot read the demo seed's schema")
        }
        let names = database.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'j\\_%' ESCAPE '\\' ORDER BY name"
        ).compactMap(\.first?.string)
        return Schema(tables: names.map { name in
            let info = database.rows("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(name)])
            let key = info.filter { ($0[1].int ?? 0) > 0 }.sorted { ($0[1].int ?? 0) < ($1[1].int ?? 0) }
            return Table(name: name, columns: info.compactMap(\.first?.string), key: key.compactMap(\.first?.string))
        })
    }()
}

/// The operations of one input, run on an open copy of the seed.
private struct Program {
    let database: Database
    var input: FuzzInput
    let schema = Schema.journal
    /// Integer-to-integer updates made, in order.
    var integerChanges: [JournalMutator.IntegerChange] = []

    init(database: Database, input: FuzzInput) {
        self.database = database
        self.input = input
    }

    mutating func run() {
        database.execute("BEGIN")
        // How many operations, so that the bytes after them are left for raw damage.
        for _ in 0..<Int(input.byte() % 16) + 1 where !input.isAtEnd {
            let table = input.pick(schema.tables)
            switch input.byte() % 16 {
            case 0...6: update(table)
            case 7, 8: delete(table)
            case 9, 10: duplicate(table)
            case 11, 12: swap(table)
            case 13, 14: shift(table)
            default: database.execute("DELETE FROM \(table.name)")
            }
        }
        database.execute("COMMIT")
    }

    // MARK: Operations

    /// Sets one column of one row to a value.
    mutating func update(_ table: Schema.Table) {
        guard let row = row(of: table) else { return }
        let column = input.index(below: table.columns.count)
        let value = self.value(for: table, column: column, current: row[column])
        let before = database.totalChanges
        set(table, row: row, column: column, to: value)
        if database.totalChanges > before, case .integer(let old) = row[column], case .integer(let new) = value, old != new,
            JournalMutator.chainedIntegerColumns[table.name]?.contains(table.columns[column]) == true {
            integerChanges.append(.init(table: table.name, column: table.columns[column], key: key(of: table, row), old: old, new: new))
        }
    }

    /// Deletes one row.
    mutating func delete(_ table: Schema.Table) {
        guard let row = row(of: table) else { return }
        database.execute("DELETE FROM \(table.name) WHERE \(matchKey(table))", key(of: table, row))
    }

    /// Inserts a copy of a row with one column (usually a key: another seq) changed.
    mutating func duplicate(_ table: Schema.Table) {
        guard var row = row(of: table) else { return }
        let column = input.bool() ? table.columns.firstIndex(of: input.pick(table.key)) ?? 0 : input.index(below: row.count)
        row[column] = value(for: table, column: column, current: row[column])
        let names = table.columns.joined(separator: ", ")
        let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
        database.execute("INSERT OR REPLACE INTO \(table.name) (\(names)) VALUES (\(marks))", row)
    }

    /// Swaps one column's values between two rows (seqs swapped when it is the key).
    mutating func swap(_ table: Schema.Table) {
        guard let first = row(of: table), let second = row(of: table), first != second else { return }
        let column = input.index(below: table.columns.count)
        // Through a value no row has, so that a unique key never holds twice.
        let parked = set(table, row: first, column: column, to: .integer(Int.min + 7))
        set(table, row: second, column: column, to: first[column])
        set(table, row: parked, column: column, to: second[column])
    }

    /// Shifts, negates or scales one column of every row.
    mutating func shift(_ table: Schema.Table) {
        let column = table.columns[input.index(below: table.columns.count)]
        let operation = input.pick(["\(column) + ?", "\(column) - ?", "\(column) * ?", "-\(column)", "?"])
        let arguments: [SQLValue] = operation.contains("?") ? [.integer(input.interestingInt())] : []
        database.execute("UPDATE OR IGNORE \(table.name) SET \(column) = \(operation)", arguments)
    }

    // MARK: Rows and values

    /// One row of `table`, picked by the input (`nil` when the table is empty).
    mutating func row(of table: Schema.Table) -> [SQLValue]? {
        let count = database.integer("SELECT count(*) FROM \(table.name)") ?? 0
        guard count > 0 else { return nil }
        let order = table.key.joined(separator: ", ")
        return database.rows(
            "SELECT * FROM \(table.name) ORDER BY \(order) LIMIT 1 OFFSET ?", [.integer(input.index(below: count))]
        ).first
    }

    func key(of table: Schema.Table, _ row: [SQLValue]) -> [SQLValue] {
        table.key.map { row[table.columns.firstIndex(of: $0)!] }
    }

    func matchKey(_ table: Schema.Table) -> String {
        table.key.map { "\($0) IS ?" }.joined(separator: " AND ")
    }

    /// Sets `column` of `row`; returns the row as it now is.
    @discardableResult
    func set(_ table: Schema.Table, row: [SQLValue], column: Int, to value: SQLValue) -> [SQLValue] {
        database.execute(
            "UPDATE OR IGNORE \(table.name) SET \(table.columns[column]) = ? WHERE \(matchKey(table))",
            [value] + key(of: table, row))
        var changed = row
        changed[column] = value
        return changed
    }

    /// A value for `column`: a number at the edges, a value taken from elsewhere in the
    /// journal (a plausible id or seq), the current value nudged, hostile text, a blob, NULL.
    mutating func value(for table: Schema.Table, column: Int, current: SQLValue) -> SQLValue {
        switch input.byte() % 14 {
        case 0: return .integer(Int(input.byte()) - 8)
        case 1: return .integer(input.pick(FuzzInput.extremeIntegers))
        case 2: return .integer(input.int64())
        case 3, 4: return nudged(current)
        case 5:
            // The same column of another row: an id or seq that exists.
            guard let other = row(of: table) else { return .null }
            return nudged(other[column], by: input.bool() ? 0 : nil)
        case 6:
            // Any column of any row: a link to something of another kind.
            let other = input.pick(schema.tables)
            guard let row = row(of: other) else { return .null }
            return row[input.index(below: row.count)]
        case 7: return .real(input.pick([0.5, -0.0, 1e308, -1e308, 1e11, 9.3e18, -9.3e18, .infinity, -.infinity, .leastNonzeroMagnitude, .nan]))
        case 8: return .text(input.pick(Self.hostileText))
        case 9: return .text(input.bytes(upTo: 64))
        case 10:
            // Large text: a payload, label or path far beyond what a writer produces.
            let unit = input.pick(["x", "{\"a\":", "[", "/", "\u{1F389}", "\\u0000"])
            return .text(String(repeating: unit, count: input.pick([1_000, 20_000, 300_000])))
        case 11: return .blob(input.bytes(upTo: 64))
        case 12: return .blob(Array(repeating: input.byte(), count: input.pick([0, 1, 2, 31, 32, 33, 64, 4_096])))
        default: return .null
        }
    }

    /// `value` changed a little: an integer moved by a small amount (or `delta`), a bit of
    /// a blob or text flipped, one cut short or made longer.
    mutating func nudged(_ value: SQLValue, by delta: Int? = nil) -> SQLValue {
        switch value {
        case .integer(let number): return .integer(number &+ (delta ?? (Int(input.byte() % 9) - 4)))
        case .real(let number): return .real(number * 2 + 1)
        case .text(var bytes), .blob(var bytes):
            let isText = if case .text = value { true } else { false }
            switch input.byte() % 3 {
            case 0 where !bytes.isEmpty: bytes[input.index(below: bytes.count)] ^= 1 << (input.byte() % 8)
            case 1: bytes.removeLast(min(bytes.count, Int(input.byte() % 4) + 1))
            default: bytes.append(contentsOf: input.bytes(upTo: 8))
            }
            return isText ? .text(bytes) : .blob(bytes)
        case .null: return .integer(Int(input.byte()))
        }
    }

    /// Text that has broken readers: numbers as text, paths, JSON fragments, controls.
    static let hostileText: [String] = [
        "", "0", "42", "-1", " 7", "0x10", "1e3", "9223372036854775808", "NaN", "app", "app/tabs", "/", "//", "a//b",
        "..", "%", "_", "\u{0}", "a\u{0}b", "{", "{\"a\":", "[]", "null", "\"", "'", "\\", "\u{FEFF}", "é", "e\u{301}",
        "\u{1F389}", "\u{202E}", "x\ny", "\r\n", "\u{1B}[31m", "SELECT 1", "?", "%s%n", "unencodable",
    ]
}
