import Foundation

/// Encodes an event to compact JSON text for the journal's `payload` column.
///
/// The writer encodes every raised event, which Foundation's `JSONEncoder` does many times
/// more slowly than this small encoder (a tree of containers, then one pass to text;
/// Benchmarks/README.md has the figures). It writes what `JSONEncoder` writes
/// with its default strategies, so that a default `JSONDecoder` reads every payload back:
/// `Data` as a base64 string, `URL` as its absolute string, `Date` as seconds since the 2001
/// reference date, `Decimal` as a number, `superEncoder()` under the key `super`. Keys are
/// sorted by their UTF-8 bytes (as `JSONEncoder`'s `.sortedKeys` does), so that a dictionary
/// is written the same way every run; unlike `JSONEncoder`, `/` is not escaped (see
/// ``JSONText``).
///
/// JSON has no NaN or infinity: a non-finite `Float`, `Double` or `Decimal` anywhere in a
/// value makes encoding throw `EncodingError.invalidValue`, with the value's coding path, as
/// `JSONEncoder` does by default (it writes a NaN `Decimal` as `NaN`, which no JSON reader
/// accepts; this encoder refuses it too). The journal writer then stores the event with
/// `{"unencodable": "<the error's description>"}` as its payload.
package enum PayloadEncoder {
    /// The JSON text of `value`.
    package static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try utf8(value), as: UTF8.self)
    }

    /// The JSON text of `value`, as UTF-8 bytes (what the journal binds).
    package static func utf8<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        try append(value, to: &bytes)
        return bytes
    }

    /// Appends the JSON text of `value` to `bytes`, as UTF-8. When encoding throws, `bytes`
    /// is as it was.
    package static func append<T: Encodable>(_ value: T, to bytes: inout [UInt8]) throws {
        var root: TreeEncoder?
        let buffer = ByteBuffer(capacity: 64)
        try append(value, to: buffer, reusing: &root)
        bytes.append(contentsOf: buffer.bytes)
    }

    /// Appends the JSON text of `value` to `buffer`, encoding it with `root` (then kept in
    /// `root` for the next value): the top-level encoder and its object's room are reused
    /// from one value to the next, unless something else kept a reference to them (the
    /// writer reuses one buffer and one encoder). The fields `redactor` redacts are written
    /// as it replaces them. When encoding throws, nothing is written.
    static func append<T: Encodable>(
        _ value: T, to buffer: ByteBuffer, reusing root: inout TreeEncoder?, redactor: Redactor? = nil
    ) throws {
        if root == nil || !isKnownUniquelyReferenced(&root!) { root = TreeEncoder(codingPath: []) }
        root!.reset()
        // Through `node(for:)`, not `value.encode(to:)`: a top-level `Data` or `URL` must be
        // written as `JSONEncoder` writes it, not as its own `encode(to:)` would.
        let node = try TreeEncoder.node(for: value, at: [], encoder: root!)
        node.write(to: buffer, redactor: redactor)
    }
}

/// A JSON value under construction; containers are classes so that their encoding
/// containers can keep appending to them.
enum JSONNode {
    /// A number, `true`, `false` or `null`, as JSON text (or a string, quoted).
    case literal(String)
    /// An `Int` (the most common field of an event), written without making its text first.
    case integer(Int)
    /// A string, quoted as it is written (no quoted copy made first).
    case string(String)
    /// An object, filled by keyed containers.
    case object(JSONObject)
    /// An array, filled by unkeyed containers.
    case array(JSONArray)
    /// Whatever a super encoder is given: its caller chooses the kind of container (or a
    /// single value) only after the encoder's place in its parent is taken.
    case encoder(TreeEncoder)
    /// Nothing encoded: written as `{}`, as `JSONEncoder` writes an unused super encoder.
    case empty

