import EventTreeCommands
import Foundation
import FuzzSupport

/// libFuzzer's entry point: runs an `eventtree` command line built from the input (a
/// reading subcommand, a journal, then options and values: filters, ids, formats, heads,
/// files, hostile strings) against a valid journal, through `EventTreeCommand.run`. Any
/// command line must end with exit 0, 1 (a finding) or 2 with exactly one `error:` line;
/// JSON output must parse; the journal must be left as it was. A crash or a hang is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let arguments = CommandLineBuilder.arguments(from: &input)
    if KnownBugs.reachedByCommandLine(arguments) { return 0 }
    if ProcessInfo.processInfo.environment["FUZZ_TRACE"] != nil {
        FileHandle.standardError.write(Data("eventtree \(arguments.map { "'\($0)'" }.joined(separator: " "))\n".utf8))
    }
    let output = Output()
    let status = EventTreeCommand.run(arguments, terminal: output.terminal)
    check(arguments, status: status, output)
    return 0
}

/// What a command wrote.
private final class Output: @unchecked Sendable {
    // Safe: a command runs on the fuzzer's one thread.
    var standard = ""
    var error = ""

    var terminal: CommandTerminal {
        CommandTerminal(
            write: { self.standard += $0 }, writeError: { self.error += $0 }, isColorful: false, showsProgress: false)
    }
}

/// The command line's contract, checked.
private func check(_ arguments: [String], status: Int32, _ output: Output) {
    let line = arguments.map { "'\($0)'" }.joined(separator: " ")
    switch status {
    case 0, 1:
        expect(status == 0 || output.error.isEmpty || output.error.hasPrefix("error: "), "exit \(status), stderr \(output.error.debugDescription): \(line)")
    case 2:
        let oneLine = output.error.dropLast().firstIndex(of: "\n") == nil
        expect(
            output.error.hasPrefix("error: ") && output.error.hasSuffix("\n") && oneLine,
            "exit 2 needs one error: line, got \(output.error.debugDescription): \(line)")
    default:
        fail("exit \(status): \(line)")
    }
    let format = CommandLineBuilder.format(of: arguments)
    if status == 0, !arguments.contains(where: CommandLineBuilder.asksForHelp) {
        let documents = format == "jsonl" ? output.standard.split(separator: "\n").map(String.init) : [output.standard]
        for document in documents where format == "json" || format == "jsonl" {
            expect(
                (try? JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])) != nil,
                "--format \(format) wrote something that is not JSON: \(document.prefix(200).debugDescription): \(line)")
        }
    }
    expect(
        FileManager.default.contents(atPath: CommandLineBuilder.journals[0]).map(Array.init) == SeedJournals.all[0].bytes,
        "the command changed the journal: \(line)")
}

/// Builds command lines from the input.
enum CommandLineBuilder {
    /// Copies of the seed journals the commands read (never the seeds themselves).
    static let journals: [String] = SeedJournals.all.map { seed in
        let path = Scratch.directory + "/read-\(seed.name).eventtree"
        _ = FileManager.default.createFile(atPath: path, contents: Data(seed.bytes))
        return path
    }

    /// Files a path option may name: a journal, a checkpoint file holding the demo's head
    /// (one signed with a key nobody has, one with a bad signature), an empty file, a
    /// directory, garbage, nothing.
    static let files: [String] = {
        let head = SeedJournals.demo.head?.description ?? "1:" + String(repeating: "0", count: 64)
        let made: [(String, String)] = [
            ("checkpoint", head + "\n"),
            ("signed", head + " " + Data(repeating: 7, count: 64).base64EncodedString() + "\n"),
            ("badsig", head + " not*base64\n"),
            ("empty", ""),
            ("garbage", "\u{0}\u{FF}SQLite format 3\u{0}"),
            ("key", Data(repeating: 1, count: 32).base64EncodedString()),
        ]
        return made.map { name, text in
            let path = Scratch.directory + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return path
        } + [journals[0], Scratch.directory, Scratch.directory + "/missing", "/dev/null", "", "-", "file:x", "./"]
    }()

    static let subcommands = [
        "sessions", "replay", "topology", "query", "tail", "verify", "explain", "report", "help", "export",
    ]

    /// What an option's value is.
    enum Value { case none, number, node, type, format, classes, phase, outcome, head, file }

    /// Every option of the reading commands (each command refuses the others').
    static let options: [(name: String, value: Value)] = [
        ("--node", .node), ("--type", .type), ("--since", .number), ("--until", .number), ("--session", .number),
        ("--limit", .number), ("--only", .classes), ("--fail-on", .classes), ("--format", .format), ("--at", .number),
        ("--last", .number), ("--phase", .phase), ("--outcome", .outcome), ("--without-handler", .number),
        ("--ignore-consumption", .none), ("--expect-head", .head), ("--checkpoint", .file), ("--public-key", .file),
        ("--help", .none), ("-h", .none), ("--version", .none), ("--", .none),
    ]

    static let numbers = ["1e11", "0x10", "-0", "+5", "99999999999999999999", " 1", "", "1.5", "nan", "\u{663}"]

