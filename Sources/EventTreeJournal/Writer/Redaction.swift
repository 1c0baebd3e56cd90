import Crypto
import EventTree
import Foundation

/// Which values of an event's payload the journal must not store, and what it stores
/// instead.
///
/// Redaction happens as the writer encodes a payload, before the record is hashed or
/// written: a redacted value is in no byte of the journal, its write-ahead log, or anything
/// read from it (reports, exports, the fleet database), and the hash chain covers the
/// redacted text, so a redacted journal verifies.
///
/// A field is redacted when its name, lowercased with `_`, `-`, `.` and spaces removed,
/// contains one of ``deniedFieldNames`` (so `password`, `userPassword`, `API_KEY` and
/// `X-Auth-Token` all match), at any depth of the payload, or when the event's type lists
/// it in `Event.redactedFields`. Its value, whatever its JSON type, is replaced
/// by a string: `"[redacted]"`, or `"[hmac:` and 16 hex digits `]"` under
/// ``Replacement/keyedHash(_:)``.
///
/// ```swift
/// var options = JournalOptions()
/// options.redaction.deniedFieldNames.insert("iban")
/// options.redaction.replacement = .keyedHash(SymmetricKey(data: appSecret))
/// ```
public struct Redaction: Sendable {
    /// What a redacted value is stored as.
    public enum Replacement: Sendable {
        /// The string `"[redacted]"`: nothing of the value is kept.
        case drop
        /// `"[hmac:` + the first 8 bytes, in hex, of the HMAC-SHA-256 of the value's JSON
        /// text (a string's own UTF-8 bytes) under `key` + `"]"`: equal values stored under
        /// the same key are equal, so a query can still tell which events carried the same
        /// secret, while the value cannot be recovered without the key. Keep the key out of
        /// the journal.
        case keyedHash(SymmetricKey)
    }

    /// The field names redacted in every payload (see ``Redaction``): matched after
    /// lowercasing and removing separators, as a substring of the field's name. Defaults to
    /// ``defaultDeniedFieldNames``; insert into it to extend it, empty it to turn the
    /// deny-list off (each type's own `redactedFields` still apply: ``none`` turns off both).
    public var deniedFieldNames: Set<String> = Redaction.defaultDeniedFieldNames
    /// What a redacted value becomes; ``Replacement/drop`` by default.
    public var replacement: Replacement = .drop

    /// Names that hold credentials or personal data in most apps: `password`, `passwd`,
    /// `passcode`, `passphrase`, `secret`, `token`, `authorization`, `cookie`, `session`,
    /// `apikey`, `privatekey`, `accesskey`, `cardnumber`, `creditcard`, `cvv`, `cvc`, `iban`.
    public static let defaultDeniedFieldNames: Set<String> = [
        "password", "passwd", "passcode", "passphrase", "secret", "token", "authorization", "cookie", "session",
        "apikey", "privatekey", "accesskey", "cardnumber", "creditcard", "cvv", "cvc", "iban",
    ]

    /// No redaction: every payload is stored as encoded, event types' own
    /// `redactedFields` included.
    public static let none: Redaction = {
        var redaction = Redaction(deniedFieldNames: [])
        redaction.isOff = true
        return redaction
    }()

    /// Whether nothing is redacted (``none``).
    private(set) var isOff = false

    /// The default deny-list, replaced by `"[redacted]"`.
    public init() {}

    /// A policy with the given deny-list and replacement.
    public init(deniedFieldNames: Set<String>, replacement: Replacement = .drop) {
        self.deniedFieldNames = deniedFieldNames
        self.replacement = replacement
    }

    /// The text a redacted string is stored as under ``Replacement/drop``.
    public static let droppedText = "[redacted]"
    /// How the text of a value stored under ``Replacement/keyedHash(_:)`` begins.
    public static let hashPrefix = "[hmac:"

    /// Whether `text`, a string value read back from a payload, is what redaction stored.
    public static func isRedacted(_ text: String) -> Bool {
        text == droppedText || (text.hasPrefix(hashPrefix) && text.hasSuffix("]") && text.utf8.count == 23)
    }

