import EventTree
import EventTreeJournal

/// Replays records in sequence order to print them with the names and paths that held
/// when each happened.
struct TraceRenderer {
    let records: [FactRecord]

    private var tree = JournalTree()
    private var handlers: [HandlerID: HandlerRegistration] = [:]
    private var events: [EventID: RaisedEvent] = [:]

    init(records: [FactRecord]) {
        self.records = records
    }

    /// One line per fact after `since` (matches and session facts have none).
    func lines(after since: Int) -> [String] {
        var renderer = self
        return records.compactMap { record in
            let line = renderer.apply(record.fact)
            return record.seq > since ? line : nil
        }
    }

    private func path(_ node: NodeID) -> String { tree.path(of: node) }
    private func label(_ handler: HandlerID) -> String { handlers[handler]?.label ?? "?" }
    private func type(_ event: EventID?) -> String { event.flatMap { events[$0]?.typeName } ?? "?" }

    private func describe(_ status: RaiseStatus) -> String {
        switch status {
        case .failed(let failure):
            failure.site.map { "failed by \($0.label) at \(path($0.node)) \($0.phase): \(failure.message)" }
                ?? "failed: \(failure.message)"
        default:
            status.site.map { "\(status.name) by \($0.label) at \(path($0.node)) \($0.phase)" } ?? status.name
        }
    }

    /// Applies one fact to the model and returns its line, if it has one. A tree change's
    /// line names the path before the change, except for attach and move (the new path).
    private mutating func apply(_ fact: Fact) -> String? {
        switch fact {
        case .sessionStarted, .sessionEnded, .handlerMatched:
            return nil
        case let .nodeCreated(node, name):
            tree.apply(.created(name: name), to: node)
            return "create \(name)"
        case let .nodeAttached(node, parent, index):
            tree.apply(.attached(parent: parent, index: index), to: node)
            return "attach \(path(node))"
        case let .nodeMoved(node, parent, index):
            tree.apply(.moved(parent: parent, index: index), to: node)
            return "move \(path(node))"
        case let .nodeDetached(node, _):
            defer { tree.apply(.detached, to: node) }
            return "detach \(path(node))"
        case let .nodeRenamed(node, name):
            defer { tree.apply(.renamed(name: name), to: node) }
            return "rename \(path(node)) -> \(name)"
        case let .nodeReleased(node, _):
            defer { tree.apply(.released, to: node) }
            return "release \(path(node))"
        case let .handlerAdded(registration):
            handlers[registration.id] = registration
            return "add \(registration.label) on \(path(registration.node))"
        case let .handlerRemoved(handler):
            return "remove \(label(handler)) on \(handlers[handler].map { path($0.node) } ?? "?")"
        case let .raised(raised):
            events[raised.id] = raised
            var line = "raise \(raised.typeName) at \(path(raised.origin)) \(raised.mode)"
            if raised.transformedFrom == nil, let cause = raised.cause { line += " cause \(type(cause))" }
            if let from = raised.transformedFrom { line += " from \(type(from))" }
            return line
        case let .handlerCalled(call, detail):
            var line = "call \(path(call.node)) \(call.phase) \(label(call.handler)) -> \(call.outcome)"
            if let detail { line += " (\(detail.text))" }
            return line
        case let .stepUndelivered(_, node, phase, lostHandlers):
            return "undelivered \(path(node)) \(phase)" + (lostHandlers.isEmpty ? "" : " (\(lostHandlers.count) lost)")
        case let .raiseFinished(event, status):
            return "end \(type(event)) \(describe(status))"
        case let .deadLetter(event):
            return "dead letter \(type(event))"
        case let .unhandledError(event):
            return "unhandled error \(type(event))"
        }
    }
}
