/// A JSON value whose object fields keep their order, for stable, documented output.
package indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// `nil` becomes `null`.
    package init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    /// `nil` becomes `null`.
    package init(_ value: Int?) { self = value.map(JSONValue.integer) ?? .null }

    /// Compact JSON text.
    package var text: String {
        switch self {
        case .string(let value): JSON.quoted(value)
        case .integer(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): "{" + fields.map { JSON.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text == rhs.text }
}

extension Array where Element == JSONValue {
    /// The values as `json` (one array) or `jsonl` (one per line).
    func rendered(as format: OutputFormat) -> String {
        format == .jsonl ? map { $0.text + "\n" }.joined() : "[" + map(\.text).joined(separator: ",\n ") + "]\n"
    }
}
