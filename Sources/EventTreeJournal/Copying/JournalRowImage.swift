import CEventTreeSQLite

/// A table row as bytes, exactly as SQLite stored each value (integer, real, text, blob or
/// NULL), so that a copy of a journal kept elsewhere rebuilds the same file.
///
/// Layout: the value count (2 bytes), then per value a tag byte — 0 NULL, 1 integer
/// (8 bytes), 2 real (its 8-byte IEEE 754 pattern), 3 text and 4 blob (a 4-byte length,
/// then the bytes) — every number little-endian. A copy comes back as untrusted input:
/// decoding checks every length against what is left.
enum JournalRowImage {
    /// A decoded value, ready to bind.
    enum Value: Equatable {
        case null
        case integer(Int)
        case real(Double)
        case text([UInt8])
        case blob([UInt8])
    }

    /// Appends the image of the current row of `statement`, from column `skipping` on, to `bytes`.
    static func append(_ statement: OpaquePointer, skipping skipped: Int32 = 0, to bytes: inout [UInt8]) {
        let columns = sqlite3_column_count(statement)
        appendInteger(UInt64(columns - skipped), width: 2, to: &bytes)
        for index in skipped..<columns {
            switch sqlite3_column_type(statement, index) {
            case SQLITE_NULL:
                bytes.append(0)
            case SQLITE_INTEGER:
                bytes.append(1)
                appendInteger(UInt64(bitPattern: sqlite3_column_int64(statement, index)), width: 8, to: &bytes)
            case SQLITE_FLOAT:
                bytes.append(2)
                appendInteger(sqlite3_column_double(statement, index).bitPattern, width: 8, to: &bytes)
            case SQLITE_TEXT:
                bytes.append(3)
                // "sqlite3_column_text() ... then sqlite3_column_bytes()": the text form's length.
                let pointer = sqlite3_column_text(statement, index)
                appendBytes(UnsafeRawPointer(pointer), count: Int(sqlite3_column_bytes(statement, index)), to: &bytes)
            default:
                bytes.append(4)
                let pointer = sqlite3_column_blob(statement, index)
                appendBytes(pointer, count: Int(sqlite3_column_bytes(statement, index)), to: &bytes)
            }
        }
    }

    /// The values of an image.
    ///
    /// - Throws: ``ImageError`` naming what does not add up.
    static func values(of image: [UInt8]) throws(ImageError) -> [Value] {
        var reader = Reader(bytes: image)
        let count = Int(try reader.integer(width: 2))
        var values: [Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            guard let tag = reader.byte() else { throw ImageError(detail: "it ends after \(values.count) of its \(count) values") }
            switch tag {
            case 0: values.append(.null)
            case 1: values.append(.integer(Int(Int64(bitPattern: try reader.integer(width: 8)))))
            case 2: values.append(.real(Double(bitPattern: try reader.integer(width: 8))))
            case 3, 4:
                let length = Int(try reader.integer(width: 4))
                guard let content = reader.bytes(length) else {
                    throw ImageError(detail: "value \(values.count + 1) says \(length) bytes, \(reader.left) are left")
                }
                values.append(tag == 3 ? .text(content) : .blob(content))
            default:
                throw ImageError(detail: "value \(values.count + 1) has the unknown tag \(tag)")
            }
        }
        guard reader.left == 0 else { throw ImageError(detail: "\(reader.left) bytes follow its \(count) values") }
        return values
    }

    /// What is wrong with an image.
    struct ImageError: Error {
        let detail: String
    }

    private static func appendInteger(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    private static func appendBytes(_ pointer: UnsafeRawPointer?, count: Int, to bytes: inout [UInt8]) {
        appendInteger(UInt64(count), width: 4, to: &bytes)
        guard let pointer, count > 0 else { return }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Reads an image front to back.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var left: Int { bytes.count - position }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func integer(width: Int) throws(ImageError) -> UInt64 {
            guard left >= width else { throw ImageError(detail: "it ends inside a \(width)-byte number") }
            var value: UInt64 = 0
            for shift in 0..<width { value |= UInt64(bytes[position + shift]) << (8 * UInt64(shift)) }
            position += width
            return value
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count <= left else { return nil }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
    }
}
