import EventTreeJournal

/// Compact JSON written straight into bytes, for the report's data (10⁵ events must not
/// build a tree of values first).
struct ReportJSON {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value needs a comma before it.
    private var needsComma = false

    mutating func string(_ value: String) {
        separate()
        JSONText.appendQuoted(value, to: &bytes)
    }

    mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func integer(_ value: Int?) {
        if let value { integer(value) } else { null() }
    }

    /// A number with at most three decimals (trace times: microseconds to the nanosecond).
    ///
    /// A value read from a journal can be anything a REAL holds: one whose thousandths
    /// pass ±2⁵³ (where a Double no longer holds every integer, and long before `Int`
    /// would overflow) is written in exponent form, and one that is not finite, which JSON
    /// cannot write, as `null`.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        guard let thousandths = Int(exactly: (value * 1_000).rounded()), thousandths.magnitude <= 1 << 53 else {
            bytes.append(contentsOf: "\(value)".utf8)
            return
        }
        var text = String(thousandths / 1_000)
        let fraction = abs(thousandths % 1_000)
        if thousandths < 0 && thousandths > -1_000 { text = "-" + text }
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// An array whose elements `body` writes.
    mutating func array(_ body: (inout ReportJSON) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object; `body` writes each field with ``field(_:_:)``.
    mutating func object(_ body: (inout ReportJSON) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// A field of an object: its name, then the value `body` writes.
    mutating func field(_ name: String, _ body: (inout ReportJSON) -> Void) {
        separate()
        JSONText.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
        body(&self)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// The JSON, safe inside an HTML `<script>` element: `<` (which JSON has only inside
    /// strings) is written `\u003c`, so no `</script>` or `<!--` can end the element.
    var textForScript: String {
        var safe: [UInt8] = []
        safe.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte == UInt8(ascii: "<") { safe.append(contentsOf: "\\u003c".utf8) } else { safe.append(byte) }
        }
        return String(decoding: safe, as: UTF8.self)
    }

    /// The JSON text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The JSON text written so far, removed, for writing JSON in pieces: what comes next
    /// is separated from it as it would have been.
    mutating func takeText() -> String {
        defer { bytes.removeAll(keepingCapacity: true) }
        return text
    }
}