    /// The paths of the values redaction replaced in a stored payload (its JSON text), in
    /// the order they are stored: `password`, `device.sessionCookie`, `headers[0].token`.
    public static func redactedPaths(inPayload payload: String) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(payload.utf8), options: [.fragmentsAllowed]) else {
            return []
        }
        var paths: [String] = []
        func visit(_ value: Any, at path: String) {
            switch value {
            case let text as String where isRedacted(text): paths.append(path)
            case let object as [String: Any]:
                for key in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    visit(object[key]!, at: path.isEmpty ? key : path + "." + key)
                }
            case let array as [Any]:
                for (index, element) in array.enumerated() { visit(element, at: path + "[\(index)]") }
            default: break
            }
        }
        visit(value, at: "")
        return paths
    }
}

/// A ``Redaction`` made ready for the writer: its names normalized, indexed by first byte.
final class Redactor {
    /// The normalized deny-list.
    private let words: [[UInt8]]
    /// For each byte, the indexes in `words` of the names that start with it.
    private let wordsByFirstByte: [[Int]]
    /// The shortest normalized name: a shorter field name matches none.
    private let shortest: Int
    private let key: SymmetricKey?
    /// The redacted fields of the event type whose payload is being written, and that type.
    /// (Used by the writer's thread only: unchecked, as the writer's other state; a payload
    /// of the same type as the last one costs no lookup.)
    @exclusivity(unchecked) private var typeFields: Set<String> = []
    @exclusivity(unchecked) private var typeOfFields: Int?

    init?(_ redaction: Redaction) {
        let words = redaction.deniedFieldNames.map { Self.normalized(Array($0.utf8)) }.filter { !$0.isEmpty }
        if case .keyedHash(let key) = redaction.replacement { self.key = key } else { key = nil }
        // (Without a deny-list, a type's own fields are still redacted: only `none` is off.)
        guard !redaction.isOff else { return nil }
        self.words = words
        var byFirst = [[Int]](repeating: [], count: 256)
        for (index, word) in words.enumerated() { byFirst[Int(word[0])].append(index) }
        wordsByFirstByte = byFirst
        shortest = words.map(\.count).min() ?? .max
    }

    /// Makes ready for the payload `event`, of the type numbered `typeID` in the journal:
    /// its type's own redacted fields apply too.
    @inline(__always)
    func prepare(for event: any Event, typeID: Int) {
        guard typeID != typeOfFields else { return }
        typeOfFields = typeID
        typeFields = type(of: event).redactedFields
    }

    /// Whether the field named `name` is redacted.
    func redacts(_ name: String) -> Bool {
        if !typeFields.isEmpty, typeFields.contains(name) { return true }
        guard name.utf8.count >= shortest else { return false }
        if let matched = name.utf8.withContiguousStorageIfAvailable({ matches($0) }) { return matched }
        return Array(name.utf8).withUnsafeBufferPointer { matches($0) }
    }

    /// Whether `name`, normalized, contains a denied word (normalized on the stack: this
    /// runs for every field the writer encodes).
    private func matches(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count) { normalized in
            var count = 0
            for byte in name {
                guard let folded = Self.folded(byte) else { continue }
                normalized[count] = folded
                count += 1
            }
            for start in 0..<count {
                for index in wordsByFirstByte[Int(normalized[start])] where count - start >= words[index].count {
                    if words[index].withUnsafeBufferPointer({ word in
                        memcmp(normalized.baseAddress! + start, word.baseAddress!, word.count) == 0
                    }) {
                        return true
                    }
                }
            }
            return false
        }
    }

    /// What the value `node` is stored as.
    func replacement(for node: JSONNode) -> JSONNode {
        guard let key else { return .string(Redaction.droppedText) }
        let text: ByteBuffer
        if case .string(let string) = node {
            text = ByteBuffer(capacity: string.utf8.count)
            var string = string
            string.withUTF8 { text.append(UnsafeRawBufferPointer($0)) }
        } else {
            text = ByteBuffer(capacity: 64)
            node.write(to: text, redactor: nil)
        }
        let code = HMAC<SHA256>.authenticationCode(for: UnsafeRawBufferPointer(text.bytes), using: key)
        let hex = code.prefix(8).map { String(format: "%02x", $0) }.joined()
        return .string(Redaction.hashPrefix + hex + "]")
    }

    /// `byte` lowercased, or `nil` for a separator.
    private static func folded(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: " "): nil
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
        default: byte
        }
    }

    private static func normalized(_ name: [UInt8]) -> [UInt8] { name.compactMap(folded) }
}
