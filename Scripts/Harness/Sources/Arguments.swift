import Foundation

/// `COMMAND --name value --flag …`, read once.
struct Arguments {
    let command: String
    private var values: [String: String] = [:]

    init(_ words: ArraySlice<String>) {
        command = words.first ?? ""
        var rest = words.dropFirst()
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else { continue }
            let name = String(word.dropFirst(2))
            if let next = rest.first, !next.hasPrefix("--") {
                values[name] = next
                rest.removeFirst()
            } else {
                values[name] = ""
            }
        }
    }

    func string(_ name: String, default value: String) -> String { values[name] ?? value }
    func int(_ name: String, default value: Int) -> Int { values[name].flatMap { Int($0) } ?? value }
    func has(_ name: String) -> Bool { values[name] != nil }
}
