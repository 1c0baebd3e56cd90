import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// A nested struct.
private struct Inner: Codable, Equatable { var flag: Bool; var ratio: Double }
/// An enum with associated values, coded by the synthesized conformance.
private enum Choice: Codable, Equatable { case none, some(Int, label: String) }
/// A value of the common shapes, for comparing with `JSONEncoder`.
private struct Everything: Codable, Equatable {
    var text = "quote \" backslash \\ newline \n tab \t bell \u{7} é 🎉"
    var small: Int8 = -3
    var big: UInt64 = 18_000_000_000_000_000_000
    var float: Float = 1.5
    var whole = 2.0
    var optional: String?
    var list = [1, 2, 3]
    var nested = Inner(flag: true, ratio: 0.25)
    var table = ["zeta": 1, "alpha": 2, "mid": 3]
    var choice = Choice.some(7, label: "x")
    var date = Date(timeIntervalSinceReferenceDate: 1_000)
}

/// An enum whose cases carry other payload shapes, itself included.
private indirect enum Shape: Codable, Equatable {
    case point
    case labelled(String, count: Int?)
    case wrapping(Inner, [Shape])
}

/// A value that writes `null` on purpose (`encodeNil`) next to one left out (`encodeIfPresent`).
private struct Nulls: Codable, Equatable {
    var written: Int?
    var omitted: Int?

    private enum CodingKeys: String, CodingKey { case written, omitted }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // `decodeNil` fails on a missing key: this proves `written` is there, as null.
        guard try container.decodeNil(forKey: .written), !container.contains(.omitted) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "expected written: null, no omitted"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeNil(forKey: .written)
        try container.encodeIfPresent(omitted, forKey: .omitted)
    }
}

/// A value kept in a single-value container, holding containers of its own.
private struct Wrapped: Codable, Equatable {
    var rows: [[String: Inner]]

    init(rows: [[String: Inner]]) { self.rows = rows }
    init(from decoder: any Decoder) throws { rows = try decoder.singleValueContainer().decode([[String: Inner]].self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rows)
    }
}

/// Containers nested by hand: keyed in unkeyed in keyed, unkeyed in unkeyed.
private struct HandNested: Codable, Equatable {
    var name = "n"
    var pairs = [[1, 2], [3]]

    private enum CodingKeys: String, CodingKey { case list }
    private enum ItemKeys: String, CodingKey { case name }

    init() {}

    init(from decoder: any Decoder) throws {
        var list = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .list)
        name = try list.nestedContainer(keyedBy: ItemKeys.self).decode(String.self, forKey: .name)
        pairs = []
        while !list.isAtEnd {
            var pair = try list.nestedUnkeyedContainer()
            var row: [Int] = []
            while !pair.isAtEnd { row.append(try pair.decode(Int.self)) }
            pairs.append(row)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        var item = list.nestedContainer(keyedBy: ItemKeys.self)
        try item.encode(name, forKey: .name)
        for row in pairs {
            var pair = list.nestedUnkeyedContainer()
            for number in row { try pair.encode(number) }
        }
    }
}

