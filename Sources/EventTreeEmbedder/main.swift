// Build tool: embeds text files into a Swift source file, so that a copied binary carries
// them (no resource bundle beside it).
//
//     EventTreeEmbedder migrations OUTPUT.swift [--own] 0001_journal.sql 0002_….sql …
//     EventTreeEmbedder templates OUTPUT.swift report.html …
//
// Migrations must be named NNNN_description.sql, numbered 1, 2, 3… without gaps; they
// become `Migration.all` (the journal schema), or with --own `Migration.own` (a target's schema
// for another database). Templates become `Template.named`, keyed by file name.
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

/// `text` as a Swift raw string literal: a delimiter longer than any run of `#` in it.
func literal(_ text: String) -> String {
    var longest = 0
    var run = 0
    for character in text {
        run = character == "#" ? run + 1 : 0
        longest = max(longest, run)
    }
    let hashes = String(repeating: "#", count: longest + 1)
    return "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)"
}

func read(_ path: String) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    return text
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, ["migrations", "templates"].contains(arguments[0]) else {
    fail("usage: EventTreeEmbedder migrations|templates OUTPUT.swift FILE…")
}
let (mode, output) = (arguments[0], arguments[1])
let own = arguments.count > 2 && arguments[2] == "--own"
let files = arguments.dropFirst(own ? 3 : 2)

let source: String
if mode == "migrations" {
    var entries: [String] = []
    for (index, path) in files.enumerated() {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        guard let number = Int(name.prefix { $0.isNumber }), name.dropFirst(4).first == "_" else {
            fail("\(url.lastPathComponent): a migration is named NNNN_description.sql")
        }
        guard number == index + 1 else {
            fail("\(url.lastPathComponent): expected migration number \(index + 1); migrations are numbered without gaps")
        }
        entries.append("        Migration(version: \(number), name: \"\(name)\", sql: \(literal(read(path)))),")
    }
    source = """
        // Generated at build time by EventTreeEmbedder from Migrations/*.sql. Do not edit.
        \(own ? "\nimport EventTreeJournal\n" : "")
        extension Migration {
            /// Every migration, in order: the schema's only source, embedded into the binary.
            static let \(own ? "own" : "all"): [Migration] = [
        \(entries.joined(separator: "\n"))
            ]
        }

        """
} else {
    let entries = files.map { path in
        "        \"\(URL(fileURLWithPath: path).lastPathComponent)\": \(literal(read(path))),"
    }
    source = """
        // Generated at build time by EventTreeEmbedder from Templates/*. Do not edit.

        extension Template {
            /// The target's templates, by file name, embedded into the binary.
            static let files: [String: String] = [
        \(entries.joined(separator: "\n"))
            ]
        }

        """
}
do {
    let existing = try? String(contentsOfFile: output, encoding: .utf8)
    if existing != source { try source.write(toFile: output, atomically: true, encoding: .utf8) }
} catch {
    fail("cannot write \(output): \(error)")
}
