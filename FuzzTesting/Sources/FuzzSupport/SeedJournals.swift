import EventTree
import EventTreeCommands
import EventTreeJournal
import Foundation

/// A valid journal the mutations start from, with what a fuzz target needs to aim at it.
public struct SeedJournal: Sendable {
    /// Its name, for messages.
    public let name: String
    /// Its bytes (a single file: rollback journal mode, no -wal).
    public let bytes: [UInt8]
    /// The ids of its events.
    public let eventIDs: [Int]
    /// The node paths it knows.
    public let nodePaths: [String]
    /// The ids of its handlers.
    public let handlerIDs: [Int]
    /// Its chain's head.
    public let head: JournalHead?
}

/// The seed journals, recorded once per process into ``Scratch/directory``: the built-in
/// demo (every outcome the journal can explain), and a second journal of two sessions
/// that adds what the demo lacks (removed handlers, dispatch and deepest-level routes,
/// catch-all handlers, a stopping failure, nested raises, detached and moved nodes).
public enum SeedJournals {
    /// Every seed, the demo first.
    public static let all: [SeedJournal] = [
        load("demo") { path in
            let status = EventTreeCommand.run(["demo", "--journal", path, "--format", "csv"], terminal: .silent)
            expect(status == 0, "eventtree demo failed with status \(status)")
        },
        load("two-sessions") { path in
            // Small transactions, so that the chain has many checkpoints.
            var options = JournalOptions()
            options.transactionSize = 12
            let journal = try Journal(path: path, options: options)
            TwoSessions.record(into: journal)
            try journal.close()
        },
    ]

    /// The demo journal, for targets that need one valid file.
    public static var demo: SeedJournal { all[0] }

    /// Records a seed with `record`, makes it a single file, and checks that it is sound.
    private static func load(_ name: String, _ record: (String) throws -> Void) -> SeedJournal {
        let path = Scratch.directory + "/seed-\(name).eventtree"
        do {
            try record(path)
        } catch {
            fatalError("could not record the seed journal \(name): \(error)")
        }
        try? FileManager.default.removeItem(atPath: path + ".lock")
        // A single file, so that a copy of its bytes is the whole journal.
        guard let database = Database(path: path), database.execute("PRAGMA journal_mode = DELETE") else {
            fatalError("could not open the seed journal \(name)")
        }
        let eventIDs = database.rows("SELECT event_id FROM j_events ORDER BY event_id").compactMap(\.first?.int)
        let handlerIDs = database.rows("SELECT handler_id FROM j_handlers ORDER BY handler_id").compactMap(\.first?.int)
        let paths = database.rows("SELECT DISTINCT node_path FROM tree_changes WHERE node_path IS NOT NULL ORDER BY 1")
            .compactMap(\.first?.string)
        expect(!paths.isEmpty, "the seed journal \(name) has no node paths")
        let verification: JournalVerification
        do {
            verification = try JournalVerifier(journal: path).verify()
        } catch {
            fatalError("the seed journal \(name) cannot be verified: \(error)")
        }
        expect(verification.isIntact, "the seed journal \(name) is not intact: \(verification.line)")
        guard let bytes = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
        return SeedJournal(
            name: name, bytes: Array(bytes), eventIDs: eventIDs, nodePaths: paths, handlerIDs: handlerIDs,
            head: verification.head)
    }
}

extension CommandTerminal {
    /// A terminal that discards everything.
    public static let silent = CommandTerminal(write: { _ in }, writeError: { _ in }, isColorful: false, showsProgress: false)
}

extension SQLValue {
    var int: Int? { if case .integer(let value) = self { value } else { nil } }
    var string: String? { if case .text(let bytes) = self { String(decoding: bytes, as: UTF8.self) } else { nil } }
}

/// The second seed's sessions.
private enum TwoSessions {
    struct Ping: Event { var count: Int; var ratio: Double; var tags: [String]; var note: String? }
    struct Ask: EventRequest { typealias Answer = Int; var question: String }
    struct Nested: Event { var depth: Int }
    struct Broken: Error { var reason: String }

    static func record(into journal: Journal) {
        // The first session: handlers added and removed, routes of every kind.
        do {
            let bus = EventBus(recorder: journal, appVersion: "1.0 \u{1F389}", process: "fuzz-seed")
            let root = EventNode("root", bus: bus)
            let left = EventNode("left", parent: root)
            let right = EventNode("right", parent: root)
            let leaf = EventNode("leaf", parent: left)
            let deep = EventNode("deep/er", parent: leaf)
            root.onAny(phases: .all, label: "audit") { _, _ in .ignored }
            let removable = left.on(Ping.self, label: "removable") { _, _ in .handled }
            right.on(Ping.self, phases: .propagate, label: "right-ping") { _, _ in .consumedImmediately }
            leaf.on(Ping.self, phases: .propagate, label: "leaf-ping") { _, _ in .handled }
            deep.on(Ping.self, phases: .propagate, label: "deep-ping") { _, _ in .consumed }
            root.on(Ask.self, label: "answer") { event, _ in event.question.isEmpty ? .ignored : .answered(42) }
            // Weak: a handler that holds its own node strongly keeps the node, and with it the
            // bus, alive forever (LeakSanitizer reports the cycle).
            left.on(Nested.self, label: "nest") { [weak left] event, _ in
                if event.depth < 3 { left?.raise(Nested(depth: event.depth + 1)) }
                return .handled
            }
            leaf.on(Nested.self, label: "fail") { event, _ in
                if event.depth == 2 { throw Broken(reason: "depth \(event.depth)") }
                return .ignored
            }
            root.onError(Broken.self, label: "catch") { _, _ in .handled }

            leaf.raise(Ping(count: 1, ratio: 0.5, tags: ["a", "é"], note: nil))
            removable.remove()
            leaf.raise(Ping(count: Int.max, ratio: -1e300, tags: [], note: "\"quoted\"\n"))
            root.raise(Ping(count: 2, ratio: 0, tags: ["x"], note: ""), mode: .dispatch)
            root.raise(Ping(count: 3, ratio: 1, tags: [], note: nil), mode: .descend(.deepestLevel))
            root.raise(Ping(count: 4, ratio: 2, tags: [], note: nil), mode: .broadcast)
            _ = leaf.request(Ask(question: "?"))
            _ = leaf.request(Ask(question: ""))
            leaf.raise(Nested(depth: 0), onFailure: .stop)
            try? right.attach(leaf)
            deep.detach()
            left.rename(to: "left again")
            leaf.raise(Ping(count: 5, ratio: 3, tags: [], note: nil))
            deep.release()
            leaf.report(Broken(reason: "reported"))
            root.raise(NamedEvent("named", ["key": "value", "path": "a/b"]), mode: .descend)
            bus.end()
        }
        // A second session on the same journal.
        do {
            let bus = EventBus(recorder: journal, appVersion: nil, process: "fuzz-seed-2")
            let only = EventNode("only", bus: bus)
            let child = EventNode("child", parent: only)
            only.on(NamedEvent.self, label: "named") { event, _ in event.name == "stop" ? .consumed : .handled }
            child.raise(NamedEvent("go"))
            child.raise(NamedEvent("stop"))
            child.release()
            only.raise(NamedEvent("after"), mode: .descend)
            bus.end()
        }
    }
}
