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
/// no classification of its own.
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
    /// Events no handler acted on (and requests nobody answered), in raise order.
    public let deadLetters: [ReplayFinding]
    /// The time from the session's first raise to its last, in microseconds (`nil` when
    /// the journal holds no times).
    public let activeMicroseconds: Int?

    /// A handler that consumed events.
    public struct Consumer: Sendable, Hashable {
        /// The handler's label.
        public let label: String
        /// Where it was registered (`file:line`).
        public let location: String
        /// How many events it consumed.
        public let count: Int
    }

    /// Every event's finding, with its route, in raise order.
    let findings: [ReplayFinding]
    /// The session's nodes, in creation order.
    let nodes: [(id: NodeID, name: String)]
    /// The session's tree changes, in seq order.
    let changes: [RecordedTreeChange]
    /// The handlers registered on the session's nodes, in registration order.
    let handlers: [RecordedHandler]
    /// Handler calls per handler, and how many of them stopped their event.
    let callCounts: [HandlerID: (calls: Int, stops: Int)]

    /// Replays `session` of the journal at `path` (its last session when `nil`).
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal;
    ///   `ReplayError.unknownSession` or `ReplayError.noSessions`.
    public init(journal path: String, session id: SessionID? = nil) throws {
        let replayer = try Replayer(journal: path)
        let reader = try JournalReader(path: path)
        let session = try replayer.session(id)
        var findings: [ReplayFinding] = []
        var counts: [Classification: Int] = [:]
        var consumers: [String: Consumer] = [:]
        var callCounts: [HandlerID: (calls: Int, stops: Int)] = [:]
        var raises = 0
        var lastActivity: Int?
        try replayer.replay(session: session.id, includingRoutes: true) { finding in
            findings.append(finding)
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
            if let raised = finding.event.raisedMicroseconds { lastActivity = max(lastActivity ?? raised, raised) }
        }
        var changes: [RecordedTreeChange] = []
        var nodes: [(id: NodeID, name: String)] = []
        let stream = try reader.treeChanges(of: session.id)
        while let change = stream.current {
            changes.append(change)
            if case .created(let name) = change.change { nodes.append((change.node, name)) }
            try stream.advance()
        }
        let nodeIDs = Set(nodes.map(\.id))
        self.journalName = URL(fileURLWithPath: path).lastPathComponent
        self.session = session
        self.counts = counts
        self.raises = raises
        self.consumers = consumers.values.sorted { ($0.count, $1.label, $1.location) > ($1.count, $0.label, $0.location) }
        self.deadLetters = findings.filter { $0.classification == .unhandled }
        self.findings = findings
        self.nodes = nodes
        self.changes = changes
        self.handlers = try reader.registrations().handlers.filter { nodeIDs.contains($0.node) }
        self.callCounts = callCounts
        let first = findings.lazy.compactMap(\.event.raisedMicroseconds).first
        // Times read from the file: two far apart would overflow the difference (the last is
        // the largest, so it can only overflow upwards).
        self.activeMicroseconds = first.flatMap { first in
            lastActivity.map { last in
                let (span, overflow) = last.subtractingReportingOverflow(first)
                return overflow ? Int.max : span
            }
        }
    }

    /// The number of events replayed (as `eventtree replay` counts them).
    public var events: Int { findings.count }
}