/// Every shape a payload can take, with the values where encoders tend to go wrong.
private struct Shapes: Codable, Equatable {
    var text = "quote \" backslash \\ slash / controls \u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1b}\u{1f} del \u{7f}"
        + " é ü 中文 🎉 \u{2028}\u{2029} \u{FEFF}"
    var emptyText = ""
    var int64s = [Int64.min, -1, 0, Int64.max]
    var uint64s = [UInt64.min, UInt64.max]
    var int8s = [Int8.min, Int8.max]
    var uint8s = [UInt8.min, UInt8.max]
    var int16s = [Int16.min, Int16.max]
    var uint16s = [UInt16.min, UInt16.max]
    var int32s = [Int32.min, Int32.max]
    var uint32s = [UInt32.min, UInt32.max]
    var ints = [Int.min, Int.max]
    var uints = [UInt.min, UInt.max]
    var int128s = [Int128.min, Int128.max]
    var uint128s = [UInt128.min, UInt128.max]
    // Alone, not in arrays: 128-bit integers have container requirements of their own.
    var int128 = Int128.min
    var uint128 = UInt128.max
    var optionalInt128: Int128? = -1
    var doubles = [
        0.0, -0.0, 1, -1, 0.1, 1.0 / 3, .pi, 1e16, 1e-7, 123_456_789.123_456_78,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne, 9_007_199_254_740_992,
    ]
    var floats: [Float] = [
        0.0, -0.0, 1, 0.1, 1.0 / 3, .pi, 1e16, 1e-7, 16_777_216,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne,
    ]
    var bool = true
    var present: String? = "here"
    var absent: Int?
    var nulls = Nulls()
    var optionals: [Int?] = [1, nil, 3]
    var nested: [String: [[Inner?]]] = ["a": [[Inner(flag: true, ratio: 0.5), nil], []], "b": []]
    var intKeys: [Int: String] = [3: "c", -1: "m"]
    var shapes: [Shape] = [
        .point, .labelled("l", count: nil), .labelled("", count: 2),
        .wrapping(Inner(flag: false, ratio: -2), [.point, .wrapping(Inner(flag: true, ratio: 0), [])]),
    ]
    var choice = Choice.none
    var wrapped = Wrapped(rows: [["k": Inner(flag: true, ratio: 1.5)], [:]])
    var handNested = HandNested()
    var data = Data([0, 1, 2, 0xFB, 0xFF, 0x3E])
    var emptyData = Data()
    var optionalData: Data? = Data("payload".utf8)
    var urls = [
        URL(string: "https://example.org/a%20b/c?q=%C3%A9&r=1#frag")!,
        URL(string: "mailto:someone@example.org")!,
        URL(fileURLWithPath: "/tmp/x y.txt"),
    ]
    var dates = [
        Date(timeIntervalSinceReferenceDate: 1_000.123_456), Date(timeIntervalSinceReferenceDate: -0.5),
        Date(timeIntervalSince1970: 0), .distantPast, .distantFuture,
    ]
    var decimals = [
        Decimal(string: "3.14159265358979323846264338327950288")!, Decimal(string: "-0.000001")!,
        Decimal(string: "1e100")!, Decimal(string: "-1.5e-100")!, Decimal(0), Decimal(Int64.max),
    ]
}

/// `value` encoded by ``PayloadEncoder``, decoded by a default `JSONDecoder`.
private func roundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(PayloadEncoder.utf8(value)))
}

/// The next value of a 64-bit linear congruential generator: fixed, so every run tests the same numbers.
private func nextRandom(_ state: inout UInt64) -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
}

/// An event that carries a number JSON may not be able to hold.
private struct Reading: Event { var value: Double }

/// An event of two fields, declared out of key order.
private struct Pair: Event { var zed: Int; var alpha: String }

/// An event encoded as a single value at the top level.
private struct Level: Event {
    var value: Int
    init(value: Int) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// An event whose encoding keeps its keyed container and writes into it again on its next
/// encoding (an encoder must not hand a later value a container still held).
private final class Hoarder: Event, @unchecked Sendable {
    nonisolated(unsafe) static var kept: KeyedEncodingContainer<Key>?
    enum Key: CodingKey { case n, late }
    let n: Int
    init(n: Int) { self.n = n }
    required init(from decoder: any Decoder) throws { n = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: .n) }
    func encode(to encoder: any Encoder) throws {
        // Written into the container of the previous encoding, if it was kept.
        try Self.kept?.encode(n, forKey: .late)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(n, forKey: .n)
        Self.kept = container
    }
}