    static let words = [
        "%", "_", "", "-", "--", "=", "\u{1F389}", "e\u{301}", "a\u{0}b", "\u{1B}[2J", "any Trackable", "PostLiked",
        "NamedEvent", "Ping", "app//tabs", "/", "app/",
    ]

    static let formats = ["table", "json", "jsonl", "csv", "JSON", "", "chrome-trace", "dot", "mermaid"]
    static let classes = ["delivered,consumed", ",", "lost,,diverged", "bogus", "failed", "unhandled", "diverged"]
    static let phases = ["capture", "target", "bubble", "propagate", "Capture"]
    static let outcomes = ["ignored", "handled", "consumed", "consumedImmediately", "transformed", "answered", "failed", "undelivered"]

    static var heads: [String] {
        let head = SeedJournals.demo.head
        let hex = head.flatMap { $0.description.split(separator: ":").last.map(String.init) } ?? String(repeating: "0", count: 64)
        return [
            head?.description ?? "", "\(Int.max):\(hex)", "\(Int.min):\(hex)", "0:\(hex)", "-1:\(hex)",
            "1:" + String(repeating: "g", count: 64), "1:" + String(repeating: "\u{E9}", count: 64),
            "1:" + String(repeating: "+f", count: 32), "1:" + String(hex.dropLast()), ":", "x:y", "1:",
        ]
    }

    /// A subcommand, a journal, then options, each usually with a value of its kind (as
    /// `--name value` or `--name=value`), and now and then a stray word.
    static func arguments(from input: inout FuzzInput) -> [String] {
        let seed = SeedJournals.all[Int(input.byte() % 2)]
        var arguments = [input.pick(subcommands)]
        // `export` needs a format of its own.
        if arguments[0] == "export" && input.byte() % 4 != 0 { arguments += ["--format", input.pick(["jsonl", "chrome-trace"])] }
        if input.byte() % 8 != 0 {
            arguments.append(journals[SeedJournals.all.firstIndex { $0.name == seed.name } ?? 0])
        }
        if arguments[0] == "explain" && input.byte() % 8 != 0 { arguments.append(String(input.pick(seed.eventIDs))) }
        for _ in 0..<8 where !input.isAtEnd {
            let choice = input.byte()
            guard choice % 8 != 0 else {
                arguments.append(value(of: input.pick([.number, .node, .file]), seed, &input))
                continue
            }
            let option = input.pick(options)
            guard option.value != .none, choice % 8 != 1 else {
                arguments.append(option.name)
                continue
            }
            let value = value(of: option.value, seed, &input)
            arguments += choice % 8 == 2 ? [option.name + "=" + value] : [option.name, value]
        }
        // `report` writes a page beside the journal unless told to write to standard output.
        return arguments.map(harmless) + (arguments[0] == "report" ? ["--output", "-"] : [])
    }

    /// A value of the kind an option takes: often valid, at the edges, or hostile.
    static func value(of kind: Value, _ seed: SeedJournal, _ input: inout FuzzInput) -> String {
        switch input.byte() % 8 {
        case 0: return input.string(upTo: 24)
        case 1: return input.pick(words)
        default: break
        }
        switch kind {
        case .none, .number:
            switch input.byte() % 4 {
            case 0: return input.pick(numbers)
            case 1: return String(input.pick(seed.eventIDs) + Int(input.byte() % 5) - 2)
            default: return String(input.interestingInt())
            }
        case .node: return input.pick(seed.nodePaths)
        case .type: return input.pick(["PostLiked", "OpenURL", "NamedEvent", "Ping", "Nested", "Broken", "Ask"])
        case .format: return input.pick(formats)
        case .classes: return input.pick(classes)
        case .phase: return input.pick(phases)
        case .outcome: return input.pick(outcomes)
        case .head: return input.pick(heads)
        case .file: return input.pick(files)
        }
    }

    /// Keeps a command line from doing what is not a bug: `demo`, `upgrade` and `--output`
    /// write files, and `tail --follow` waits for more rows until it is stopped.
    static func harmless(_ argument: String) -> String {
        let writes = ["demo", "upgrade"].contains(argument) || argument.hasPrefix("-o") || argument.hasPrefix("--output")
        return writes || argument.hasPrefix("--follow") || argument.hasPrefix("--seconds") ? "x" + argument : argument
    }

    /// The output format the command line asks for (the last `--format`).
    static func format(of arguments: [String]) -> String {
        var format = "table"
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { break }
            if argument == "--format", index + 1 < arguments.count { format = arguments[index + 1] }
            if argument.hasPrefix("--format=") { format = String(argument.dropFirst(9)) }
        }
        return format
    }

    /// Whether `argument` makes the command print its help (or the version) and exit 0:
    /// `help`, `--help`, `--version`, or a cluster of short options with `h` among them
    /// (swift-argument-parser reads `-hm1 e d` as `-h -m …`, as `ls -lh` would).
    static func asksForHelp(_ argument: String) -> Bool {
        if ["help", "--help", "--version"].contains(argument) { return true }
        return argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.dropFirst().contains("h")
    }
}
