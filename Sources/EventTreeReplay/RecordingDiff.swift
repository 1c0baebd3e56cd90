import EventTree
import EventTreeJournal

/// Which events changed fate between two recordings of the same program (a UI test on
/// `main` and on a branch, say): the raises the app made itself are paired by their order,
/// type and origin path, and each pair is compared by its result, the handler that stopped
/// or answered it, and every step it led to (the raises it caused included), with the
/// rule ``StepDiff`` applies for `LiveReplay` too.
///
/// ```swift
/// let diff = try RecordingDiff(old: "main.eventtree", new: "branch.eventtree")
/// for change in diff.changed { print(change) }
/// ```
public struct RecordingDiff: Sendable {
    /// One raise the app made, with its fate.
    public struct Raise: Sendable, Hashable, CustomStringConvertible {
        /// The event's id in its journal.
        public let id: EventID
        /// Its type.
        public let typeName: String
        /// The node it was raised at.
        public let originPath: String
        /// How it ended, with the handler that stopped or answered it (`consumed by gate`).
        public let fate: String
        /// The steps it led to (its own and those of the raises it caused, in recorded
        /// order), each numbered as `explain` numbers its event's route.
        public let steps: [TraceStep]

        /// What pairs it with a raise of the other recording.
        var key: String { "\(typeName) at \(originPath)" }

        /// `event ID (Type at path): fate`.
        public var description: String { "event \(id.rawValue) (\(typeName) at \(originPath)): \(fate)" }
    }

    /// A pair of raises whose fate differs.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// The raise in the old recording.
        public let old: Raise
        /// The raise in the new one.
        public let new: Raise
        /// How their steps differ.
        public var steps: StepDiff { StepDiff(old: old.steps, new: new.steps) }

        /// The first step that differs, named as `explain` numbers it (`step 2`, or `step 3
        /// of LoadFailed` for a step of an event the raise led to), or `nil` when only the
        /// result does.
        public var firstDifferingStep: String? { steps.firstDifferingStepName(raiseType: old.typeName) }

        /// The pair, its fates, and a −/+ diff of its steps.
        public var description: String {
            var text = "event \(old.id.rawValue) -> \(new.id.rawValue) (\(old.typeName) at \(old.originPath)): \(old.fate) -> \(new.fate)"
            if let step = firstDifferingStep { text += ", from \(step)" }
            let diff = steps.text
            return diff.isEmpty ? text : text + "\n" + diff
        }
    }

    /// How many raises were paired.
    public let paired: Int
    /// The paired raises whose fate changed, in the old recording's order.
    public let changed: [Change]
    /// Raises only the old recording has.
    public let removed: [Raise]
    /// Raises only the new recording has.
    public let added: [Raise]

    /// Whether no event changed fate and no raise was added or removed.
    public var isSame: Bool { changed.isEmpty && removed.isEmpty && added.isEmpty }

    /// Compares session `oldSession` of the journal at `old` with session `newSession` of the
    /// journal at `new` (each journal's last session when `nil`).
    ///
    /// - Throws: `JournalError` for a journal that cannot be read; `ReplayError` for a
    ///   session it does not have.
    public init(old: String, session oldSession: SessionID? = nil, new: String, session newSession: SessionID? = nil) throws {
        self.init(old: try Self.raises(in: old, session: oldSession), new: try Self.raises(in: new, session: newSession))
    }

    /// Compares two lists of raises: pairs them along their longest common sequence of
    /// keys (type and origin path), so that a raise added or removed leaves the rest paired.
    init(old: [Raise], new: [Raise]) {
        var changed: [Change] = []
        var removed: [Raise] = []
        var added: [Raise] = []
        var paired = 0
        for (edit, index) in editScript(from: old, to: new, same: { $0.key == $1.key }) {
            switch edit {
            case .shared:
                paired += 1
                let (before, after) = (old[index.old], new[index.new])
                if before.fate != after.fate || before.steps != after.steps { changed.append(Change(old: before, new: after)) }
            case .removed: removed.append(old[index.old])
            case .added: added.append(new[index.new])
            }
        }
        self.paired = paired
        self.changed = changed
        self.removed = removed
        self.added = added
    }

    /// The raises the app made itself in a session, with their fates and steps.
    static func raises(in path: String, session: SessionID?) throws -> [Raise] {
        try Replayer(journal: path).appRaises(session: session)
    }

    /// The same diff with every recorded text (type names, paths, labels, steps) passed
    /// through `transform`: for a tool that shows recorded text inert.
    public func mappingText(_ transform: (String) -> String) -> RecordingDiff {
        func map(_ raise: Raise) -> Raise {
            Raise(
                id: raise.id, typeName: transform(raise.typeName), originPath: transform(raise.originPath),
                fate: transform(raise.fate), steps: raise.steps.map { $0.mappingText(transform) })
        }
        return RecordingDiff(
            paired: paired, changed: changed.map { Change(old: map($0.old), new: map($0.new)) },
            removed: removed.map(map), added: added.map(map))
    }

    private init(paired: Int, changed: [Change], removed: [Raise], added: [Raise]) {
        self.paired = paired
        self.changed = changed
        self.removed = removed
        self.added = added
    }

    /// A summary line, then each change, removal and addition.
    public var summary: String {
        var lines = ["paired \(paired) raise\(paired == 1 ? "" : "s"): \(changed.count) changed fate, \(removed.count) removed, \(added.count) added"]
        lines += changed.map { "changed: \($0)" }
        lines += removed.map { "removed: \($0)" }
        lines += added.map { "added: \($0)" }
        return lines.joined(separator: "\n")
    }
}

