import EventTree
import EventTreeJournal
import EventTreeReplay
import Foundation

/// One session of a journal, replayed and gathered for a picture of it: what happened to
/// its events (by verdict), who consumed them, the dead letters, its tree through time,
/// and each event's route. ``html()`` renders it as one self-contained page.
///
/// ```swift
/// let report = try SessionReport(journal: "app.eventtree")
/// try report.html().write(toFile: "report.html", atomically: true, encoding: .utf8)
/// ```
///
/// The verdicts are `Replayer`'s (the same as `eventtree replay` prints): the report adds
/// no classification of its own. The summary counts every event of the session; the
/// timeline, the routes and the tree through time hold a window of it (``Window``), so
/// that a session of any length gives a page a browser opens, in memory that does not
/// grow with the session.
public struct SessionReport: Sendable {
    /// The journal's file name.
    public let journalName: String
    /// The session.
    public let session: SessionSummary
    /// Events per verdict (an event and the events its transforms produced count once,
    /// as `eventtree replay` counts them).
    public let counts: [Classification: Int]
    /// Raises in the session, transforms' included.
    public let raises: Int
    /// The handlers that consumed events, most first.
    public let consumers: [Consumer]
    /// The first events of the window no handler acted on (and requests nobody answered),
    /// in raise order: at most ``deadLetterShown``.
    public let deadLetters: [ReplayFinding]
    /// How many events of the session no handler acted on (``counts``' unhandled).
    public var deadLetterCount: Int { counts[.unhandled, default: 0] }
    /// The time from the session's first raise to its last, in microseconds (`nil` when
    /// the journal holds no times).
    public let activeMicroseconds: Int?
    /// The number of events replayed (as `eventtree replay` counts them).
    public let events: Int
    /// The events the timeline holds.
    public let window: Window

    /// How many dead letters the report keeps and lists.
    public static let deadLetterShown = 50

    /// A handler that consumed events.
    public struct Consumer: Sendable, Hashable {
        /// The handler's label.
        public let label: String
        /// Where it was registered (`file:line`).
        public let location: String
        /// How many events it consumed.
        public let count: Int
    }

    /// Which of the session's events the page's timeline holds, with their routes and the
    /// tree around them.
    public enum Window: Sendable, Equatable {
        /// The session's last `count` events.
        case last(Int)
        /// `count` events around `event`: about half before it, half from it.
        case around(EventID, count: Int)

        /// The most events a window holds.
        public var count: Int {
            switch self {
            case .last(let count), .around(_, let count): max(1, count)
            }
        }

        /// The window a report holds unless told otherwise: the last 10,000 events, about
        /// 2 MB of page.
        public static let standard = Window.last(10_000)
    }

    /// The window's events' findings, with their routes, in raise order.
    let findings: [ReplayFinding]
    /// The nodes the window's tree holds: those of the tree as it stood when the window
    /// starts (parents first), then those created in the window, in creation order.
    let nodes: [(id: NodeID, name: String)]
    /// How many of `changes` rebuild the tree as it stood when the window starts (when it
    /// starts after the session's first event); the rest are the window's changes.
    let startingChanges: Int
    /// Whether the window starts after the session's first event.
    let startsLater: Bool
    /// The window's tree changes, in seq order.
    let changes: [RecordedTreeChange]
    /// The handlers registered on the window's nodes, in registration order.
    let handlers: [RecordedHandler]
    /// Handler calls per handler, and how many of them stopped their event.
    let callCounts: [HandlerID: (calls: Int, stops: Int)]

