import ArgumentParser
import Foundation
import EventTreeJournal
import EventTreeReplay
import EventTreeReport

/// The `eventtree` tool: records the demo, and reads journals back to rebuild trees,
/// replay delivery and explain what happened.
public struct EventTreeCommand: ParsableCommand {
    /// The root command's configuration.
    public static let configuration = CommandConfiguration(
        commandName: "eventtree",
        abstract: "Read EventTree journals: rebuild the tree, replay delivery, explain lost and consumed events.",
        version: "eventtree \(EventTreeCommand.version) (journal schema version \(Journal.schemaVersion))",
        subcommands: [Demo.self, Sessions.self, Replay.self, Explain.self, Topology.self, Query.self, Tail.self, Diff.self, Verify.self, Report.self, Export.self, Extract.self, Prune.self, Upgrade.self]
            + shippingCommands)

    /// `ship`, in a tool built with the PostgreSQL trait.
    #if PostgreSQL
    private static let shippingCommands: [any ParsableCommand.Type] = [Ship.self]
    #else
    private static let shippingCommands: [any ParsableCommand.Type] = []
    #endif

    /// The subcommands' names.
    static var commandNames: [String] {
        configuration.subcommands.map { $0._commandName }
    }

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// The tool's version.
    public static let version = "0.1.0"

    /// Exit status for findings (`--fail-on`).
    public static let findingsStatus: Int32 = 1
    /// Exit status for bad input (a journal that cannot be read, an unknown id, a malformed value).
    public static let badInputStatus: Int32 = 2

    /// Parses `arguments`, runs the command, and returns the exit status. Errors are
    /// printed as one line `error: …` on `terminal`'s standard error.
    public static func run(_ arguments: [String], terminal: CommandTerminal = .standard) -> Int32 {
        if let first = arguments.first, !first.hasPrefix("-"), first != "help", !commandNames.contains(first) {
            let nearest = CommandSuggestion.nearest(to: first, among: commandNames).map { "did you mean '\($0)'? " } ?? ""
            terminal.writeError(errorLine("'\(first)' is not an eventtree command; \(nearest)'eventtree --help' lists them"))
            return badInputStatus
        }
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? TerminalCommand {
                try command.run(on: terminal)
            } else {
                try command.run()
            }
            return 0
        } catch let error as JournalError {
            terminal.writeError(errorLine("\(error)"))
            return badInputStatus
        } catch let error as ReplayError {
            terminal.writeError(errorLine("\(error)"))
            return badInputStatus
        } catch let error as CommandFailure {
            terminal.writeError(errorLine(error.message))
            return error.status
        } catch let code as ExitCode {
            // The command said what it had to on standard output (a verdict).
            return code.rawValue
        } catch {
            let status = exitCode(for: error).rawValue
            if status == 0 {
                let help = fullMessage(for: error)
                terminal.write(help.hasSuffix("\n") ? help : help + "\n")
                return 0
            }
            // ArgumentParser's message alone (its usage and help lines are left to `--help`),
            // on one line: a list of allowed values comes one per line.
            let line = message(for: error).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
            terminal.writeError(errorLine(line))
            return badInputStatus
        }
    }

    /// `error: message` as one line: line breaks and other control characters in it (a
    /// path may hold any of them) are written as escapes (see ``VisibleText``).
    static func errorLine(_ message: String) -> String {
        "error: " + VisibleText.shown(message, limit: nil) + "\n"
    }
}

/// A command that writes through a ``Terminal`` (so that tests can capture it).
protocol TerminalCommand: ParsableCommand {
    mutating func run(on terminal: CommandTerminal) throws
}

extension TerminalCommand {
    mutating func run() throws {
        try run(on: .standard)
    }
}

/// A failure a command reports with its own message and status.
struct CommandFailure: Error {
    let message: String
    var status: Int32 = EventTreeCommand.badInputStatus
}
