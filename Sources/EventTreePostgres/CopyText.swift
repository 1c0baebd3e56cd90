#if PostgreSQL
import EventTreeJournal
import PostgresNIO

/// Journal rows as PostgreSQL's `COPY … FROM STDIN (FORMAT text)` lines: tab-separated,
/// `\N` for NULL, backslash escapes for backslash, tab, line feed and carriage return.
enum CopyText {
    /// Appends `row` (its first `columns` columns) after the journal id, as one line.
    static func append(_ row: JournalRow, columns: Int, journalID: String, to buffer: inout ByteBuffer) {
        buffer.writeString(journalID)
        for column in 0..<columns {
            buffer.writeInteger(UInt8(ascii: "\t"))
            guard let bytes = row.bytes(column) else {
                buffer.writeStaticString("\\N")
                continue
            }
            appendEscaped(bytes, to: &buffer)
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// Appends a `journal_rows` line: the journal id, the table, the seq (`\N` for none) and
    /// the image as `bytea` in hex.
    static func appendImage(_ image: [UInt8], seq: Int?, table: String, journalID: String, to buffer: inout ByteBuffer) {
        buffer.writeString(journalID)
        buffer.writeInteger(UInt8(ascii: "\t"))
        buffer.writeString(table)
        buffer.writeInteger(UInt8(ascii: "\t"))
        if let seq { buffer.writeString(String(seq)) } else { buffer.writeStaticString("\\N") }
        // "\x" introduces bytea's hex format; COPY's text format doubles the backslash.
        buffer.writeStaticString("\t\\\\x")
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            for byte in image {
                buffer.writeInteger(digits[Int(byte >> 4)])
                buffer.writeInteger(digits[Int(byte & 0x0F)])
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A value's text, escaped. Text that is not UTF-8, or holds NUL (which PostgreSQL text
    /// cannot), is repaired with U+FFFD first, so that one odd value never blocks a ship.
    static func appendEscaped(_ bytes: [UInt8], to buffer: inout ByteBuffer) {
        var bytes = bytes
        if bytes.contains(where: { $0 >= 0x80 || $0 == 0 }) {
            bytes = Array(String(decoding: bytes, as: UTF8.self).replacingNUL.utf8)
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }
}

extension String {
    fileprivate var replacingNUL: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }
}
#endif
