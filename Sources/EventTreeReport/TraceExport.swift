import EventTree
import EventTreeJournal
import EventTreeReplay
import Foundation

/// A journal's sessions as a trace that Perfetto (ui.perfetto.dev) and `chrome://tracing`
/// open: the Trace Event format's JSON object form. Each session is a process, each thread
/// that raised events a track; every raise and every handler call is a slice with its
/// duration, and flow arrows lead from each raise to its handler calls and from a cause to
/// the raises it led to (nested raises, errors, transforms).
///
/// ```swift
/// let trace = try TraceExport(journal: "app.eventtree").chromeTrace()
/// try trace.write(toFile: "app.trace.json", atomically: true, encoding: .utf8)
/// ```
///
/// Times are the journal's: microseconds from each session's start. A raise's slice ends
/// with the last handler call (or nested raise) inside it; raises of no recorded thread
/// share one track.
///
/// ``write(_:)`` streams: it holds the raises being delivered at a moment (an outermost
/// raise with what it led to, until it ends), not the journal, so a journal of any length
/// exports in memory that does not grow with it.
public struct TraceExport: Sendable {
    /// The journal's path.
    public let path: String
    /// The session exported; every session when `nil`.
    public let session: SessionID?

    /// Prepares the export of `session` (every session when `nil`) of the journal at `path`.
    public init(journal path: String, session: SessionID? = nil) {
        self.path = path
        self.session = session
    }

    /// The trace, as JSON text, held whole (``write(_:)`` streams it).
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal.
    public func chromeTrace() throws -> String {
        var text = ""
        try write { text += $0 }
        return text
    }

