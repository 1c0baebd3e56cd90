import EventTree
import EventTreeJournal
import Foundation
import InMemoryTracing
import Tracing

struct Edit: Event {}
struct Theme: Event {}
struct Close: Event {}
struct Save: Event {}
struct SaveNormalized: Event {}
struct Upload: Event {}
struct RetryScheduled: Event {}
struct Notify: Event {}
struct Unheard: Event {}

struct UploadFailed: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

/// A monotonic clock for tests: every reading is `step` nanoseconds after the one before,
/// the first one 0.
final class Ticks: @unchecked Sendable {
    // Safe: `now` is read and written only with `lock` held.
    private let lock = NSLock()
    private var now = -1
    private let step: Int

    init(step: Int = 1_000) {
        self.step = step
    }

    func next() -> Int {
        lock.withLock {
            now += 1
            return now * step
        }
    }

    /// A bus clock: a session starting at `wallSeconds`, each reading `step` later.
    static func clock(wallSeconds: Double = 1_700_000_000, step: Int = 1_000) -> EventClock {
        let ticks = Ticks(step: step)
        return EventClock(wallSeconds: { wallSeconds }, nanoseconds: { ticks.next() })
    }
}

/// The finished spans as a tree, one line a span, children indented under their parent in
/// the order they were started:
///
/// - a raise: `TYPE KIND MODE at PATH -> RESULT`, then ` dead letter` or ` unhandled`;
/// - a call: `LABEL at PATH PHASE -> OUTCOME`;
/// - any other span (the test's own): its name;
///
/// then, on either, `; link RELATION TYPE` per link (the linked raise's type),
/// `; error DESCRIPTION` per recorded error, `; status error: MESSAGE`, and
/// `; undelivered PATH PHASE` per undelivered step. With `times`, each line ends with the
/// span's start and end in microseconds after `origin` (nanoseconds since 1970).
func render(_ spans: [FinishedInMemorySpan], times origin: UInt64? = nil) -> String {
    let ordered = spans.sorted { spanNumber($0) < spanNumber($1) }
    let byID = Dictionary(uniqueKeysWithValues: ordered.map { ($0.spanID, $0) })
    var lines: [String] = []
    func visit(_ span: FinishedInMemorySpan, depth: Int) {
        var line = String(repeating: "  ", count: depth) + describe(span, linkNames: byID)
        if let origin {
            line += " [\(micros(span.startInstant, origin))…\(micros(span.endInstant, origin))]"
        }
        lines.append(line)
        for child in ordered where child.parentSpanID == span.spanID { visit(child, depth: depth + 1) }
    }
    for root in ordered where root.parentSpanID.map({ byID[$0] == nil }) ?? true { visit(root, depth: 0) }
    return lines.joined(separator: "\n")
}

private func micros(_ instant: any TracerInstant, _ origin: UInt64) -> String {
    let delta = Int64(bitPattern: instant.nanosecondsSinceEpoch &- origin)
    return "\(delta / 1_000)µs"
}

private func spanNumber(_ span: FinishedInMemorySpan) -> Int {
    Int(span.spanID.drop { !$0.isNumber }) ?? 0
}

private func describe(_ span: FinishedInMemorySpan, linkNames: [String: FinishedInMemorySpan]) -> String {
    let attributes = span.attributes
    func value(_ name: String) -> String { text(attributes.get(name)) }
    var line: String
    if attributes.get("eventtree.outcome") == nil && attributes.get("eventtree.event.type") == nil {
        line = span.operationName
    } else if attributes.get("eventtree.outcome") != nil {
        line = "\(span.operationName) at \(value("eventtree.node.path")) \(value("eventtree.phase"))"
            + " -> \(value("eventtree.outcome"))"
    } else {
        line = "\(span.operationName) \(value("eventtree.event.kind")) \(value("eventtree.delivery.mode"))"
            + " at \(value("eventtree.node.path")) -> \(value("eventtree.result"))"
        if attributes.get("eventtree.dead_letter") == .bool(true) { line += " dead letter" }
        if attributes.get("eventtree.unhandled_error") == .bool(true) { line += " unhandled" }
    }
    for link in span.links {
        let relation = text(link.attributes.get("eventtree.link"))
        let target = link.context.inMemorySpanContext.flatMap { linkNames[$0.spanID]?.operationName } ?? "?"
        line += "; link \(relation) \(target)"
    }
    for error in span.errors { line += "; error \(error.error)" }
    if let status = span.status, status.code == .error { line += "; status error: \(status.message ?? "")" }
    for event in span.events where event.name == "eventtree.step.undelivered" {
        let path = text(event.attributes.get("eventtree.node.path"))
        let phase = text(event.attributes.get("eventtree.phase"))
        line += "; undelivered \(path) \(phase)"
    }
    return line
}

/// An attribute's value as text; `-` for none.
func text(_ attribute: SpanAttribute?) -> String {
    switch attribute {
    case .string(let value)?: value
    case .int64(let value)?: String(value)
    case .bool(let value)?: String(value)
    case let other?: "\(other)"
    case nil: "-"
    }
}

/// The rows of `sql` on the journal at `path`, each as its values joined by `|`.
func lines(_ path: String, _ sql: String) throws -> [String] {
    try JournalReader(path: path).rows(sql).map { row in
        row.map { value in
            switch value {
            case .null: ""
            case .integer(let number): String(number)
            case .real(let number): String(number)
            case .text(let text): text
            }
        }.joined(separator: "|")
    }
}
