// Build tool: writes a Swift file holding the migrations given as arguments.
//
//     EventTreeMigrationEmbedder OUTPUT.swift 0001_initial.sql 0002_….sql …
//
// Each file must be named NNNN_description.sql, numbered 1, 2, 3… without gaps.
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else { fail("usage: EventTreeMigrationEmbedder OUTPUT FILE.sql…") }

var entries: [String] = []
for (index, path) in arguments.dropFirst().enumerated() {
    let url = URL(fileURLWithPath: path)
    let name = url.deletingPathExtension().lastPathComponent
    guard let number = Int(name.prefix { $0.isNumber }), name.dropFirst(4).first == "_" else {
        fail("\(url.lastPathComponent): a migration is named NNNN_description.sql")
    }
    guard number == index + 1 else {
        fail("\(url.lastPathComponent): expected migration number \(index + 1); migrations are numbered without gaps")
    }
    guard let sql = try? String(contentsOf: url, encoding: .utf8) else { fail("cannot read \(path)") }
    // A raw string delimiter longer than any run of # in the text.
    var longest = 0
    var run = 0
    for character in sql {
        run = character == "#" ? run + 1 : 0
        longest = max(longest, run)
    }
    let hashes = String(repeating: "#", count: longest + 1)
    entries.append("""
            Migration(version: \(number), name: "\(name)", sql: \(hashes)\"\"\"
        \(sql)
        \"\"\"\(hashes)),
        """)
}

let source = """
    // Generated at build time by EventTreeMigrationEmbedder from Migrations/*.sql. Do not edit.

    extension Migration {
        /// Every migration, in order: the schema's only source, embedded into the binary.
        static let all: [Migration] = [
    \(entries.joined(separator: "\n"))
        ]
    }

    """
do {
    let existing = try? String(contentsOfFile: output, encoding: .utf8)
    if existing != source { try source.write(toFile: output, atomically: true, encoding: .utf8) }
} catch {
    fail("cannot write \(output): \(error)")
}