    /// Replays `session` of the journal at `path` (its last session when `nil`, or the
    /// session of the window's event), keeping the events of `window` for the timeline.
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal;
    ///   `ReplayError.unknownSession`, `ReplayError.noSessions`, or, for a window around
    ///   an event, `ReplayError.unknownEvent` or `ReplayError.eventOfAnotherSession`.
    public init(journal path: String, session id: SessionID? = nil, window: Window = .standard) throws {
        let replayer = try Replayer(journal: path)
        let reader = try JournalReader(path: path)
        var asked = id
        if case .around(let event, _) = window {
            guard let recorded = try reader.event(event) else { throw ReplayError.unknownEvent(event) }
            if let id, id != recorded.session {
                throw ReplayError.eventOfAnotherSession(event, session: recorded.session, asked: id)
            }
            asked = recorded.session
        }
        let session = try replayer.session(asked)
        var kept = WindowBuffer(window)
        var counts: [Classification: Int] = [:]
        var consumers: [String: Consumer] = [:]
        var callCounts: [HandlerID: (calls: Int, stops: Int)] = [:]
        var raises = 0
        var events = 0
        var firstActivity: Int?
        var lastActivity: Int?
        var firstEvent: EventID?
        try replayer.replay(session: session.id, includingRoutes: true) { finding in
            events += 1
            if firstEvent == nil { firstEvent = finding.event.id }
            counts[finding.classification, default: 0] += 1
            raises += 1 + finding.transforms.count
            if finding.classification == .consumed, let stopper = finding.stoppedBy {
                let key = "\(stopper.label)\u{0}\(stopper.location)"
                consumers[key] = Consumer(label: stopper.label, location: stopper.location, count: (consumers[key]?.count ?? 0) + 1)
            }
            if let stopper = finding.stoppedBy { callCounts[stopper.handler, default: (0, 0)].stops += 1 }
            for visit in finding.route ?? [] {
                for call in visit.calls { callCounts[call.handler, default: (0, 0)].calls += 1 }
            }
            if let raised = finding.event.raisedMicroseconds {
                if firstActivity == nil { firstActivity = raised }
                lastActivity = max(lastActivity ?? raised, raised)
            }
            kept.offer(finding)
        }
        let findings = kept.findings
        // The tree: from the session's start when the window starts it, else as it stood
        // at the window's first event (from the nearest snapshot), then the window's changes.
        var changes: [RecordedTreeChange] = []
        var nodes: [(id: NodeID, name: String)] = []
        var from = Int.min
        if let first = findings.first, first.event.id != firstEvent {
            let tree = try reader.tree(of: session.id, before: first.event.id.rawValue)
            // Dated just before the window's first event, as the tree stood then.
            let seq = first.event.id.rawValue - 1
            for (node, parent, position) in Self.preorder(tree) {
                let name = tree.nodes[node]?.name ?? ""
                changes.append(RecordedTreeChange(seq: seq, node: node, change: .created(name: name)))
                nodes.append((node, name))
                if let parent { changes.append(RecordedTreeChange(seq: seq, node: node, change: .attached(parent: parent, index: position))) }
            }
            from = first.event.id.rawValue
        }
        let startingChanges = changes.count
        let stream = try reader.treeChanges(of: session.id, from: from, before: kept.followingEvent?.rawValue ?? Int.max)
        while let change = stream.current {
            changes.append(change)
            if case .created(let name) = change.change { nodes.append((change.node, name)) }
            try stream.advance()
        }
        let nodeIDs = Set(nodes.map(\.id))
        let windowStart = from
        self.journalName = URL(fileURLWithPath: path).lastPathComponent
        self.session = session
        self.counts = counts
        self.raises = raises
        self.events = events
        self.window = window
        self.consumers = consumers.values.sorted { ($0.count, $1.label, $1.location) > ($1.count, $0.label, $0.location) }
        self.deadLetters = Array(findings.lazy.filter { $0.classification == .unhandled }.prefix(Self.deadLetterShown))
        self.findings = findings
        self.nodes = nodes
        self.startingChanges = startingChanges
        self.startsLater = from != Int.min
        self.changes = changes
        let windowEnd = kept.followingEvent?.rawValue ?? Int.max
        self.handlers = try reader.registrations().handlers.filter { handler in
            nodeIDs.contains(handler.node) && handler.id.rawValue < windowEnd && (handler.removedSeq.map { $0 > windowStart } ?? true)
        }
        self.callCounts = callCounts
        // Times read from the file: two far apart would overflow the difference (the last is
        // the largest, so it can only overflow upwards).
        self.activeMicroseconds = firstActivity.flatMap { first in
            lastActivity.map { last in
                let (span, overflow) = last.subtractingReportingOverflow(first)
                return overflow ? Int.max : span
            }
        }
    }

    /// The live nodes of `tree`, parents before children and children in order, each with
    /// its parent and its position among its siblings.
    /// Each node is taken once: a journal is untrusted, and a damaged one can list a node
    /// among the children of its own descendant.
    private static func preorder(_ tree: JournalTree) -> [(node: NodeID, parent: NodeID?, position: Int)] {
        var order: [(node: NodeID, parent: NodeID?, position: Int)] = []
        var seen: Set<NodeID> = []
        var pending = tree.roots.reversed().map { (node: $0, parent: NodeID?.none, position: 0) }
        while let next = pending.popLast() {
            guard seen.insert(next.node).inserted else { continue }
            order.append(next)
            let children = tree.nodes[next.node]?.children ?? []
            for (position, child) in children.enumerated().reversed() where !seen.contains(child) {
                pending.append((child, next.node, position))
            }
        }
        return order
    }

    /// Whether the timeline holds every event of the session.
    public var holdsEveryEvent: Bool { findings.count == events }

    /// The timeline's events, in words: `10000 events, 2190001 to 2200000`.
    public var timelineRange: String {
        guard let first = findings.first?.event.id, let last = findings.last?.event.id else { return "no events" }
        return "\(findings.count) events, \(first.rawValue) to \(last.rawValue)"
    }

    /// The findings a window keeps as the replay streams them, in memory bounded by the
    /// window's size.
    private struct WindowBuffer {
        let window: Window
        /// A ring of the latest findings (before the window's event, for ``Window/around(_:count:)``).
        private var ring: [ReplayFinding] = []
        private var next = 0
        /// The findings from the window's event on (for ``Window/around(_:count:)``).
        private var after: [ReplayFinding] = []
        private var met = false
        /// How many findings `after` takes: what half the window, or the findings before the
        /// event when fewer, leave.
        private var afterLimit = 0
        /// The first event after the window, once one was offered.
        private(set) var followingEvent: EventID?

        init(_ window: Window) { self.window = window }

        mutating func offer(_ finding: ReplayFinding) {
            if case .around(let event, _) = window {
                if !met && (finding.event.id == event || finding.transforms.contains(event)) {
                    met = true
                    afterLimit = window.count - min(ring.count, window.count / 2)
                }
                if met {
                    if after.count < afterLimit { after.append(finding) }
                    else if followingEvent == nil { followingEvent = finding.event.id }
                    return
                }
            }
            if ring.count < window.count {
                ring.append(finding)
            } else {
                ring[next] = finding
                next = (next + 1) % window.count
            }
        }

        /// The kept findings, in raise order: for a window around an event near the end of
        /// the session, more of those before it.
        var findings: [ReplayFinding] {
            let before = Array(ring[next...]) + Array(ring[..<next])
            return Array(before.suffix(min(before.count, window.count - after.count))) + after
        }
    }
}