@Suite struct PayloadEncoderTests {
    @Test func itWritesWhatFoundationsEncoderWritesInSubstance() throws {
        let value = Everything()
        let ours = try PayloadEncoder.json(value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let foundation = try encoder.encode(value)
        let parsedOurs = try JSONSerialization.jsonObject(with: Data(ours.utf8)) as? NSDictionary
        let parsedFoundation = try JSONSerialization.jsonObject(with: foundation) as? NSDictionary
        #expect(parsedOurs == parsedFoundation)
        #expect(try JSONDecoder().decode(Everything.self, from: Data(ours.utf8)) == value)
        #expect(ours.contains(#""table":{"alpha":2,"mid":3,"zeta":1}"#))
    }

    @Test func smallEventsAreCompactAndKeysSorted() throws {
        struct Ping: Encodable { var n = 1; var a = "x" }
        #expect(try PayloadEncoder.json(Ping()) == #"{"a":"x","n":1}"#)
        struct Empty: Encodable {}
        #expect(try PayloadEncoder.json(Empty()) == "{}")
    }

    /// Found by fuzz-payload: a key spelled with a combining mark ("i" + U+0311) sorts as its
    /// UTF-8 bytes in `JSONEncoder`'s output, where Swift's `<` compares it as the composed
    /// "ȋ" (after "u"). Keys are ordered by their bytes, as `JSONEncoder` orders them.
    @Test func keysAreSortedByTheirUTF8BytesAsJSONEncoderSortsThem() throws {
        let keys = ["\u{FF61}", "\u{10000}", "i\u{0311}t8", "int8", "uilt8", "Z", "a", "\u{E9}", "e\u{301}x", "\u{E000}"]
        let value = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, $0.offset) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try PayloadEncoder.json(value) == String(decoding: try encoder.encode(value), as: UTF8.self))
        #expect(try PayloadEncoder.json(value)
            == #"{"Z":5,"a":6,"e\#u{301}x":8,"int8":3,"i\#u{0311}t8":2,"uilt8":4,"\#u{E9}":7,"\#u{E000}":9,"\#u{FF61}":0,"\#u{10000}":1}"#)
    }

    @Test func everyShapeRoundTripsThroughADefaultJSONDecoder() throws {
        let value = Shapes()
        let decoded = try roundTrip(value)
        #expect(decoded == value)
        // `==` does not tell -0.0 from 0.0.
        #expect(decoded.doubles.map(\.bitPattern) == value.doubles.map(\.bitPattern))
        #expect(decoded.floats.map(\.bitPattern) == value.floats.map(\.bitPattern))

        // Values at the top level take the same paths as values in containers.
        #expect(try roundTrip(value.data) == value.data)
        #expect(try roundTrip(value.urls[0]) == value.urls[0])
        #expect(try roundTrip(value.dates[0]) == value.dates[0])
        #expect(try roundTrip(value.decimals[0]) == value.decimals[0])
        #expect(try roundTrip(value.text) == value.text)
        #expect(try roundTrip(-0.0).sign == .minus)
        #expect(try roundTrip(Int?.none) == nil)
        #expect(try roundTrip(value.shapes) == value.shapes)

        // The special types are written as JSONEncoder writes them by default.
        #expect(try PayloadEncoder.json(Data([0xFB, 0xFF])) == #""+/8=""#)
        #expect(try PayloadEncoder.json(URL(string: "https://example.org/a?b=c")!) == #""https://example.org/a?b=c""#)
        #expect(try PayloadEncoder.json(Date(timeIntervalSinceReferenceDate: 1_000.5)) == "1000.5")
        #expect(try PayloadEncoder.json(Decimal(string: "-12.50")!) == "-12.5")
        #expect(try PayloadEncoder.json(Nulls()) == #"{"written":null}"#)
        #expect(try PayloadEncoder.json("\u{0}\u{1f}\"\\/") == #""\u0000\u001f\"\\/""#)
    }

    @Test func stringsAndKeysAreEscapedByteByByteAndReadBack() throws {
        // Runs that need no escape between ones that do, at either end, multi-byte
        // characters, every control character, and keys that need escaping too.
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let strings = [
            "", "plain", "\"", "\\", "tab\there", "line\nbreak\r", "\"quoted\" and \\back\\", "ünïcødé 🎉 text",
            "\u{7}bell", "ends with \\", "a/b", controls, String(repeating: "long run ", count: 40) + "\n",
            // Past 1 KiB, room is made for the literal's exact length rather than for six bytes a byte.
            String(repeating: "run \"of\" \\ text\u{1}\n\t", count: 100), String(repeating: "é", count: 600) + "\"",
        ]
        // The rule, one byte at a time: `"`, `\` and the control characters escaped (the
        // usual three by letter, the others as \u00XX), everything else as it is.
        func literal(_ string: String) -> String {
            var bytes = [UInt8(ascii: "\"")]
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
                case 0x0A: bytes += Array(#"\n"#.utf8)
                case 0x0D: bytes += Array(#"\r"#.utf8)
                case 0x09: bytes += Array(#"\t"#.utf8)
                case 0..<0x20: bytes += Array(String(format: #"\u%04x"#, Int(byte)).utf8)
                default: bytes.append(byte)
                }
            }
            return String(decoding: bytes + [UInt8(ascii: "\"")], as: UTF8.self)
        }
        for var string in strings {
            #expect(string.withUTF8(JSONText.quotedLength) == literal(string).utf8.count)
            #expect(try PayloadEncoder.json(string) == literal(string))
            #expect(JSONText.quoted(string) == literal(string))
            #expect(try PayloadEncoder.json(["value": string]) == #"{"value":\#(literal(string))}"#)
            #expect(try PayloadEncoder.json([string: 1]) == "{\(literal(string)):1}")
            #expect(try roundTrip([string: string]) == [string: string])
        }
    }

    @Test func floatingPointNumbersRoundTripBitForBit() throws {
        var state: UInt64 = 0x5EED
        let doubles = (0..<4_000).map { _ in Double(bitPattern: nextRandom(&state)) }.filter(\.isFinite)
        let floats = (0..<4_000).map { _ in Float(bitPattern: UInt32(truncatingIfNeeded: nextRandom(&state) >> 32)) }
            .filter(\.isFinite)
        #expect(try roundTrip(doubles).map(\.bitPattern) == doubles.map(\.bitPattern))
        #expect(try roundTrip(floats).map(\.bitPattern) == floats.map(\.bitPattern))
    }

    @Test func superEncodersNestAsJSONEncodersDo() throws {
        /// Encodes through every kind of super encoder, as a subclass encodes its superclass;
        /// its coding keys have no `super` case.
        struct Layered: Codable, Equatable {
            var own = 1
            var base = Inner(flag: true, ratio: 0.5)
            var named = "n"
            var items = [Inner(flag: false, ratio: 2)]
            var grid = [[1, 2], [3]]

            private enum CodingKeys: String, CodingKey { case own, named, items, grid }

            init() {}

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                own = try container.decode(Int.self, forKey: .own)
                base = try Inner(from: container.superDecoder())
                named = try container.superDecoder(forKey: .named).singleValueContainer().decode(String.self)
                var list = try container.nestedUnkeyedContainer(forKey: .items)
                items = []
                while !list.isAtEnd { items.append(try Inner(from: list.superDecoder())) }
                var rows = try container.nestedUnkeyedContainer(forKey: .grid)
                grid = []
                while !rows.isAtEnd { grid.append(try [Int](from: rows.superDecoder())) }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(own, forKey: .own)
                try base.encode(to: container.superEncoder())
                var named = container.superEncoder(forKey: .named).singleValueContainer()
                try named.encode(self.named)
                var list = container.nestedUnkeyedContainer(forKey: .items)
                for item in items { try item.encode(to: list.superEncoder()) }
                var rows = container.nestedUnkeyedContainer(forKey: .grid)
                for row in grid { try row.encode(to: rows.superEncoder()) }
            }
        }

        let value = Layered()
        let ours = try PayloadEncoder.json(value)
        #expect(ours == #"{"grid":[[1,2],[3]],"items":[{"flag":false,"ratio":2}],"named":"n","own":1,"super":{"flag":true,"ratio":0.5}}"#)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(ours == String(decoding: try foundation.encode(value), as: UTF8.self))
        #expect(try roundTrip(value) == value)
    }

    @Test func integersAreWrittenAsSwiftWritesThem() throws {
        var values = [0, 9, 10, 99, 100, 999, 1_000, 65_535, Int.max, Int.min, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        values += values.filter { $0 != .min }.map { -$0 }
        for value in values {
            let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
                var end = 0
                JSONText.writeDecimal(value, into: buffer, at: &end)
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<end]), as: UTF8.self)
            }
            #expect(text == "\(value)")
        }
        #expect(try PayloadEncoder.json([Int.min, -5, 42]) == "[\(Int.min),-5,42]")
    }

    @Test func theWriterEncodesEachPayloadAfreshThoughItReusesItsEncoder() async throws {
        try await withTemporaryJournal { journal in
            let app = EventNode("app", bus: EventBus(recorder: journal))
            app.raise(Pair(zed: 1, alpha: "x"))
            app.raise(Level(value: 5))
            app.raise(Pair(zed: 2, alpha: "y"))
            app.raise(Reading(value: .nan))
            app.raise(Pair(zed: 3, alpha: "z"))
            app.raise(Hoarder(n: 1))
            app.raise(Hoarder(n: 2))
            app.raise(Pair(zed: 4, alpha: "w"))
            try journal.flush()
            let payloads = try lines(journal.path, "SELECT payload FROM event_history ORDER BY seq")
            #expect(payloads.count == 8)
            #expect(Array(payloads.prefix(3)) == [#"{"alpha":"x","zed":1}"#, "5", #"{"alpha":"y","zed":2}"#])
            #expect(payloads[3].hasPrefix(#"{"unencodable":"#))
            // The kept container wrote its `late` field into the first Hoarder's object,
            // long since written; no later payload shows it.
            #expect(Array(payloads.suffix(4)) == [
                #"{"alpha":"z","zed":3}"#, #"{"n":1}"#, #"{"n":2}"#, #"{"alpha":"w","zed":4}"#,
            ])
        }
        Hoarder.kept = nil
    }

    @Test func nonFiniteNumbersAreRefusedWithTheirPathAndJournaledAsUnencodable() async throws {
        struct Numbers: Encodable { var values: [Float]; var decimal = Decimal(1) }
        for number in [Double.nan, .infinity, -.infinity] {
            let error = #expect(throws: EncodingError.self) { try PayloadEncoder.json(Reading(value: number)) }
            guard case .invalidValue(_, let context)? = error else { continue }
            #expect(context.codingPath.map(\.stringValue) == ["value"])
            #expect(context.debugDescription.contains("JSON has no NaN or infinity"))
        }
        let error = #expect(throws: EncodingError.self) { try PayloadEncoder.json(Numbers(values: [1, .nan])) }
        if case .invalidValue(_, let context)? = error {
            #expect(context.codingPath.map(\.stringValue) == ["values", "Index 1"])
        }
        // Foundation's encoder writes NaN, which no JSON reader accepts; ours refuses it.
        #expect(throws: EncodingError.self) { try PayloadEncoder.json(Numbers(values: [], decimal: .nan)) }
        #expect(throws: EncodingError.self) { try PayloadEncoder.json(Double.infinity) }

        // The writer keeps the event and stores why its payload is missing.
        try await withTemporaryJournal { journal in
            let app = EventNode("app", bus: EventBus(recorder: journal))
            app.raise(Reading(value: .nan))
            app.raise(Reading(value: 1.5))
            try journal.flush()
            #expect(try lines(journal.path, "SELECT payload FROM event_history ORDER BY seq") == [
                #"{"unencodable":"EncodingError.invalidValue: nan (Double). Path: value. Debug description: "#
                    + #"Unable to encode Double.nan in JSON: JSON has no NaN or infinity."}"#,
                #"{"value":1.5}"#,
            ])
        }
    }
}
