/// A text file of `Templates/` (embedded into the binary at build time) with `{{name}}`
/// placeholders.
struct Template {
    /// The template's text.
    let text: String

    /// The template `Templates/<name>`.
    init(named name: String) {
        guard let text = Self.files[name] else { preconditionFailure("no template \(name) in Templates/") }
        self.text = text
    }

    /// The text with each `{{name}}` replaced by `values[name]`. Inserted text is not
    /// scanned again, so values may contain braces.
    func filled(_ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else { preconditionFailure("template placeholder {{\(name)}} has no value") }
            result += rest[..<open.lowerBound]
            result += value
            rest = rest[close.upperBound...]
        }
        result += rest
        return result
    }
}
