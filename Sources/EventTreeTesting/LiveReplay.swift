import EventTree
import EventTreeJournal
import EventTreeReplay
import Foundation

/// Re-raises a recorded session's events into a tree built by your own code and reports
/// every step where the new run differs from the recording — the way a workflow replayer
/// reports non-determinism. Use it in tests to pin behaviour against a recorded session.
///
/// ```swift
/// var types = EventTypes()
/// types.register(LoggedIn.self)
/// let report = try LiveReplay(journal: "session.eventtree", types: types).run { bus in
///     AppCoordinator(bus: bus)   // kept alive for the whole replay
/// }
/// #expect(report.differences.isEmpty, "\(report)")
/// ```
///
/// - What is re-raised: the raises the app made itself (not those its handlers made, nor
///   transforms or errors: the new run produces its own), in recorded order, at the node
///   of the same path.
/// - Where: ``runAsync(limit:build:)`` re-raises each one as it was made: synchronously on
///   the main actor, synchronously on a thread of its own, or awaited (`raiseAsync`), as the
///   journal's thread column says. So a synchronous raise that reached a main-actor handler
///   off the main actor fails there again, as it did in the recording.
///   ``run(limit:isolation:build:)`` re-raises every one synchronously on the calling thread,
///   with its isolation: enough for apps whose raises were all made where it is called (on
///   the main actor, or anywhere when no handler is isolated to the main actor).
/// - The tree: `build` makes it, as the app does at launch. Tree changes recorded after
///   the first raise and outside any raise (the app's own code moving, renaming or
///   releasing nodes, say when a screen is dismissed) are replayed into the live tree at
///   the same point, so an unchanged app does not differ there; a node created then is
///   made bare (no handlers) unless the app already made one at that path. Tree changes
///   made *during* a raise are the app's handlers' to make again: they are not replayed.
/// - What is compared: each raise's steps (those of the raises it caused included) by
///   event type, node path, phase, handler label and outcome.
public struct LiveReplay {
    /// A recorded raise to re-raise.
    struct Recorded {
        let event: RecordedEvent
        let id: EventID
        let typeName: String
        let payload: String
        let originPath: String
        let mode: DeliveryMode
        let policy: FailurePolicy
        let isolation: RaiseIsolation
    }

    /// A recorded tree change to replay, with the paths it concerns.
    struct Change {
        let seq: Int
        let path: String
        let change: JournalTree.Change
        let parentPath: String?
    }

    /// One thing to do, in recorded order.
    enum Action {
        case raise(Recorded)
        case change(Change)
    }

    private let reader: JournalReader
    /// Reads the recording's steps as it reads the live run's.
    private let replayer: Replayer
    private let session: SessionID
    private let types: EventTypes

