import ArgumentParser
import EventTreeJournal

/// The `eventtree` tool: records the demo, and reads journals back to rebuild trees,
/// replay delivery and explain what happened.
public struct EventTreeCommand: ParsableCommand {
    /// The root command's configuration.
    public static let configuration = CommandConfiguration(
        commandName: "eventtree",
        abstract: "Read EventTree journals: rebuild the tree, replay delivery, explain lost and consumed events.",
        subcommands: [Demo.self, Sessions.self, Replay.self, Explain.self, Topology.self, Query.self, Tail.self])

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Exit status for findings (`--fail-on`).
    public static let findingsStatus: Int32 = 1
    /// Exit status for bad input (a journal that cannot be read, an unknown id, a malformed value).
    public static let badInputStatus: Int32 = 2

    /// Parses `arguments`, runs the command, and returns the exit status. Errors are
    /// printed as one line `error: …` on `terminal`'s standard error.
    public static func run(_ arguments: [String], terminal: Terminal = .standard) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? TerminalCommand {
                try command.run(on: terminal)
            } else {
                try command.run()
            }
            return 0
        } catch let error as JournalError {
            terminal.writeError("error: \(error)\n")
            return badInputStatus
        } catch let error as CommandFailure {
            terminal.writeError("error: \(error.message)\n")
            return error.status
        } catch {
            let status = exitCode(for: error).rawValue
            let message = fullMessage(for: error)
            if status == 0 {
                terminal.write(message.hasSuffix("\n") ? message : message + "\n")
                return 0
            }
            let line = message.split(separator: "\n").first.map(String.init) ?? "\(error)"
            let trimmed = line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line
            terminal.writeError("error: \(trimmed)\n")
            return badInputStatus
        }
    }
}

/// A command that writes through a ``Terminal`` (so that tests can capture it).
protocol TerminalCommand: ParsableCommand {
    mutating func run(on terminal: Terminal) throws
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