    /// Appends the value's JSON text, with the fields `redactor` redacts replaced.
    func write(to bytes: ByteBuffer, redactor: Redactor?) {
        switch self {
        case .literal(var literal): literal.withUTF8 { bytes.append(UnsafeRawBufferPointer($0)) }
        case .integer(let value): bytes.write(atMost: 20) { buffer in
                var end = 0
                JSONText.writeDecimal(value, into: buffer, at: &end)
                return end
            }
        case .string(let string): JSONText.appendQuoted(string, to: bytes)
        case .encoder(let encoder): encoder.node.write(to: bytes, redactor: redactor)
        case .empty:
            bytes.append(byte: UInt8(ascii: "{"))
            bytes.append(byte: UInt8(ascii: "}"))
        case .object(let object):
            bytes.append(byte: UInt8(ascii: "{"))
            // Sorted keys: a dictionary's order varies between runs; the journal's should not.
            // (Sorted in place: the value is encoded, and the object is written once.)
            // By their UTF-8 bytes, as `JSONEncoder` sorts them (Swift's `<` compares
            // canonical equivalents, which puts a key with a combining mark elsewhere).
            if object.fields.count > 1 { object.fields.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            for index in object.fields.indices {
                if index > 0 { bytes.append(byte: UInt8(ascii: ",")) }
                JSONText.appendQuoted(object.fields[index].key, to: bytes)
                bytes.append(byte: UInt8(ascii: ":"))
                if let redactor, redactor.redacts(object.fields[index].key) {
                    redactor.replacement(for: object.fields[index].value).write(to: bytes, redactor: nil)
                } else {
                    object.fields[index].value.write(to: bytes, redactor: redactor)
                }
            }
            bytes.append(byte: UInt8(ascii: "}"))
        case .array(let array):
            bytes.append(byte: UInt8(ascii: "["))
            for index in array.elements.indices {
                if index > 0 { bytes.append(byte: UInt8(ascii: ",")) }
                array.elements[index].write(to: bytes, redactor: redactor)
            }
            bytes.append(byte: UInt8(ascii: "]"))
        }
    }
}

/// A JSON object's fields, in the order they were encoded (sorted when written).
final class JSONObject {
    /// The keys and their values. Used by the encoding thread only, and never while its
    /// containers append to it, so the per-access dynamic exclusivity check is left out.
    @exclusivity(unchecked) var fields: [(key: String, value: JSONNode)] = []
}

/// A JSON array's elements.
final class JSONArray {
    /// The elements, in order (unchecked exclusivity, as ``JSONObject/fields``).
    @exclusivity(unchecked) var elements: [JSONNode] = []
}

/// A coding key made by the encoder itself, for coding paths: `super` for a keyed
/// container's super encoder, and the index of what an unkeyed container holds (spelled as
/// `JSONEncoder` spells it). An enum rather than a string and an optional index: small
/// enough to be stored inline in an `any CodingKey`, so that extending a path with one
/// allocates only the path.
enum JSONKey: CodingKey {
    /// The key under which a keyed container's `superEncoder()` nests.
    case `super`
    /// The position of an element in an array.
    case index(Int)

    /// `super`, or `Index n` for position n.
    var stringValue: String {
        switch self {
        case .super: "super"
        case .index(let index): "Index \(index)"
        }
    }

    /// The position, for an element's key.
    var intValue: Int? {
        guard case .index(let index) = self else { return nil }
        return index
    }

    /// `super`, the one name this encoder makes keys of.
    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self = .super
    }

    /// The key of the element at `intValue`.
    init(intValue: Int) { self = .index(intValue) }
}

