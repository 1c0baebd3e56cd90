import EventTreeJournal
import Foundation
import FuzzSupport

/// libFuzzer's entry point: reads the input as JSON into one of a few `Codable` shapes
/// (the first byte picks which), encodes the value with the journal's `PayloadEncoder`,
/// and checks what the journal promises of a payload: a default `JSONDecoder` reads it
/// back as the same value, and it is the text `JSONEncoder` writes with sorted keys and
/// unescaped slashes. Input that is not JSON of the shape is skipped.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let json = Data(bytes: data + 1, count: size - 1)
    switch data[0] % 6 {
    case 0: roundTrip(AnyJSON.self, json)
    case 1: roundTrip(Record.self, json)
    case 2: roundTrip([String: [Double?]].self, json)
    case 3: roundTrip(Choice.self, json)
    case 4: roundTrip(Numbers.self, json)
    default: roundTrip(Foundations.self, json)
    }
    return 0
}

/// Decodes `json` as `T`; when it is one, checks the payload encoding of the value.
private func roundTrip<T: Codable & Equatable>(_: T.Type, _ json: Data) {
    guard let value = try? JSONDecoder().decode(T.self, from: json) else { return }
    let payload: [UInt8]
    do {
        payload = try PayloadEncoder.utf8(value)
    } catch {
        // Only a non-finite number may refuse, and JSON has none.
        fail("PayloadEncoder refused \(value): \(error)")
    }
    let text = String(decoding: payload, as: UTF8.self)
    let decoded: T
    do {
        decoded = try JSONDecoder().decode(T.self, from: Data(payload))
    } catch {
        fail("JSONDecoder cannot read the payload \(text) of \(value): \(error)")
    }
    expect(decoded == value, "the payload \(text) reads back as \(decoded), not \(value)")

    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let expected = try? encoder.encode(value).map({ $0 }) {
        expect(
            spellingControlsAsUnicodeEscapes(expected) == payload,
            "PayloadEncoder wrote \(text), JSONEncoder \(String(decoding: expected, as: UTF8.self))")
    }
}

/// JSON text with `JSONEncoder`'s two short escapes, `\b` and `\f`, spelled as the
/// `\u0008` and `\u000c` that `PayloadEncoder` writes (both mean the same to a reader).
private func spellingControlsAsUnicodeEscapes(_ json: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var index = 0
    while index < json.count {
        if json[index] == UInt8(ascii: "\\"), index + 1 < json.count {
            switch json[index + 1] {
            case UInt8(ascii: "b"): result.append(contentsOf: Array("\\u0008".utf8))
            case UInt8(ascii: "f"): result.append(contentsOf: Array("\\u000c".utf8))
            default: result.append(contentsOf: json[index...index + 1])
            }
            index += 2
        } else {
            result.append(json[index])
            index += 1
        }
    }
    return result
}

/// Any JSON value.
private indirect enum AnyJSON: Codable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([AnyJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: AnyJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A typical event: optional fields, nested values, a dictionary.
private struct Record: Codable, Equatable {
    var id: Int
    var name: String
    var ratio: Double?
    var flags: [Bool]?
    var table: [String: Int8]?
    var nested: [Record]?
    var note: String?
}

/// An enum with associated values, coded by the synthesized conformance.
private indirect enum Choice: Codable, Equatable {
    case none
    case some(Int, label: String)
    case nested(Choice?)
    case many([Choice])
}

/// Every number type the encoder writes on its own path.
private struct Numbers: Codable, Equatable {
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint64: UInt64?
    var float: Float?
    var double: Double?
    var int128: Int128?
    var uint128: UInt128?
}

/// The Foundation types the encoder writes as `JSONEncoder` does.
private struct Foundations: Codable, Equatable {
    var date: Date?
    var data: Data?
    var url: URL?
    var decimal: Decimal?
    var dates: [Date]?
}
