import EventTree
import EventTreeJournal
import EventTreeReplay
import Foundation

/// Re-raises a recorded session's events into a tree built by your own code and reports the
/// first step where the new run differs from the recording — the way a workflow replayer
/// reports non-determinism. Use it in tests to pin behaviour against a recorded session.
///
/// ```swift
/// var types = EventTypes()
/// types.register(LoggedIn.self)
/// let report = try LiveReplay(journal: "session.eventtree", types: types).run { bus in
///     let app = AppCoordinator(bus: bus)   // builds its nodes and handlers as in production
///     return [app.node]
/// }
/// #expect(report.difference == nil, "\(report)")
/// ```
///
/// Only raises made by the app itself are re-raised (not those its handlers made, nor
/// transforms or errors: the new run produces its own). The tree is what your code builds:
/// recorded tree changes are not replayed. Steps are compared by event type, node path,
/// phase, handler label and outcome.
public struct LiveReplay {
    /// A recorded raise to re-raise.
    struct Recorded {
        let id: EventID
        let typeName: String
        let payload: String
        let originPath: String
        let mode: DeliveryMode
        let policy: FailurePolicy
        let end: Int
    }

    private let reader: JournalReader
    private let session: SessionID
    private let types: EventTypes

    /// Opens the journal and picks a session (the last one when `session` is `nil`).
    ///
    /// - Throws: ``JournalError`` for an unreadable journal; `ReplayError` when it has
    ///   no such session.
    public init(journal path: String, session: SessionID? = nil, types: EventTypes) throws {
        reader = try JournalReader(path: path)
        let sessions = try reader.sessionIDs()
        if let session {
            guard sessions.contains(session) else { throw ReplayError.unknownSession(session) }
            self.session = session
        } else {
            guard let last = sessions.last else { throw ReplayError.noSessions }
            self.session = last
        }
        self.types = types
    }

    /// Builds a fresh tree with `build`, re-raises every recorded raise at the node of the
    /// same path, and compares each one's steps (those of the raises it caused included)
    /// with the recording, stopping at the first difference.
    ///
    /// - Parameter build: Receives the bus to build on; returns the nodes to keep alive
    ///   during the replay (their descendants are found by path through them).
    public func run(build: (EventBus) throws -> [EventNode]) throws -> LiveReplayReport {
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder, process: "live-replay")
        let roots = try build(bus)
        var replayed = 0
        var skipped: [LiveReplayReport.Skipped] = []
        for raise in try recordedRaises() {
            let expected = try recordedSteps(of: raise)
            guard let node = find(raise.originPath, from: roots) else {
                let difference = LiveReplayReport.Difference(
                    event: raise.id, eventType: raise.typeName, stepIndex: 0, expected: expected.map(\.description),
                    actual: ["no node at \(raise.originPath) in the new tree"])
                return LiveReplayReport(replayed: replayed, skipped: skipped, difference: difference)
            }
            recorder.clear()
            guard try types.raise(typeName: raise.typeName, payload: raise.payload, at: node, mode: raise.mode, policy: raise.policy) != nil
            else {
                skipped.append(.init(event: raise.id, eventType: raise.typeName, reason: "type \(raise.typeName) is not registered in EventTypes"))
                continue
            }
            replayed += 1
            let actual = recorder.steps
            if actual != expected {
                let index = zip(expected, actual).prefix { $0 == $1 }.count
                let difference = LiveReplayReport.Difference(
                    event: raise.id, eventType: raise.typeName, stepIndex: index,
                    expected: expected.map(\.description), actual: actual.map(\.description))
                return LiveReplayReport(replayed: replayed, skipped: skipped, difference: difference)
            }
        }
        withExtendedLifetime(roots) {}
        return LiveReplayReport(replayed: replayed, skipped: skipped, difference: nil)
    }

    private func find(_ path: String, from roots: [EventNode]) -> EventNode? {
        var pending = roots.map { root -> EventNode in
            var top = root
            while let parent = top.parent { top = parent }
            return top
        }
        while let node = pending.popLast() {
            if node.path == path { return node }
            if path.hasPrefix(node.path + "/") { pending.append(contentsOf: node.children) }
        }
        return nil
    }

    private func recordedRaises() throws -> [Recorded] {
        var raises: [Recorded] = []
        var tree = JournalTree()
        let changes = try reader.treeChanges(of: session)
        let events = try reader.events(of: session)
        while let event = events.current {
            while let change = changes.current, change.seq < event.id.rawValue {
                tree.apply(change.change, to: change.node)
                try changes.advance()
            }
            if event.cause == nil && event.transformedFrom == nil && event.kind != .error {
                raises.append(Recorded(
                    id: event.id, typeName: event.typeName, payload: event.payload ?? "{}",
                    originPath: tree.path(of: event.origin), mode: event.mode, policy: event.policy,
                    end: event.finishedSeq ?? event.id.rawValue))
            }
            try events.advance()
        }
        return raises
    }

    /// The recorded steps of a raise and of everything it caused (its batch).
    private func recordedSteps(of raise: Recorded) throws -> [TraceStep] {
        var steps: [TraceStep] = []
        try reader.forEachRow("""
            SELECT event_type, node_path, phase, handler_label, outcome FROM delivery_history
            WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq
            """, [.integer(session.rawValue), .integer(raise.id.rawValue), .integer(raise.end)]) { row in
            steps.append(TraceStep(
                eventType: row.text(0) ?? "?", nodePath: row.text(1) ?? "?", phase: Phase(name: row.text(2) ?? "") ?? .target,
                handlerLabel: row.text(3), outcome: row.text(4) ?? "?"))
        }
        return steps
    }
}

/// What a live replay found.
public struct LiveReplayReport: Sendable, CustomStringConvertible {
    /// Raises re-raised.
    public let replayed: Int
    /// Raises that could not be re-raised, and why.
    public let skipped: [Skipped]
    /// The first difference, or `nil` when the new run matched the recording.
    public let difference: Difference?

    /// A raise left out.
    public struct Skipped: Sendable, Hashable {
        /// The recorded event.
        public let event: EventID
        /// Its type.
        public let eventType: String
        /// Why it was left out.
        public let reason: String
    }

    /// The first event whose steps differ.
    public struct Difference: Sendable, Hashable {
        /// The recorded event.
        public let event: EventID
        /// Its type.
        public let eventType: String
        /// The index of the first differing step.
        public let stepIndex: Int
        /// The recorded steps.
        public let expected: [String]
        /// The new run's steps.
        public let actual: [String]

        /// A −/+ diff from the first differing step: shared steps with two spaces, recorded
        /// steps with `-`, new ones with `+`.
        public var diff: String {
            var lines = expected.prefix(stepIndex).map { "  " + $0 }
            lines += expected.dropFirst(stepIndex).map { "- " + $0 }
            lines += actual.dropFirst(stepIndex).map { "+ " + $0 }
            return lines.joined(separator: "\n")
        }
    }

    /// A summary, with the diff when the runs differ.
    public var description: String {
        var text = "replayed \(replayed) raise\(replayed == 1 ? "" : "s")"
        if !skipped.isEmpty { text += ", skipped \(skipped.count)" }
        guard let difference else { return text + ": no difference" }
        return text + "; event \(difference.event.rawValue) (\(difference.eventType)) differs at step \(difference.stepIndex + 1):\n" + difference.diff
    }
}
