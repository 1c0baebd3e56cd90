/// Recorded text (type names, node names, handler labels, error messages: all written by
/// app code and user data) made inert for a terminal or a diagram: every character that
/// could move the cursor, start an escape sequence, add a line or reorder what is shown is
/// written as a visible escape, and a value can be cut to a bounded length.
///
/// Escapes: `\e` (ESC), `\n`, `\r`, `\t`, and `\u{7F}`-style for the other C0 and C1
/// controls, DEL, the line and paragraph separators and the bidirectional marks, embeddings,
/// overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the
/// noncharacters U+FFFE and U+FFFF.
/// Backslashes are left as they are. Machine formats (JSON, JSON Lines, CSV, the HTML
/// report's data) keep the full, unescaped value.
package enum VisibleText {
    /// The most Unicode scalars a value shows where others line up with it or around it (a
    /// padded table column, a node's name in a tree, a line of a diagram's label): wide
    /// enough for the verdict sentences `replay` writes about the demo, narrow enough that
    /// one huge value cannot make every row as wide.
    package static let limit = 200

    /// The most Unicode scalars the last part of a line shows (a table's last column, a
    /// sentence): nothing is padded to it, so it may list many handlers, but one value of
    /// megabytes still shows as a line.
    package static let lineLimit = 2_000

    /// `text` with its control and reordering characters escaped, cut to `limit` scalars
    /// (the last one then `…`) when it is longer. An escape is never cut in two.
    ///
    /// - Parameters:
    ///   - text: The recorded text.
    ///   - limit: The most Unicode scalars of the result, `…` included; `nil` for no limit.
    /// - Returns: Text that prints as what it says.
    package static func shown(_ text: String, limit: Int? = VisibleText.limit) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        // The length of the result up to the end of the last piece that fits before a `…`.
        var fitting = 0
        for scalar in text.unicodeScalars {
            if let escape = escape(scalar) {
                result.append(contentsOf: escape.unicodeScalars)
                count += escape.unicodeScalars.count
            } else {
                result.append(scalar)
                count += 1
            }
            guard let limit else { continue }
            if count <= limit - 1 { fitting = count }
            if count > limit {
                return String(String.UnicodeScalarView(result.prefix(fitting))) + "…"
            }
        }
        return String(result)
    }

    /// The escape that shows `scalar`, or `nil` when it shows as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x1B: "\\e"
        case 0x0A: "\\n"
        case 0x0D: "\\r"
        case 0x09: "\\t"
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFFFE, 0xFFFF:
            "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: nil
        }
    }
}
