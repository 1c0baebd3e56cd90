import ArgumentParser
import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeReport

/// `eventtree explain JOURNAL EVENT_ID`: the event's route step by step, and why a node
/// did or did not get it.
struct Explain: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain what happened to one event, step by step, and why a node did (not) get it.")

    @OptionGroup var options: PictureArguments

    @Argument(help: "The event's id (event_id in event_history).")
    var event: Int?

    @Option(help: "Explain why the node at this path did or did not get the event.")
    var node: String?

    @Option(name: .customLong("without-handler"), help: "Replay as if this handler (handler_id) did not exist: who would have received it.")
    var withoutHandler: Int?

    @Flag(name: .customLong("ignore-consumption"), help: "Replay as if no handler consumed the event.")
    var ignoreConsumption = false

    @Flag(help: "At each step, say why every handler that was not called took no part.")
    var verbose = false

    mutating func validate() throws {
        // `explain --from URL EVENT`: the one positional is the event, not a journal file.
        if event == nil, options.file.from != nil, let text = options.file.file, let id = Int(text) {
            event = id
            options.file.file = nil
        }
        guard event != nil else { throw ValidationError("Missing expected argument '<event>'") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        try options.read(reusingCopy: true) { journal in try read(journal, on: terminal) }
    }

    private func read(_ journal: String, on terminal: CommandTerminal) throws {
        let explanation = try Replayer.explain(
            journal: journal, event: EventID(rawValue: event ?? 0), node: node,
            withoutHandler: withoutHandler.map(HandlerID.init), ignoringConsumption: ignoreConsumption)
        if let diagram = options.format.diagram {
            let event = explanation.finding.event
            let tree = try Replayer.topology(ofJournal: journal, session: event.session, at: event.id.rawValue - 1)
            terminal.write(Diagram(tree: tree, explanation: explanation).rendered(as: diagram))
            return
        }
        switch options.format.output ?? .table {
        case .json, .jsonl:
            terminal.write(FindingEncoding.explanation(explanation).text + "\n")
        case .csv:
            terminal.write(steps(explanation).rendered(as: .csv))
        case .table:
            terminal.write(text(explanation, color: terminal.isColorful))
        }
    }

    private func steps(_ explanation: Explanation) -> Table {
        Table(
            columns: ["step", "node_path", "phase", "reach", "calls"],
            rows: explanation.steps.map { step in
                [.integer(step.number), .text(step.nodePath), .text(step.phase.description), .text(step.reach.description),
                 .text(step.calls.map { "\($0.handler.label) -> \($0.outcomeDescription)" }.joined(separator: "; "))]
            })
    }

    private func text(_ explanation: Explanation, color: Bool) -> String {
        let finding = explanation.finding
        let bold = { (text: String) in color ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }
        // Recorded text (names, labels, messages, and the sentences made of them) as
        // VisibleText shows it: it can neither drive the terminal nor add a line.
        let shown = { (text: String) in VisibleText.shown(text) }
        let sentence = { (text: String) in VisibleText.shown(text, limit: VisibleText.lineLimit) }
        var text = "Event \(finding.event.id.rawValue) \(shown(finding.event.typeName)) (\(finding.event.kind), \(finding.event.mode)) raised at \(shown(finding.originPath)), session \(finding.event.session.rawValue)\n"
        if !finding.transforms.isEmpty {
            text += "Transformed into event\(finding.transforms.count == 1 ? "" : "s") \(finding.transforms.map { String($0.rawValue) }.joined(separator: ", "))\n"
        }
        text += bold(sentence(finding.summary)) + "\n"
        let redacted = finding.event.payload.map(Redaction.redactedPaths(inPayload:)) ?? []
        if !redacted.isEmpty {
            text += "Redacted before it was stored: \(redacted.map(shown).joined(separator: ", "))\n"
        }
        if explanation.causes.count > 1 {
            text += "\nCause chain (outermost first):\n"
            for (index, cause) in explanation.causes.enumerated() {
                text += "  " + sentence(cause.description) + "\n"
                if index == 0 && explanation.omittedCauses > 0 {
                    text += "  … \(explanation.omittedCauses) more causes (\(explanation.omittedCauses + explanation.causes.count - 1) in all) …\n"
                }
            }
        }
        if !explanation.consequences.isEmpty {
            text += "\nWhat it caused:\n"
            text += explanation.consequences.map { String(repeating: "  ", count: $0.depth) + sentence($0.description) + "\n" }.joined()
        }
        if let verdict = explanation.node {
            text += "\n" + bold("\(shown(verdict.nodePath)) \(verdict.received ? "got" : "did not get") event \(finding.event.id.rawValue)") + ": " + sentence(verdict.summary) + "\n"
        }
        if let variation = explanation.variation {
            let receivers = explanation.steps.flatMap { step in step.calls.filter { $0.outcome == nil } }
            text += "\n" + bold("What if, \(shown(variation))") + ": "
            text += receivers.isEmpty
                ? "nobody else would have received it\n"
                : "it would also have reached " + receivers.map { "\(shown($0.handler.label)) at \(shown($0.handler.nodePath)) (\($0.handler.phase))" }.joined(separator: ", ") + "\n"
        }
        text += "\nRoute:\n"
        let table = Table(
            columns: ["step", "node", "phase", "reach", "calls"],
            rows: explanation.steps.map { step in
                let calls = step.calls.map { "\($0.handler.label) -> \($0.outcomeDescription)" }
                let skipped = step.reach == .reached ? skippedText(step) : []
                let missed = step.reach == .notReached
                    ? finding.missedHandlers.filter { $0.nodePath == step.nodePath && $0.phase == step.phase }
                        .map { "\($0.label) would have been called" }
                    : []
                let lost = step.lost.map { "\($0.label) lost: the node was released" }
                return [.integer(step.number), .text(step.nodePath), .text(step.phase.description), .text(step.reach.description),
                        .text((calls + skipped + missed + lost).joined(separator: "; "))]
            })
        text += table.rendered(as: .table).split(separator: "\n", omittingEmptySubsequences: true)
            .map { "  " + $0 + "\n" }.joined()
        return text
    }

    /// The handlers of a reached step that took no part: each with its reason under
    /// `--verbose`, otherwise counted by reason ("3 handlers for other types").
    private func skippedText(_ step: Explanation.StepReport) -> [String] {
        if step.skipped.isEmpty { return step.calls.isEmpty ? ["no handler"] : [] }
        if verbose { return step.skipped.map { "\($0.label): \($0.reason)" } }
        var counts: [(kind: String, count: Int)] = []
        for skipped in step.skipped {
            let kind = switch skipped.cause {
            case .otherType: "other types"
            case .otherChannel: "the other channel"
            case .otherPhase: "other phases"
            }
            if let index = counts.firstIndex(where: { $0.kind == kind }) { counts[index].count += 1 } else { counts.append((kind, 1)) }
        }
        return counts.map { "\($0.count) handler\($0.count == 1 ? "" : "s") for \($0.kind)" }
    }
}