    /// Opens the journal and picks a session (the last one when `session` is `nil`).
    ///
    /// - Throws: `JournalError` for an unreadable journal; `ReplayError` when it has
    ///   no such session.
    public init(journal path: String, session: SessionID? = nil, types: EventTypes) throws {
        reader = try JournalReader(path: path)
        replayer = try Replayer(journal: path)
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

    /// Builds a fresh tree with `build`, then re-raises every recorded raise synchronously
    /// on the calling thread (and replays the recorded tree changes made outside raises),
    /// comparing each raise's steps with the recording. It does not wait for calls enqueued
    /// on the main actor (`whenRaisedElsewhere: .enqueue`): replay such an app with
    /// ``runAsync(limit:build:)``.
    ///
    /// - Parameters:
    ///   - limit: The most differences to report (the replay goes on to count the rest).
    ///   - isolation: The caller's actor, filled in by the compiler: main-actor handlers are
    ///     called when it is the main actor.
    ///   - build: Receives the bus to build on and returns what keeps the tree alive (the
    ///     app's root object, or an array of them): it is kept until the replay ends.
    public func run(
        limit: Int = 20, isolation: isolated (any Actor)? = #isolation, build: (EventBus) throws -> Any
    ) throws -> LiveReplayReport {
        let run = try Run(of: self, limit: limit)
        defer { run.close() }
        let kept = try build(run.bus)
        while let (raise, node) = run.nextRaise() {
            run.finish(raise, result: try types.raise(
                typeName: raise.typeName, payload: raise.payload, at: node, mode: raise.mode, policy: raise.policy))
        }
        let report = try run.report()
        withExtendedLifetime(kept) {}
        return report
    }

    /// Like ``run(limit:isolation:build:)``, but builds the tree on the main actor and
    /// re-raises each raise as it was made: synchronously on the main actor, synchronously
    /// on a thread of its own (which the main actor awaits), or with `raiseAsync`, awaiting
    /// main-actor handlers in route order. The calls a raise enqueued on the main actor
    /// (`whenRaisedElsewhere: .enqueue`) run before the next raise. For apps whose
    /// coordinators are `@MainActor`.
    @MainActor
    public func runAsync(limit: Int = 20, build: @MainActor (EventBus) throws -> Any) async throws -> LiveReplayReport {
        let run = try Run(of: self, limit: limit)
        defer { run.close() }
        let kept = try build(run.bus)
        while let (raise, node) = run.nextRaise() {
            let types = types
            let result: RaiseResult? = switch raise.isolation {
            case .mainActor:
                try types.raise(
                    typeName: raise.typeName, payload: raise.payload, at: node, mode: raise.mode, policy: raise.policy)
            case .elsewhere:
                try await Self.onThreadOfItsOwn { [payload = raise.payload, typeName = raise.typeName, mode = raise.mode, policy = raise.policy] in
                    try types.raise(typeName: typeName, payload: payload, at: node, mode: mode, policy: policy)
                }
            case .awaited:
                try await types.raiseAsync(
                    typeName: raise.typeName, payload: raise.payload, at: node, mode: raise.mode, policy: raise.policy)
            }
            // The calls the raise enqueued on the main actor run before the next raise.
            await run.bus.waitForEnqueuedCalls()
            run.finish(raise, result: result)
        }
        let report = try run.report()
        withExtendedLifetime(kept) {}
        return report
    }

    /// Runs `body` on a new thread (no actor, not the main thread) and returns its result.
    private static func onThreadOfItsOwn<Value: Sendable>(
        _ body: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// One replay in progress: the live bus, journaling into a temporary journal of its
    /// own, the actions left, and the raises made.
    private final class Run {
        let replay: LiveReplay
        let limit: Int
        let directory: URL
        let journal: Journal
        let bus: EventBus
        var comparison: Comparison
        var actions: IndexingIterator<[Action]>
        /// The raises to compare, in recorded order, with the live event each became (`nil`
        /// when its node was missing from the new tree).
        var raised: [(recorded: LiveReplay.Recorded, live: EventID?)] = []
        let warnings = WarningLog()

        init(of replay: LiveReplay, limit: Int) throws {
            self.replay = replay
            self.limit = limit
            actions = try replay.actions().makeIterator()
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("eventtree-live-replay-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            do {
                journal = try Journal(path: directory.appendingPathComponent("live.eventtree").path)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw error
            }
            bus = EventBus(recorder: journal, process: "live-replay")
            comparison = Comparison(limit: limit)
            // The recording's own warnings come back when the app is unchanged: kept for the
            // report rather than written to standard error.
            bus.onWarning { [warnings] in warnings.append($0) }
        }

        /// Closes the live journal and removes it.
        func close() {
            try? journal.close()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Replays tree changes up to the next raise that can be re-raised, and returns it
        /// with its node (a raise whose node the new tree lacks counts as a difference).
        func nextRaise() -> (LiveReplay.Recorded, EventNode)? {
            while let action = actions.next() {
                switch action {
                case .change(let change):
                    comparison.apply(change, on: bus)
                case .raise(let raise):
                    guard let node = bus.node(atPath: raise.originPath) else {
                        raised.append((raise, nil))
                        continue
                    }
                    return (raise, node)
                }
            }
            return nil
        }

        /// Notes the raise just made (`nil`: it could not be made, its type is not registered).
        func finish(_ raise: LiveReplay.Recorded, result: RaiseResult?) {
            guard let result else { return comparison.skip(raise) }
            raised.append((raise, result.eventID))
        }

        /// Commits the live journal and compares each raise's steps with the recording's,
        /// both read back by the replayer: the same steps, numbered the same way.
        func report() throws -> LiveReplayReport {
            try journal.flush()
            let recorded = try Dictionary(
                replay.replayer.appRaises(session: replay.session).map { ($0.id, $0.steps) },
                uniquingKeysWith: { first, _ in first })
            let live = try Dictionary(
                Replayer(journal: journal.path).appRaises().map { ($0.id, $0.steps) },
                uniquingKeysWith: { first, _ in first })
            for (raise, liveID) in raised {
                let expected = recorded[raise.id] ?? []
                if let liveID {
                    comparison.compare(raise, expected: expected, actual: live[liveID] ?? [])
                } else {
                    comparison.missingNode(raise, expected: expected)
                }
            }
            return comparison.report(warnings: warnings.lines)
        }
    }

    /// The recorded raises of the app and the tree changes to replay, in recorded order.
    private func actions() throws -> [Action] {
        var actions: [Action] = []
        var tree = JournalTree()
        let changes = try reader.treeChanges(of: session)
        let events = try reader.events(of: session)
        var firstRaise: Int?
        var busyUntil = Int.min
        func applyChanges(before seq: Int) throws {
            while let change = changes.current, change.seq < seq {
                // Before the first raise: the app's build. Inside a raise: its handlers'.
                if let firstRaise, change.seq > firstRaise, change.seq > busyUntil {
                    var parentPath: String?
                    if case let .attached(parent, _) = change.change { parentPath = tree.path(of: parent) }
                    if case let .moved(parent, _) = change.change { parentPath = tree.path(of: parent) }
                    actions.append(.change(Change(
                        seq: change.seq, path: tree.path(of: change.node), change: change.change, parentPath: parentPath)))
                }
                tree.apply(change.change, to: change.node)
                try changes.advance()
            }
        }
        while let event = events.current {
            try applyChanges(before: event.id.rawValue)
            if event.cause == nil && event.transformedFrom == nil && event.kind != .error {
                if firstRaise == nil { firstRaise = event.id.rawValue }
                actions.append(.raise(Recorded(
                    event: event, id: event.id, typeName: event.typeName, payload: event.payload ?? "{}",
                    originPath: tree.path(of: event.origin), mode: event.mode, policy: event.policy,
                    isolation: event.isolation ?? .mainActor)))
                busyUntil = max(busyUntil, event.finishedSeq ?? event.id.rawValue)
            }
            try events.advance()
        }
        // Changes after the last raise can no longer make a difference.
        while case .change? = actions.last { actions.removeLast() }
        return actions
    }
}

/// The warnings a live replay's bus gave, in order.
private final class WarningLog: @unchecked Sendable {
    // Safe: `stored` is read and written only with `lock` held.
    private let lock = Lock()
    private var stored: [String] = []

    func append(_ line: String) { lock.withLock { stored.append(line) } }

    var lines: [String] { lock.withLock { stored } }
}

/// Gathers what a live replay found.
private struct Comparison {
    let limit: Int
    var replayed = 0
    var skipped: [LiveReplayReport.Skipped] = []
    var differences: [LiveReplayReport.Difference] = []
    var differing = 0
    var treeChanges: [String] = []
    /// Bare nodes made for recorded creations: kept alive until the replay ends.
    var made: [EventNode] = []

    init(limit: Int) { self.limit = limit }

    func report(warnings: [String]) -> LiveReplayReport {
        LiveReplayReport(
            replayed: replayed, skipped: skipped, differences: differences, differing: differing, treeChanges: treeChanges,
            warnings: warnings)
    }

    mutating func skip(_ raise: LiveReplay.Recorded) {
        skipped.append(.init(event: raise.id, eventType: raise.typeName, reason: "type \(raise.typeName) is not registered in EventTypes"))
    }

    mutating func missingNode(_ raise: LiveReplay.Recorded, expected: [TraceStep]) {
        replayed += 1
        differ(.init(
            event: raise.id, eventType: raise.typeName, stepIndex: 0, expected: expected, actual: [],
            instead: "not raised: no node at \(raise.originPath) in the new tree. It was never built, or it was released because nothing kept it alive: return the objects that own your nodes from build, which keeps them for the whole replay"))
    }

    mutating func compare(_ raise: LiveReplay.Recorded, expected: [TraceStep], actual: [TraceStep]) {
        replayed += 1
        guard let index = StepDiff(old: expected, new: actual).firstDifference else { return }
        var instead: String?
        if actual.count <= index {
            instead = actual.isEmpty
                ? "no step: no handler of the new run was called"
                : "nothing more: the new run's steps ended after \(actual[actual.count - 1].number.map { "step \($0)" } ?? "its last")"
        }
        differ(.init(
            event: raise.id, eventType: raise.typeName, stepIndex: index, expected: expected, actual: actual,
            instead: instead))
    }

    private mutating func differ(_ difference: LiveReplayReport.Difference) {
        differing += 1
        if differences.count < limit { differences.append(difference) }
    }

    /// Replays a recorded tree change into the live tree.
    mutating func apply(_ change: LiveReplay.Change, on bus: EventBus) {
        let node = bus.node(atPath: change.path)
        switch change.change {
        case .created(let name):
            guard node == nil else { return }
            // Made bare: the app made it outside a raise, with code the replay cannot run.
            made.append(EventNode(name, bus: bus))
            treeChanges.append("seq \(change.seq): created \(name) (bare, no handlers)")
        case .attached, .moved:
            guard let parentPath = change.parentPath, let parent = bus.node(atPath: parentPath), let moving = node,
                moving.parent !== parent
            else { return }
            try? moving.move(to: parent)
            treeChanges.append("seq \(change.seq): \(change.change.name) \(moving.name) under \(parentPath)")
        case .detached:
            guard let node else { return }
            node.detach()
            treeChanges.append("seq \(change.seq): detached \(change.path)")
        case .renamed(let name):
            guard let node else { return }
            node.rename(to: name)
            treeChanges.append("seq \(change.seq): renamed \(change.path) to \(name)")
        case .released:
            guard let node else { return }
            node.release()
            treeChanges.append("seq \(change.seq): released \(change.path)")
        }
    }
}

/// What a live replay found.
public struct LiveReplayReport: Sendable, CustomStringConvertible {
    /// Raises re-raised.
    public let replayed: Int
    /// Raises that could not be re-raised, and why.
    public let skipped: [Skipped]
    /// The differing raises, at most the replay's limit, in recorded order.
    public let differences: [Difference]
    /// How many raises differed in all (beyond the limit too).
    public let differing: Int
    /// The recorded tree changes replayed into the live tree, one line each.
    public let treeChanges: [String]
    /// The run-time warnings the new run's bus gave (see `EventBus.onWarning(_:)`), in
    /// order: a recording's warnings come back when the code is unchanged.
    public let warnings: [String]

    /// The first difference, or `nil` when the new run matched the recording.
    public var difference: Difference? { differences.first }

    /// A raise left out.
    public struct Skipped: Sendable, Hashable {
        /// The recorded event.
        public let event: EventID
        /// Its type.
        public let eventType: String
        /// Why it was left out.
        public let reason: String
    }

    /// A raise whose steps differ.
    public struct Difference: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The recorded event.
        public let event: EventID
        /// Its type.
        public let eventType: String
        /// The position in the lists (0-based) of the first differing step.
        public let stepIndex: Int
        /// The recorded steps, numbered as `explain` numbers each event's route.
        public let expected: [TraceStep]
        /// The new run's steps, numbered the same way.
        public let actual: [TraceStep]
        /// What happened instead, when the new run has no step where the recording has one.
        public let instead: String?

        /// The first differing step as `explain` numbers it: `step 2`, or `step 3 of
        /// LoadFailed` for a step of an event the raise led to; `nil` when the steps are the
        /// same (the raise could not be made at all).
        public var firstDifferingStep: String? {
            StepDiff(old: expected, new: actual).firstDifferingStepName(raiseType: eventType)
        }

        /// A −/+ diff of the steps (see `StepDiff.text`): shared steps with two spaces,
        /// recorded ones with `-`, new ones with `+`, each with its number on its event's
        /// route; when the new run has nothing where the recording has steps, a `+` line says
        /// what happened instead.
        public var diff: String {
            var text = StepDiff(old: expected, new: actual).text
            if let instead { text += (text.isEmpty ? "" : "\n") + "+ (\(instead))" }
            return text
        }

        /// The diff, after a line naming the event and its first differing step.
        public var description: String {
            "\(debugDescription):\n" + diff
        }

        /// The line naming the event and its first differing step: what an array of
        /// differences shows (as `#expect(report.differences.isEmpty)` prints it), leaving
        /// the diffs to the report's own description.
        public var debugDescription: String {
            "event \(event.rawValue) (\(eventType)) differs" + (firstDifferingStep.map { " at \($0)" } ?? "")
        }
    }

    /// A summary, with each difference's diff.
    public var description: String {
        var text = "replayed \(replayed) raise\(replayed == 1 ? "" : "s")"
        if !skipped.isEmpty { text += ", skipped \(skipped.count)" }
        if !treeChanges.isEmpty { text += ", replayed \(treeChanges.count) tree change\(treeChanges.count == 1 ? "" : "s")" }
        guard !differences.isEmpty else { return text + ": no difference" }
        text += "; \(differing) differ"
        if differing > differences.count { text += " (the first \(differences.count) shown)" }
        for difference in differences { text += "\n\(difference)" }
        return text
    }
}
