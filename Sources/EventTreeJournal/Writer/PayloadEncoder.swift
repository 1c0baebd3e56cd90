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
        String(decoding: try utf8(value), as: UTF8.self)
    }

    /// The JSON text of `value`, as UTF-8 bytes (what the journal binds).
    package static func utf8<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = TreeEncoder(codingPath: [])
        try value.encode(to: encoder)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        encoder.node.write(to: &bytes)
        return bytes
    }
}

/// A JSON value under construction; containers are classes so that their encoding
/// containers can keep appending to them.
enum JSONNode {
    case literal(String)
    case object(JSONObject)
    case array(JSONArray)
    case empty

    func write(to bytes: inout [UInt8]) {
        switch self {
        case .literal(let literal): bytes.append(contentsOf: literal.utf8)
        case .empty: bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            // Sorted keys: a dictionary's order varies between runs; the journal's should not.
            let fields = object.fields.count > 1 ? object.fields.sorted { $0.key < $1.key } : object.fields
            for index in fields.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(fields[index].key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                fields[index].value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let array):
            bytes.append(UInt8(ascii: "["))
            for index in array.elements.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                array.elements[index].write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
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
    /// Appends `string` as a JSON string literal, in UTF-8.
    package static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `string` as a JSON string literal.
    package static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 2)
        appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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

    /// The node for one value: a literal for the primitives, a subtree otherwise. The
    /// common primitives are recognised by comparing metatypes (cheaper than casts).
    static func node<T: Encodable>(for value: T, at path: [any CodingKey]) throws -> JSONNode {
        if T.self == Int.self { return .literal(String(unsafeBitCast(value, to: Int.self))) }
        if T.self == String.self { return .literal(JSONText.quoted(unsafeBitCast(value, to: String.self))) }
        if T.self == Bool.self { return .literal(unsafeBitCast(value, to: Bool.self) ? "true" : "false") }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), at: path) }
        switch value {
        case let value as Float: return try number(value, at: path)
        case let value as any FixedWidthInteger: return .literal("\(value)")
        default:
            let encoder = TreeEncoder(codingPath: path)
            try value.encode(to: encoder)
            return encoder.node
        }
    }

    static func isPrimitive<T>(_ type: T.Type) -> Bool {
        T.self == Int.self || T.self == String.self || T.self == Bool.self || T.self == Double.self
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
            // The path is extended only for values that are containers themselves.
            let path = TreeEncoder.isPrimitive(T.self) ? codingPath : codingPath + [key]
            object.fields.append((key.stringValue, try TreeEncoder.node(for: value, at: path)))
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
