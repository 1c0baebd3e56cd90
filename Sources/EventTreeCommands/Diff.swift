import ArgumentParser
import EventTree
import EventTreeReplay
import EventTreeReport

/// `eventtree diff OLD NEW`: which events changed fate between two recordings.
struct Diff: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two recordings of the same program: which events changed fate, and from which step.",
        discussion: """
            Pairs the raises the app made itself (not those its handlers made) by their order, type and \
            origin path, so that an added or removed raise leaves the rest paired; compares each pair's \
            result, stopping handler and steps. Exits 0 when no event changed fate and no raise was added \
            or removed, 1 when some did (as diff does), 2 when a journal cannot be read.
            """)

    @Argument(help: ArgumentHelp("The first recording (never modified).", valueName: "old"), completion: .file())
    var old: String

    @Argument(help: ArgumentHelp("The second recording (never modified).", valueName: "new"), completion: .file())
    var new: String

    @Option(help: "The session of the first recording (default: its last one).")
    var oldSession: Int?

    @Option(help: "The session of the second recording (default: its last one).")
    var newSession: Int?

    @Option(help: "Output format: table (a readable diff) or json.")
    var format: OutputFormat = .table

    mutating func run(on terminal: CommandTerminal) throws {
        let diff = try RecordingDiff(
            old: old, session: oldSession.map(SessionID.init(rawValue:)),
            new: new, session: newSession.map(SessionID.init(rawValue:)))
        switch format {
        case .json, .jsonl:
            terminal.write(Self.json(diff).text + "\n")
        case .table, .csv:
            terminal.write(diff.mappingText { VisibleText.shown($0) }.summary + "\n")
        }
        if !diff.isSame { throw ExitCode(EventTreeCommand.findingsStatus) }
    }

    private static func json(_ diff: RecordingDiff) -> JSONValue {
        func raise(_ raise: RecordingDiff.Raise) -> JSONValue {
            .object([
                ("event_id", .integer(raise.id.rawValue)), ("event_type", .string(raise.typeName)),
                ("origin_path", .string(raise.originPath)), ("fate", .string(raise.fate)),
            ])
        }
        func step(_ step: TraceStep) -> JSONValue {
            .object([
                ("step", step.number.map(JSONValue.integer) ?? .null), ("event_type", .string(step.eventType)),
                ("node_path", .string(step.nodePath)), ("phase", .string("\(step.phase)")),
                ("handler_label", step.handlerLabel.map(JSONValue.string) ?? .null), ("outcome", .string(step.outcome)),
            ])
        }
        return .object([
            ("same", .bool(diff.isSame)), ("paired", .integer(diff.paired)),
            ("changed", .array(diff.changed.map { change in
                .object([
                    ("old", raise(change.old)), ("new", raise(change.new)),
                    ("first_differing_step", change.steps.firstDifferingStep.map(step) ?? .null),
                    ("old_steps", .array(change.old.steps.map(step))),
                    ("new_steps", .array(change.new.steps.map(step))),
                ])
            })),
            ("removed", .array(diff.removed.map(raise))), ("added", .array(diff.added.map(raise))),
        ])
    }
}
