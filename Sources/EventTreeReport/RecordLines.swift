import EventTree
import EventTreeJournal

/// Every record of a journal as one JSON object per line (JSON Lines), in seq order, for
/// tools of any language: what `eventtree export --format jsonl` prints.
///
/// Each object has `seq` and `record` (its kind: `session_started`, `session_ended`,
/// `tree_change`, `handler_added`, `handler_removed`, `raise`, `call`, `undelivered`,
/// `dead_letter`, `unhandled_error`, `trouble`), then the record's fields; absent values
/// are `null`. A raise's `payload` is its JSON text, as a string.
///
/// ```swift
/// try RecordLines(journal: "app.eventtree").write { line in print(line, terminator: "") }
/// ```
public struct RecordLines: Sendable {
    /// The journal's path.
    public let path: String

    /// Prepares the export of the journal at `path`.
    public init(journal path: String) {
        self.path = path
    }

    /// Calls `output` with each line (newline included), in seq order, streaming.
    ///
    /// - Throws: `JournalError` when the file cannot be read as a journal or a record is damaged.
    public func write(_ output: (String) -> Void) throws {
        let reader = try JournalReader(path: path)
        let handlers = try reader.registrations()
        let records = try reader.records()
        while let record = records.current {
            var json = ReportJSON()
            json.object { json in Self.encode(record, handlers: handlers, into: &json) }
            output(json.text + "\n")
            try records.advance()
        }
    }

    private static func encode(_ record: JournalRecord, handlers: RecordedRegistrations, into json: inout ReportJSON) {
        func field(_ name: String, _ value: String?) { json.field(name) { $0.string(value) } }
        func field(_ name: String, _ value: Int?) { json.field(name) { $0.integer(value) } }
        field("seq", record.seq)
        switch record {
        case .sessionStarted(let session):
            field("record", "session_started")
            field("session", session.id.rawValue)
            json.field("started_at") { $0.number(session.startedAt) }
            field("process", session.process)
            field("host", session.host)
            field("app_version", session.appVersion)
        case .sessionEnded(let session, _):
            field("record", "session_ended")
            field("session", session.rawValue)
        case .treeChange(let change):
            field("record", "tree_change")
            field("node", change.node.rawValue)
            field("change", change.change.name)
            switch change.change {
            case .attached(let parent, let index), .moved(let parent, let index):
                field("parent", parent.rawValue)
                field("position", index)
            case .created(let name), .renamed(let name):
                field("name", name)
            case .detached, .released:
                break
            }
        case .handlerAdded(let handler):
            field("record", "handler_added")
            field("handler", handler.id.rawValue)
            field("node", handler.node.rawValue)
            field("label", handler.label)
            field("location", handler.location)
            field("event_type", handler.eventType)
            field("channel", handler.channel == .errors ? "errors" : "events")
            field("phases", Phase.allCases.filter { handler.phases.contains($0) }.map(\.description).joined(separator: ","))
        case .handlerRemoved(let handler, _):
            field("record", "handler_removed")
            field("handler", handler.rawValue)
        case .raise(let event):
            field("record", "raise")
            field("session", event.session.rawValue)
            field("event_type", event.typeName)
            field("kind", event.kind.description)
            field("origin", event.origin.rawValue)
            field("mode", event.mode.description)
            field("cause", event.cause?.rawValue)
            field("transformed_from", event.transformedFrom?.rawValue)
            field("result", event.result.rawValue)
            field("finished_seq", event.finishedSeq)
            field("raised_us", event.raisedMicroseconds)
            field("thread", event.thread)
            field("payload", event.payload)
        case .step(let step):
            if case .call = step.kind { field("record", "call") } else { field("record", "undelivered") }
            field("event", step.event.rawValue)
            field("node", step.node.rawValue)
            field("phase", step.phase.description)
            switch step.kind {
            case .call(let number, let outcome):
                field("handler", handlers.handler(numbered: number)?.id.rawValue)
                field("outcome", outcome.rawValue)
                field("offset_us", step.offsetMicroseconds)
                field("duration_ns", step.durationNanoseconds)
            case .undelivered(let lostCalls):
                field("lost_calls", lostCalls)
            }
        case .deadLetter(let event, _):
            field("record", "dead_letter")
            field("event", event.rawValue)
        case .unhandledError(let event, _):
            field("record", "unhandled_error")
            field("event", event.rawValue)
        case .trouble(let trouble):
            field("record", "trouble")
            field("session", trouble.session?.rawValue)
            field("kind", trouble.kind)
            field("message", trouble.message)
            field("records", trouble.records)
        }
    }
}