    /// Calls `output` with the trace's JSON text, piece by piece, as it is read.
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal.
    public func write(_ output: (String) -> Void) throws {
        let reader = try JournalReader(path: path)
        let registrations = try reader.registrations()
        let sessions = try session.map { [$0] } ?? reader.sessionIDs()
        var name = ReportJSON()
        name.string(URL(fileURLWithPath: path).lastPathComponent)
        output(#"{"displayTimeUnit":"ms","otherData":{"journal":"# + name.text
            + #","schema_version":\#(reader.schemaVersion)},"traceEvents":["#)
        var trace = TraceWriter()
        for session in sessions {
            try export(session, reader: reader, registrations: registrations, into: &trace, output)
        }
        output(trace.json.takeText() + "]}\n")
    }

    // MARK: One session

    /// One slice on a track, before its nesting is settled.
    private struct Slice {
        var name: String
        var category: String
        var thread: Int
        var start: Double
        var end: Double
        var arguments: [(String, String)]
        /// The event it belongs to; for a raise, `isRaise`.
        var event: EventID
        var isRaise: Bool
        /// A call enqueued on the main actor, which runs once the raise ended.
        var isEnqueued = false
    }

    /// Where a raise's slice starts (and ends), for arrows from it to what is written later.
    private struct Anchor {
        var thread: Int
        var start: Double
        var end: Double
    }

    /// An outermost raise and what it led to (nested raises, errors, transforms, and their
    /// calls), held until the last of them ended, then settled and written.
    private final class Family {
        var slices: [Slice] = []
        var raiseIndex: [EventID: Int] = [:]
        var links: [(from: EventID, to: EventID, name: String)] = []
        /// Arrows from raises written earlier (a late call's raise caused this one).
        var earlierLinks: [(from: Anchor, to: EventID, name: String)] = []
        /// For a call enqueued on the main actor that ran after its raise ended (a family of
        /// that one slice): its raise.
        var lateCallOf: Anchor?
        /// The seq at which its last raise ended (`Int.max` while one has not).
        var end: Int

        init(end: Int) { self.end = end }
    }

    /// Ended families of one track whose slices may still have to nest with the next
    /// family's: the journal's times are whole microseconds, so a raise can seem to start
    /// before the one before it ended. Written once a family starts after they all end.
    private struct Overlapping {
        var families: [Family] = []
        var end = -Double.infinity
        var slices = 0

        mutating func add(_ family: Family) {
            families.append(family)
            end = family.slices.reduce(end) { max($0, $1.end) }
            slices += family.slices.count
        }
    }

    /// The trace's JSON as it is written, and the number of the last arrow.
    private struct TraceWriter {
        var json = ReportJSON()
        var flowID = 0
    }

    private func export(
        _ session: SessionID, reader: JournalReader, registrations: RecordedRegistrations,
        into trace: inout TraceWriter, _ output: (String) -> Void
    ) throws {
        let pid = session.rawValue
        let process = try reader.sessions().first { $0.id == session }?.process
        Self.metadata("process_name", pid: pid, thread: 0, value: "session \(pid)" + (process.map { ": " + $0 } ?? ""), into: &trace.json)
        var tracks = Set<Int>()
        var families: [EventID: Family] = [:]
        var familyOf: [EventID: EventID] = [:]
        var ends = MinHeap<EventID>()
        // Calls enqueued on the main actor by raises already written, which run later, by event.
        var pendingLate: [EventID: (calls: Int, raise: Anchor)] = [:]
        let lateBefore = try reader.endSeq(of: session) ?? Int.max

        // By track: the ended families not written yet, where the last written ended, and
        // where the families still open started.
        var overlapping: [Int: Overlapping] = [:]
        var written: [Int: Double] = [:]
        var openStarts: [Int: [EventID: Double]] = [:]
        func write(_ group: Overlapping, track: Int) {
            Self.settleNesting(group.families)
            for family in group.families { Self.write(family, pid: pid, into: &trace) }
            written[track] = max(written[track] ?? group.end, group.families.reduce(group.end) { end, family in
                family.slices.reduce(end) { max($0, $1.end) }
            })
            if trace.json.bytes.count > 1 << 16 { output(trace.json.takeText()) }
        }
        func hold(_ family: Family) {
            guard let first = family.slices.first else { return }
            tracks.formUnion(family.slices.lazy.map(\.thread))
            // Its first slice (a raise, before what it led to) starts first. Families end in
            // seq order, not in time order: one still open may have started inside the group.
            let track = first.thread
            let openSince = openStarts[track]?.values.min() ?? .infinity
            if let group = overlapping[track], first.start <= group.end || openSince <= group.end,
                group.slices < Self.mostOverlapping
            {
                overlapping[track]?.add(family)
            } else {
                if let group = overlapping[track] { write(group, track: track) }
                var group = Overlapping()
                group.add(family)
                overlapping[track] = group
            }
        }
        func finish(_ root: EventID) {
            guard let family = families.removeValue(forKey: root) else { return }
            for event in family.raiseIndex.keys { familyOf[event] = nil }
            if let track = family.slices.first?.thread { openStarts[track]?[root] = nil }
            Self.settleLinks(family)
            for slice in family.slices where slice.isEnqueued {
                guard let raise = family.raiseIndex[slice.event] else { continue }
                let raised = family.slices[raise]
                let anchor = Anchor(thread: raised.thread, start: raised.start, end: raised.end)
                pendingLate[slice.event, default: (0, anchor)].calls += 1
            }
            hold(family)
        }

        let events = try reader.events(of: session)
        let steps = try reader.steps(in: (session.rawValue < Int.max ? session.rawValue + 1 : Int.max)...Int.max)
        var eventSeq = events.current?.id.rawValue ?? Int.max
        var stepSeq = steps.current?.seq ?? Int.max
        while true {
            // Steps belong to the families being delivered, or are enqueued calls that run
            // later, before the session's end.
            let takesSteps = !families.isEmpty || (!pendingLate.isEmpty && stepSeq < lateBefore)
            let next = min(eventSeq, takesSteps ? stepSeq : Int.max)
            if next == Int.max { break }
            while let key = ends.minimumKey, key < next, let (end, root) = ends.popMinimum() {
                if families[root]?.end == end { finish(root) }
            }
            if next == eventSeq, let event = events.current {
                if let raised = event.raisedMicroseconds {
                    let slice = Slice(
                        name: event.typeName, category: event.kind.description, thread: Self.track(of: event.thread),
                        start: Double(raised), end: Double(raised),
                        arguments: [("event", String(event.id.rawValue)), ("mode", event.mode.description),
                                    ("result", event.result.rawValue)],
                        event: event.id, isRaise: true)
                    var links: [(from: EventID, name: String)] = []
                    if let cause = event.cause { links.append((cause, event.kind == .error ? "error" : "nested raise")) }
                    if let source = event.transformedFrom { links.append((source, "transformed")) }
                    let root = links.lazy.compactMap { familyOf[$0.from] }.first ?? event.id
                    let family: Family
                    if let open = families[root] {
                        family = open
                    } else {
                        family = Family(end: Int.min)
                        families[root] = family
                        openStarts[slice.thread, default: [:]][root] = slice.start
                    }
                    familyOf[event.id] = root
                    family.raiseIndex[event.id] = family.slices.count
                    family.slices.append(slice)
                    for link in links {
                        if familyOf[link.from] != nil {
                            family.links.append((link.from, event.id, link.name))
                        } else if let earlier = try reader.event(link.from), earlier.session == session,
                            let raised = earlier.raisedMicroseconds
                        {
                            // Raised in a call that ran after its event's raise ended.
                            let anchor = Anchor(thread: Self.track(of: earlier.thread), start: Double(raised), end: Double(raised))
                            family.earlierLinks.append((anchor, event.id, link.name))
                        }
                    }
                    let end = try reader.lastDeliverySeq(of: event, includingCaused: true)
                    if end > family.end {
                        family.end = end
                        ends.insert(end, root)
                    }
                }
                try events.advance()
                eventSeq = events.current?.id.rawValue ?? Int.max
            } else if let step = steps.current {
                if case .call(let number, let outcome) = step.kind, let offset = step.offsetMicroseconds {
                    let handler = registrations.handler(numbered: number)
                    func call(thread: Int, raisedAt: Double) -> Slice {
                        let start = raisedAt + Double(offset)
                        return Slice(
                            name: handler?.label ?? "handler \(number)", category: "handler", thread: thread,
                            start: start, end: start + Double(step.durationNanoseconds ?? 0) / 1_000,
                            arguments: [("outcome", outcome.rawValue), ("phase", step.phase.description),
                                        ("registered_at", handler?.location ?? "?")],
                            event: step.event, isRaise: false, isEnqueued: outcome == .enqueued)
                    }
                    if let root = familyOf[step.event], let family = families[root], let raise = family.raiseIndex[step.event] {
                        let slice = call(thread: family.slices[raise].thread, raisedAt: family.slices[raise].start)
                        family.slices[raise].end = max(family.slices[raise].end, slice.end)
                        family.slices.append(slice)
                    } else if step.seq < lateBefore, let pending = pendingLate[step.event] {
                        // An enqueued call that ran after its raise ended: drawn no earlier
                        // than the raise's end and what its track has written, so that slices
                        // still nest (a journal written before calls that ran late kept their
                        // own start has them all at their raise's start).
                        pendingLate[step.event] = pending.calls > 1 ? (pending.calls - 1, pending.raise) : nil
                        var slice = call(thread: pending.raise.thread, raisedAt: pending.raise.start)
                        let earliest = max(
                            pending.raise.end, written[slice.thread] ?? -.infinity, overlapping[slice.thread]?.end ?? -.infinity)
                        if slice.start < earliest {
                            slice.end += earliest - slice.start
                            slice.start = earliest
                        }
                        let late = Family(end: Int.min)
                        late.slices = [slice]
                        late.lateCallOf = pending.raise
                        hold(late)
                    }
                }
                try steps.advance()
                stepSeq = steps.current?.seq ?? Int.max
            }
        }
        // Families still open: none, unless records were added while they were read.
        for root in families.keys.sorted() { finish(root) }
        for track in overlapping.keys.sorted() { write(overlapping[track]!, track: track) }
        let names = try reader.threadNames(of: session)
        for track in tracks.sorted() {
            let thread = track - Self.trackOffset
            Self.metadata("thread_name", pid: pid, thread: track,
                          value: track == Self.unrecordedTrack ? "raises (thread not recorded)" : names[thread] ?? "thread \(thread)",
                          into: &trace.json)
        }
    }

    // MARK: Writing

    private static func metadata(_ name: String, pid: Int, thread: Int, value: String, into json: inout ReportJSON) {
        json.object { json in
            json.field("name") { $0.string(name) }
            json.field("ph") { $0.string("M") }
            json.field("pid") { $0.integer(pid) }
            json.field("tid") { $0.integer(thread) }
            json.field("args") { json in json.object { json in json.field("name") { $0.string(value) } } }
        }
    }

    private static func write(_ slice: Slice, pid: Int, into json: inout ReportJSON) {
        json.object { json in
            json.field("name") { $0.string(slice.name) }
            json.field("cat") { $0.string(slice.category) }
            json.field("ph") { $0.string("X") }
            json.field("pid") { $0.integer(pid) }
            json.field("tid") { $0.integer(slice.thread) }
            json.field("ts") { $0.number(slice.start) }
            json.field("dur") { $0.number(slice.end - slice.start) }
            json.field("args") { json in
                json.object { json in for (key, value) in slice.arguments { json.field(key) { $0.string(value) } } }
            }
        }
    }

    /// An arrow from the start of `from` to the start of `to`.
    private static func flow(_ name: String, from: Anchor, to: Slice, pid: Int, into trace: inout TraceWriter) {
        trace.flowID += 1
        for (phase, anchor) in [("s", from), ("f", Anchor(thread: to.thread, start: to.start, end: to.end))] {
            trace.json.object { json in
                json.field("name") { $0.string(name) }
                json.field("cat") { $0.string("flow") }
                json.field("ph") { $0.string(phase) }
                json.field("id") { $0.integer(trace.flowID) }
                json.field("pid") { $0.integer(pid) }
                json.field("tid") { $0.integer(anchor.thread) }
                json.field("ts") { $0.number(anchor.start) }
                if phase == "f" { json.field("bp") { $0.string("e") } }
            }
        }
    }

    /// A settled family's slices, then its arrows: a raise to each of its calls, a cause to
    /// what it led to.
    private static func write(_ family: Family, pid: Int, into trace: inout TraceWriter) {
        for slice in family.slices { write(slice, pid: pid, into: &trace.json) }
        func anchor(_ slice: Slice) -> Anchor { Anchor(thread: slice.thread, start: slice.start, end: slice.end) }
        for slice in family.slices where !slice.isRaise {
            if let raise = family.raiseIndex[slice.event] {
                flow("delivery", from: anchor(family.slices[raise]), to: slice, pid: pid, into: &trace)
            } else if let raise = family.lateCallOf {
                flow("delivery", from: raise, to: slice, pid: pid, into: &trace)
            }
        }
        for link in family.links {
            if let from = family.raiseIndex[link.from], let to = family.raiseIndex[link.to] {
                flow(link.name, from: anchor(family.slices[from]), to: family.slices[to], pid: pid, into: &trace)
            }
        }
        for link in family.earlierLinks {
            if let to = family.raiseIndex[link.to] { flow(link.name, from: link.from, to: family.slices[to], pid: pid, into: &trace) }
        }
    }

    /// The track (`tid`) of raises whose thread was not recorded.
    private static let unrecordedTrack = 0
    /// What a journal's thread number is moved by to make its track: -1 (`main actor`) is
    /// track 1, 0 (`awaited`) track 2, the threads (from 1) follow. Trace viewers drop a
    /// negative `tid`.
    private static let trackOffset = 2

    /// The track of the journal's thread number `thread`.
    private static func track(of thread: Int?) -> Int {
        // A number read from the file: one past the largest track is kept, not added to.
        thread.map { $0 < Int.max - trackOffset ? $0 + trackOffset : Int.max } ?? unrecordedTrack
    }

    // MARK: Settling

    /// The most slices held to nest with the next family's (on a track where raises
    /// overlap without end, such as concurrent awaited raises).
    private static let mostOverlapping = 1 << 16

    /// A raise lasts while what it led to runs (children are raised later: higher ids).
    private static func settleLinks(_ family: Family) {
        for link in family.links.sorted(by: { $0.to > $1.to }) {
            if let parent = family.raiseIndex[link.from], let child = family.raiseIndex[link.to] {
                family.slices[parent].end = max(family.slices[parent].end, family.slices[child].end)
            }
        }
    }

    /// Makes the slices of `families` nest properly, track by track.
    private static func settleNesting(_ families: [Family]) {
        guard families.count > 1 else {
            if let family = families.first { settleNesting(&family.slices) }
            return
        }
        var slices = families.flatMap(\.slices)
        settleNesting(&slices)
        var index = 0
        for family in families {
            for own in family.slices.indices {
                family.slices[own].end = slices[index].end
                index += 1
            }
        }
    }

    /// Makes the slices of each track nest properly: a raise lasts until the last call or
    /// nested raise inside it ends (the journal's times are whole microseconds, so a
    /// child can seem to outlast its parent by one).
    private static func settleNesting(_ slices: inout [Slice]) {
        let order = slices.indices.sorted { a, b in
            let (left, right) = (slices[a], slices[b])
            if left.thread != right.thread { return left.thread < right.thread }
            if left.start != right.start { return left.start < right.start }
            // At the same instant, a raise encloses its calls.
            if left.isRaise != right.isRaise { return left.isRaise }
            return left.event < right.event
        }
        var stack: [Int] = []
        var thread = -1
        for index in order {
            if slices[index].thread != thread {
                stack = []
                thread = slices[index].thread
            }
            while let top = stack.last, slices[top].end < slices[index].start
                || (slices[top].end == slices[index].start && slices[top].start < slices[index].start) {
                stack.removeLast()
            }
            for ancestor in stack where slices[ancestor].end < slices[index].end {
                slices[ancestor].end = slices[index].end
            }
            stack.append(index)
        }
    }
}