extension Replayer {
    /// The raises the app made itself in `session` (the last one when `nil`): not those its
    /// handlers made, nor transforms or errors. Each comes with its fate and every step it
    /// led to (those of the raises it caused, of their errors and transforms included), in
    /// recorded order, numbered as `explain` numbers each event's route. What
    /// ``RecordingDiff`` and `LiveReplay` compare.
    ///
    /// - Throws: `JournalError` for a journal that cannot be read; ``ReplayError`` for a
    ///   session it does not have.
    public func appRaises(session id: SessionID? = nil) throws -> [RecordingDiff.Raise] {
        let session = try session(id)
        // Each raise's steps: those made during the raises it led to, then (in seq order) the
        // "late" ones, made after the event they belong to (or whose cause) had ended: calls
        // enqueued on the main actor, and what they raised. Their place among the others
        // depends on when the main actor ran them; their order among themselves does not.
        var raises: [(finding: ReplayFinding, steps: [NumberedStep], late: [NumberedStep])] = []
        // The app raise each event belongs to (by its cause, or the chain it is in), and the
        // seq its chain ended at.
        var owner: [EventID: (raise: Int, end: Int)] = [:]
        var lateCalls: [NumberedStep] = []
        try replayChains(session: session.id) { finding, steps in
            let root = finding.event
            let index: Int
            let end = finding.event.finishedSeq ?? Int.max
            if let cause = root.cause {
                guard let raise = owner[cause] else { return }
                index = raise.raise
                if root.id.rawValue > raise.end {
                    raises[index].late += steps
                } else {
                    raises[index].steps += steps
                }
            } else if root.kind != .error {
                index = raises.count
                raises.append((finding, steps, []))
            } else {
                return
            }
            for id in [root.id] + finding.transforms { owner[id] = (index, end) }
        } late: { step in
            // Its raise's finding may still be held back (an older raise still open).
            lateCalls.append(step)
        }
        for step in lateCalls {
            guard let raise = owner[step.event]?.raise else { continue }
            raises[raise].late.append(step)
        }
        return raises.map { raise in
            let event = raise.finding.event
            let stopper = raise.finding.stoppedBy.map { " by \($0.label)" } ?? ""
            return RecordingDiff.Raise(
                id: event.id, typeName: event.typeName, originPath: raise.finding.originPath,
                fate: "\(event.result)\(stopper)",
                steps: Self.inSeqOrder(raise.steps).map(\.step) + Self.numberingLateCalls(Self.inSeqOrder(raise.late), like: raise.steps))
        }
    }

    /// `steps` sorted by seq (the steps an undelivered step gives share its seq: kept in order).
    private static func inSeqOrder(_ steps: [NumberedStep]) -> [NumberedStep] {
        steps.enumerated().sorted { ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset) }.map(\.element)
    }

    /// The late steps' traces, each call that ran late numbered (and placed) as the step it
    /// was enqueued at: the one of `steps` of the same event and handler whose outcome is
    /// `enqueued`, taken in order.
    private static func numberingLateCalls(_ late: [NumberedStep], like steps: [NumberedStep]) -> [TraceStep] {
        var matched: Set<Int> = []
        return late.map { late in
            let step = late.step
            guard step.number == nil,
                let enqueued = steps.first(where: { candidate in
                    candidate.event == late.event && candidate.step.outcome == Outcome.Kind.enqueued.rawValue
                        && !matched.contains(candidate.seq) && candidate.step.phase == step.phase
                        && (step.handlerLabel == nil || candidate.step.handlerLabel == step.handlerLabel)
                })
            else { return step }
            matched.insert(enqueued.seq)
            return TraceStep(
                eventType: step.eventType, nodePath: enqueued.step.nodePath, phase: step.phase,
                handlerLabel: step.handlerLabel ?? enqueued.step.handlerLabel, outcome: step.outcome,
                number: enqueued.step.number)
        }
    }
}
