#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A text table too long to hold in memory: each row is shown and measured as it comes,
/// kept in a temporary file, and written aligned once every width is known, as
/// ``Table/rendered(as:color:minimumWidths:)`` aligns a table held at once.
final class TableSpool {
    private let columns: [String]
    private var widths: [Int]
    /// Rows appended so far.
    private(set) var count = 0
    private let file: FileHandle
    private var pending: [UInt8] = []
    /// Between cells and rows in the file: shown cells hold no control character.
    private static let cellSeparator: UInt8 = 0x1F
    private static let rowSeparator: UInt8 = 0x0A

    /// An empty table with `columns`, spooled in the temporary directory: in a file only this
    /// user may read, removed from the folder as soon as it is open (so that nothing is left
    /// behind, however the command ends).
    init(columns: [String]) throws {
        self.columns = columns
        widths = columns.map(\.count)
        let folder = FileManager.default.temporaryDirectory.path
        let path = (folder as NSString).appendingPathComponent("eventtree-table-\(UUID().uuidString)")
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(message: "cannot create a temporary file in \(folder): \(String(cString: strerror(errno))); "
                + "set TMPDIR to a folder with room")
        }
        unlink(path)
        file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Appends a row (one cell per column).
    func append(_ row: [Table.Cell]) throws {
        let cells = Table.shown(row)
        for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        for (column, cell) in cells.enumerated() {
            if column > 0 { pending.append(Self.cellSeparator) }
            pending.append(contentsOf: cell.utf8)
        }
        pending.append(Self.rowSeparator)
        count += 1
        if pending.count >= 1 << 16 { try spill() }
    }

    /// Writes the table (header, in bold with `color`, then the rows in order), each line
    /// after `indent`.
    func write(to output: ChunkedOutput, indent: String = "", color: Bool = false) throws {
        try spill()
        try file.seek(toOffset: 0)
        let header = Table.line(columns, widths: widths)
        output.write(indent + (color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n")
        var rest: [UInt8] = []
        while let chunk = try file.read(upToCount: 1 << 16), !chunk.isEmpty {
            rest.append(contentsOf: chunk)
            var start = rest.startIndex
            while let end = rest[start...].firstIndex(of: Self.rowSeparator) {
                let cells = rest[start..<end].split(separator: Self.cellSeparator, omittingEmptySubsequences: false)
                    .map { String(decoding: $0, as: UTF8.self) }
                output.write(indent + Table.line(cells, widths: widths) + "\n")
                start = end + 1
            }
            rest.removeSubrange(..<start)
        }
    }

    private func spill() throws {
        guard !pending.isEmpty else { return }
        do {
            try file.write(contentsOf: pending)
        } catch {
            throw CommandFailure(message: "cannot write a temporary file in \(FileManager.default.temporaryDirectory.path): "
                + "\(error.localizedDescription); set TMPDIR to a folder with room")
        }
        pending.removeAll(keepingCapacity: true)
    }
}
