/// Encodes an event to compact JSON text for the journal's `payload` column.
///
/// Foundation's `JSONEncoder` costs about 12,000 instructions for a one-field event; the
/// writer encodes every raised event, so this small encoder (a tree of containers, then one
/// pass to text) does the job at a fraction of that. Keys are sorted (as `JSONEncoder`'s
/// `.sortedKeys` does), so that a dictionary is written the same way every run. Non-finite
/// floats are refused, like `JSONEncoder`'s default.
package enum PayloadEncoder {
    /// The JSON text of `value`.
    package static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = TreeEncoder(codingPath: [])
        try value.encode(to: encoder)
        var text = ""
        text.reserveCapacity(64)
        encoder.node.write(to: &text)
        return text
    }
}

/// A JSON value under construction; containers are classes so that their encoding
/// containers can keep appending to them.
enum JSONNode {
    case literal(String)
    case object(JSONObject)
    case array(JSONArray)
    case empty

    func write(to text: inout String) {
        switch self {
        case .literal(let literal): text += literal
        case .empty: text += "{}"
        case .object(let object):
            text += "{"
            // Sorted keys: a dictionary's order varies between runs; the journal's should not.
            let fields = object.fields.count > 1 ? object.fields.sorted { $0.key < $1.key } : object.fields
            for (index, field) in fields.enumerated() {
                if index > 0 { text += "," }
                JSONText.appendQuoted(field.key, to: &text)
                text += ":"
                field.value.write(to: &text)
            }
            text += "}"
        case .array(let array):
            text += "["
            for (index, element) in array.elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        }
    }
}

final class JSONObject {
    var fields: [(key: String, value: JSONNode)] = []
}

final class JSONArray {
    var elements: [JSONNode] = []
}

/// JSON text helpers shared by everything in this package that writes JSON by hand.
package enum JSONText {
    /// Appends `string` as a JSON string literal.
    package static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `string` as a JSON string literal.
    package static func quoted(_ string: String) -> String {
        var text = ""
        appendQuoted(string, to: &text)
        return text
    }
}

/// The `Encoder` that builds a ``JSONNode``.
final class TreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node = JSONNode.empty

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: JSONObject
        if case .object(let existing) = node {
            object = existing
        } else {
            object = JSONObject()
            node = .object(object)
        }
        return KeyedEncodingContainer(Keyed<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: JSONArray
        if case .array(let existing) = node {
            array = existing
        } else {
            array = JSONArray()
            node = .array(array)
        }
        return Unkeyed(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    /// The node for one value: a literal for the primitives, a subtree otherwise.
    static func node<T: Encodable>(for value: T, at path: [any CodingKey]) throws -> JSONNode {
        switch value {
        case let value as String: return .literal(JSONText.quoted(value))
        case let value as Int: return .literal(String(value))
        case let value as Bool: return .literal(value ? "true" : "false")
        case let value as Double: return try number(value, at: path)
        case let value as Float: return try number(value, at: path)
        case let value as any FixedWidthInteger: return .literal("\(value)")
        default:
            let encoder = TreeEncoder(codingPath: path)
            try value.encode(to: encoder)
            return encoder.node
        }
    }

    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F, at path: [any CodingKey]) throws -> JSONNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "JSON has no \(value)"))
        }
        var text = String(value)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .literal(text)
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: JSONObject
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) { object.fields.append((key.stringValue, .literal("null"))) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            object.fields.append((key.stringValue, try TreeEncoder.node(for: value, at: codingPath + [key])))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let nested = JSONObject()
            object.fields.append((key.stringValue, .object(nested)))
            return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, codingPath: codingPath + [key]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = JSONArray()
            object.fields.append((key.stringValue, .array(nested)))
            return Unkeyed(array: nested, codingPath: codingPath + [key])
        }
        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let nested = JSONObject()
            object.fields.append((key.stringValue, .object(nested)))
            let encoder = TreeEncoder(codingPath: codingPath + [key])
            encoder.node = .object(nested)
            return encoder
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let array: JSONArray
        let codingPath: [any CodingKey]
        var count: Int { array.elements.count }

        mutating func encodeNil() { array.elements.append(.literal("null")) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            array.elements.append(try TreeEncoder.node(for: value, at: codingPath))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = JSONObject()
            array.elements.append(.object(nested))
            return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = JSONArray()
            array.elements.append(.array(nested))
            return Unkeyed(array: nested, codingPath: codingPath)
        }
        mutating func superEncoder() -> any Encoder {
            let nested = JSONObject()
            array.elements.append(.object(nested))
            let encoder = TreeEncoder(codingPath: codingPath)
            encoder.node = .object(nested)
            return encoder
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: TreeEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() { encoder.node = .literal("null") }
        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.node = try TreeEncoder.node(for: value, at: codingPath)
        }
    }
}