/// JSON text helpers shared by everything in this package that writes JSON by hand.
package enum JSONText {
    /// Writes `value` in decimal at `end` (the buffer has room: at most 20 bytes) and moves
    /// `end` past it, two digits at a time (a call's four integers are most of the writer's
    /// text).
    @inline(__always)
    package static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at end: inout Int) {
        if value < 0 {
            buffer[end] = UInt8(ascii: "-")
            end += 1
        }
        var magnitude = value.magnitude
        let pairs = digitPairs.utf8Start
        // One and two digits (most handler numbers, codes and offsets) without a loop.
        if magnitude < 10 {
            buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            end += 1
            return
        }
        if magnitude < 100 {
            buffer[end] = pairs[Int(magnitude) &* 2]
            buffer[end + 1] = pairs[Int(magnitude) &* 2 + 1]
            end += 2
            return
        }
        var digits = 3
        var power: UInt = 1_000
        while digits < 20, magnitude >= power {
            digits += 1
            power = power &* 10
        }
        var index = end + digits
        end = index
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) &* 2
            magnitude /= 100
            index -= 2
            buffer[index] = pairs[pair]
            buffer[index + 1] = pairs[pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(magnitude) &* 2
            buffer[index - 2] = pairs[pair]
            buffer[index - 1] = pairs[pair + 1]
        } else {
            buffer[index - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
    }

    /// "00" to "99", for writing two digits at once.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Appends `string` as a JSON string literal, in UTF-8: `"`, `\\` and the control
    /// characters U+0000 to U+001F are escaped, everything else is copied as is. `/` needs no
    /// escape in JSON and gets none (`JSONEncoder` writes `\/` by default; readers take both),
    /// which keeps URLs and base64 in payloads short and readable in SQL queries.
    package static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: quotedRoom(utf8)) { buffer in
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<writeQuoted(utf8, into: buffer)]))
            }
        }
    }

    /// Appends `string` as ``appendQuoted(_:to:)-([UInt8])`` does, in place.
    static func appendQuoted(_ string: String, to bytes: ByteBuffer) {
        var string = string
        string.withUTF8 { utf8 in bytes.write(atMost: quotedRoom(utf8)) { writeQuoted(utf8, into: $0) } }
    }

    /// Room for the literal of `utf8`: for a short string, the most its literal can take
    /// (every byte escaped as `\u00XX`, and the quotes), which costs no pass over it; for a
    /// longer one, its literal's exact length, so that a string of megabytes does not take
    /// six times its size (in a buffer that may be kept).
    @inline(__always)
    static func quotedRoom(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        utf8.count <= 1_024 ? 6 * utf8.count + 2 : quotedLength(utf8)
    }

    /// The exact length of the literal of `utf8`: the quotes, each byte, and what each
    /// escape adds (one byte for the two-byte escapes, five for `\u00XX`).
    package static func quotedLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var length = utf8.count + 2
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): length += 1
            default: length += 5
            }
        }
        return length
    }

    /// Writes the literal of `utf8` at the start of `buffer` (room for ``quotedRoom(_:)``
    /// bytes) and returns its length: the runs that need no escape copied whole.
    private static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let target = buffer.baseAddress!
        target[0] = UInt8(ascii: "\"")
        var end = 1
        var runStart = 0
        func copyRun(upTo index: Int) {
            guard index > runStart, let source = utf8.baseAddress else { return }
            (target + end).update(from: source + runStart, count: index - runStart)
            end += index - runStart
        }
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            copyRun(upTo: index)
            runStart = index + 1
            target[end] = UInt8(ascii: "\\")
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): target[end + 1] = byte
            case UInt8(ascii: "\n"): target[end + 1] = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): target[end + 1] = UInt8(ascii: "r")
            case UInt8(ascii: "\t"): target[end + 1] = UInt8(ascii: "t")
            default:
                let hex = hexDigits.utf8Start
                (target[end + 1], target[end + 2], target[end + 3]) = (UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"))
                (target[end + 4], target[end + 5]) = (hex[Int(byte >> 4)], hex[Int(byte & 15)])
                end += 4
            }
            end += 2
        }
        copyRun(upTo: utf8.count)
        target[end] = UInt8(ascii: "\"")
        return end + 1
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

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
    /// What has been encoded so far (unchecked exclusivity, as ``JSONObject/fields``).
    @exclusivity(unchecked) var node = JSONNode.empty

    /// An encoder for the value at `codingPath`.
    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// Empties the encoder for another value, keeping its object (emptied, with its room)
    /// when nothing else holds it.
    func reset() {
        guard case .object(var object) = node else {
            node = .empty
            return
        }
        node = .empty
        guard isKnownUniquelyReferenced(&object) else { return }
        // One by one: `removeAll(keepingCapacity:)` goes through the generic
        // `replaceSubrange`, several times the cost for an event's few fields.
        while !object.fields.isEmpty { object.fields.removeLast() }
        node = .object(object)
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

    /// The node for `value`, at `path`: a literal for the primitives and for the types
    /// `JSONEncoder` writes in its own way, a subtree otherwise.
    ///
    /// Types are recognised by comparing metatypes: a cast (`as? any FixedWidthInteger`)
    /// costs more than all the comparisons together, and most values are not integers.
    /// Every type whose `encode(to:)` encodes itself into a single-value container must be
    /// caught here, or that container would bring it back here forever. `path` is an
    /// autoclosure because only a subtree or an error needs it, and building it allocates.
    /// `encoder`, when given, encodes a value that is not a primitive (at the top level,
    /// the reused root).
    static func node<T: Encodable>(
        for value: T, at path: @autoclosure () -> [any CodingKey], encoder: TreeEncoder? = nil
    ) throws -> JSONNode {
        if T.self == Int.self { return .integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Bool.self { return .literal(unsafeBitCast(value, to: Bool.self) ? "true" : "false") }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), at: path()) }
        if T.self == Float.self { return try number(unsafeBitCast(value, to: Float.self), at: path()) }
        if let text = integerText(value) { return .literal(text) }
        // `JSONEncoder`'s default strategies for these, which a default `JSONDecoder` expects.
        if T.self == Date.self {
            return try number(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate, at: path())
        }
        if T.self == Data.self {
            // Base64 has no character that needs escaping.
            return .literal("\"" + unsafeBitCast(value, to: Data.self).base64EncodedString() + "\"")
        }
        if T.self == URL.self { return .string(unsafeBitCast(value, to: URL.self).absoluteString) }
        if T.self == Decimal.self {
            let decimal = unsafeBitCast(value, to: Decimal.self)
            guard !decimal.isNaN else { throw nonFinite(decimal, named: "Decimal.nan", at: path()) }
            // `description` is plain digits, never an exponent: valid JSON number text.
            return .literal(decimal.description)
        }
        let encoder = encoder ?? TreeEncoder(codingPath: path())
        try value.encode(to: encoder)
        return encoder.node
    }

    /// The decimal text of `value` if it is of a standard integer type other than `Int`.
    static func integerText<T>(_ value: T) -> String? {
        if T.self == Int64.self { return String(unsafeBitCast(value, to: Int64.self)) }
        if T.self == UInt64.self { return String(unsafeBitCast(value, to: UInt64.self)) }
        if T.self == UInt.self { return String(unsafeBitCast(value, to: UInt.self)) }
        if T.self == Int32.self { return String(unsafeBitCast(value, to: Int32.self)) }
        if T.self == UInt32.self { return String(unsafeBitCast(value, to: UInt32.self)) }
        if T.self == Int16.self { return String(unsafeBitCast(value, to: Int16.self)) }
        if T.self == UInt16.self { return String(unsafeBitCast(value, to: UInt16.self)) }
        if T.self == Int8.self { return String(unsafeBitCast(value, to: Int8.self)) }
        if T.self == UInt8.self { return String(unsafeBitCast(value, to: UInt8.self)) }
        if T.self == Int128.self { return String(unsafeBitCast(value, to: Int128.self)) }
        if T.self == UInt128.self { return String(unsafeBitCast(value, to: UInt128.self)) }
        return nil
    }

    /// `value` as a JSON number: the shortest text that reads back as exactly `value`,
    /// without the trailing `.0` of whole numbers (as `JSONEncoder` writes them).
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F, at path: @autoclosure () -> [any CodingKey]
    ) throws -> JSONNode {
        guard value.isFinite else {
            let name = value.isNaN ? "nan" : value < 0 ? "-infinity" : "infinity"
            throw nonFinite(value, named: "\(F.self).\(name)", at: path())
        }
        var text = String(value)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .literal(text)
    }

    /// The error for a number JSON cannot hold.
    static func nonFinite(_ value: Any, named name: String, at path: [any CodingKey]) -> EncodingError {
        let description = "Unable to encode \(name) in JSON: JSON has no NaN or infinity."
        return EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: description))
    }

    /// A keyed container, writing into `object`.
    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: JSONObject
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) { object.fields.append((key.stringValue, .literal("null"))) }
        // The commonest fields without the generic path's type tests.
        mutating func encode(_ value: Int, forKey key: Key) { object.fields.append((key.stringValue, .integer(value))) }
        mutating func encode(_ value: String, forKey key: Key) { object.fields.append((key.stringValue, .string(value))) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            object.fields.append((key.stringValue, try TreeEncoder.node(for: value, at: codingPath + [key])))
        }
        // The 128-bit integers have requirements of their own, whose defaults throw.
        mutating func encode(_ value: Int128, forKey key: Key) { object.fields.append((key.stringValue, .literal(String(value)))) }
        mutating func encode(_ value: UInt128, forKey key: Key) { object.fields.append((key.stringValue, .literal(String(value)))) }
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
        mutating func superEncoder() -> any Encoder { superEncoder(named: JSONKey.super) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

        /// A super encoder for the field `key`, which may be of another type than `Key`
        /// (`Key` need not have a `super` case).
        private func superEncoder(named key: some CodingKey) -> any Encoder {
            let encoder = TreeEncoder(codingPath: codingPath + [key])
            object.fields.append((key.stringValue, .encoder(encoder)))
            return encoder
        }
    }

    /// An unkeyed container, writing into `array`.
    struct Unkeyed: UnkeyedEncodingContainer {
        let array: JSONArray
        let codingPath: [any CodingKey]
        var count: Int { array.elements.count }

        /// The key of the next element, in coding paths.
        private var nextKey: JSONKey { .index(count) }

        mutating func encodeNil() { array.elements.append(.literal("null")) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            array.elements.append(try TreeEncoder.node(for: value, at: codingPath + [nextKey]))
        }
        // The 128-bit integers have requirements of their own, whose defaults throw.
        mutating func encode(_ value: Int128) { array.elements.append(.literal(String(value))) }
        mutating func encode(_ value: UInt128) { array.elements.append(.literal(String(value))) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = JSONObject()
            let path = codingPath + [nextKey]
            array.elements.append(.object(nested))
            return KeyedEncodingContainer(Keyed<NestedKey>(object: nested, codingPath: path))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = JSONArray()
            let path = codingPath + [nextKey]
            array.elements.append(.array(nested))
            return Unkeyed(array: nested, codingPath: path)
        }
        mutating func superEncoder() -> any Encoder {
            let encoder = TreeEncoder(codingPath: codingPath + [nextKey])
            array.elements.append(.encoder(encoder))
            return encoder
        }
    }

    /// A single-value container, setting its encoder's node.
    struct Single: SingleValueEncodingContainer {
        let encoder: TreeEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() { encoder.node = .literal("null") }
        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.node = try TreeEncoder.node(for: value, at: codingPath)
        }
        // The 128-bit integers have requirements of their own, whose defaults throw.
        mutating func encode(_ value: Int128) { encoder.node = .literal(String(value)) }
        mutating func encode(_ value: UInt128) { encoder.node = .literal(String(value)) }
    }
}
