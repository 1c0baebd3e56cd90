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
    }

    /// One session's part of the trace.
    private struct SessionTrace {
        let pid: Int
        let process: String
        let threadNames: [Int: String]
        var slices: [Slice]
        let raiseIndex: [EventID: Int]
        let links: [(from: EventID, to: EventID, name: String)]
    }

    /// The trace, as JSON text.
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal.
    public func chromeTrace() throws -> String {
        let reader = try JournalReader(path: path)
        let registrations = try reader.registrations()
        let sessions = try session.map { [$0] } ?? reader.sessionIDs()
        let traces = try sessions.map { try trace(of: $0, reader: reader, registrations: registrations) }
        var json = ReportJSON()
        var flowID = 0
        json.object { json in
            json.field("displayTimeUnit") { $0.string("ms") }
            json.field("otherData") { json in
                json.object { json in
                    json.field("journal") { $0.string(URL(fileURLWithPath: path).lastPathComponent) }
                    json.field("schema_version") { $0.integer(reader.schemaVersion) }
                }
            }
            json.field("traceEvents") { json in
                json.array { json in
                    for trace in traces { Self.write(trace, flowID: &flowID, into: &json) }
                }
            }
        }
        return json.text + "\n"
    }

    private func trace(of session: SessionID, reader: JournalReader, registrations: RecordedRegistrations) throws -> SessionTrace {
        var slices: [Slice] = []
        var raiseIndex: [EventID: Int] = [:]
        var links: [(from: EventID, to: EventID, name: String)] = []
        let events = try reader.events(of: session)
        var first = Int.max
        var last = 0
        while let event = events.current {
            if let raised = event.raisedMicroseconds {
                raiseIndex[event.id] = slices.count
                slices.append(Slice(
                    name: event.typeName, category: event.kind.description, thread: Self.track(of: event.thread),
                    start: Double(raised), end: Double(raised),
                    arguments: [("event", String(event.id.rawValue)), ("mode", event.mode.description),
                                ("result", event.result.rawValue)],
                    event: event.id, isRaise: true))
                if let cause = event.cause { links.append((cause, event.id, event.kind == .error ? "error" : "nested raise")) }
                if let source = event.transformedFrom { links.append((source, event.id, "transformed")) }
                first = min(first, event.id.rawValue)
                last = max(last, event.finishedSeq ?? event.id.rawValue)
            }
            try events.advance()
        }
        if first <= last {
            let steps = try reader.steps(in: first...last)
            while let step = steps.current {
                if case .call(let number, let outcome) = step.kind, let offset = step.offsetMicroseconds,
                    let raise = raiseIndex[step.event]
                {
                    let handler = registrations.handler(numbered: number)
                    let start = slices[raise].start + Double(offset)
                    let end = start + Double(step.durationNanoseconds ?? 0) / 1_000
                    slices[raise].end = max(slices[raise].end, end)
                    slices.append(Slice(
                        name: handler?.label ?? "handler \(number)", category: "handler", thread: slices[raise].thread,
                        start: start, end: end,
                        arguments: [("outcome", outcome.rawValue), ("phase", step.phase.description),
                                    ("registered_at", handler?.location ?? "?")],
                        event: step.event, isRaise: false))
                }
                try steps.advance()
            }
        }
        // A raise lasts while what it led to runs (children are raised later: higher ids).
        for link in links.sorted(by: { $0.to > $1.to }) {
            if let parent = raiseIndex[link.from], let child = raiseIndex[link.to] {
                slices[parent].end = max(slices[parent].end, slices[child].end)
            }
        }
        Self.settleNesting(&slices)
        let process = try reader.sessions().first { $0.id == session }?.process
        return SessionTrace(
            pid: session.rawValue, process: "session \(session.rawValue)" + (process.map { ": " + $0 } ?? ""),
            threadNames: try reader.threadNames(of: session), slices: slices, raiseIndex: raiseIndex, links: links)
    }

    private static func write(_ trace: SessionTrace, flowID: inout Int, into json: inout ReportJSON) {
        let pid = trace.pid
        func metadata(_ name: String, thread: Int, value: String) {
            json.object { json in
                json.field("name") { $0.string(name) }
                json.field("ph") { $0.string("M") }
                json.field("pid") { $0.integer(pid) }
                json.field("tid") { $0.integer(thread) }
                json.field("args") { json in json.object { json in json.field("name") { $0.string(value) } } }
            }
        }
        metadata("process_name", thread: 0, value: trace.process)
        for track in Set(trace.slices.map(\.thread)).sorted() {
            let thread = track - Self.trackOffset
            metadata("thread_name", thread: track,
                     value: track == Self.unrecordedTrack ? "raises (thread not recorded)" : trace.threadNames[thread] ?? "thread \(thread)")
        }
        for slice in trace.slices {
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
        // Arrows: a raise to each of its calls, a cause to what it led to.
        func flow(_ name: String, from: Slice, to: Slice) {
            flowID += 1
            for (phase, slice) in [("s", from), ("f", to)] {
                json.object { json in
                    json.field("name") { $0.string(name) }
                    json.field("cat") { $0.string("flow") }
                    json.field("ph") { $0.string(phase) }
                    json.field("id") { $0.integer(flowID) }
                    json.field("pid") { $0.integer(pid) }
                    json.field("tid") { $0.integer(slice.thread) }
                    json.field("ts") { $0.number(slice.start) }
                    if phase == "f" { json.field("bp") { $0.string("e") } }
                }
            }
        }
        for slice in trace.slices where !slice.isRaise {
            if let raise = trace.raiseIndex[slice.event] { flow("delivery", from: trace.slices[raise], to: slice) }
        }
        for link in trace.links {
            if let from = trace.raiseIndex[link.from], let to = trace.raiseIndex[link.to] {
                flow(link.name, from: trace.slices[from], to: trace.slices[to])
            }
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
        thread.map { $0 + trackOffset } ?? unrecordedTrack
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
