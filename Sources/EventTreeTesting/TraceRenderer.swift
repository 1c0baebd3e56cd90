import EventTree

/// Replays records in sequence order to print them with the names and paths that held
/// when each happened.
struct TraceRenderer {
    let records: [Record]

    private var names: [NodeID: String] = [:]
    private var parents: [NodeID: NodeID] = [:]
    private var handlers: [HandlerID: HandlerRegistration] = [:]
    private var events: [EventID: RaisedEvent] = [:]
    /// Paths of released nodes, as they stood at release.
    private var frozen: [NodeID: String] = [:]

    init(records: [Record]) {
        self.records = records
    }

    func lines(after since: Int) -> [String] {
        var renderer = self
        var lines: [String] = []
        for record in records {
            let line = renderer.apply(record.fact)
            if record.seq > since, let line { lines.append(line) }
        }
        return lines
    }

    private func path(_ node: NodeID) -> String {
        if let path = frozen[node] { return path }
        var parts: [String] = []
        var current: NodeID? = node
        while let id = current {
            parts.append(names[id] ?? "?")
            current = parents[id]
        }
        return parts.reversed().joined(separator: "/")
    }

    private func label(_ handler: HandlerID) -> String { handlers[handler]?.label ?? "?" }
    private func type(_ event: EventID?) -> String { event.flatMap { events[$0]?.typeName } ?? "?" }

    private func describe(_ status: RaiseStatus) -> String {
        switch status {
        case .failed(let failure):
            "failed by \(failure.site.label) at \(path(failure.site.node)) \(failure.site.phase): \(failure.message)"
        default:
            status.site.map { "\(status.name) by \($0.label) at \(path($0.node)) \($0.phase)" } ?? status.name
        }
    }

    /// Applies one fact to the model and returns its line, if it has one.
    private mutating func apply(_ fact: Fact) -> String? {
        switch fact {
        case .sessionStarted, .sessionEnded, .handlerMatched:
            return nil
        case let .nodeCreated(node, name):
            names[node] = name
            return "create \(name)"
        case let .nodeAttached(node, parent, _):
            parents[node] = parent
            return "attach \(path(node))"
        case let .nodeMoved(node, parent, _):
            parents[node] = parent
            return "move \(path(node))"
        case let .nodeDetached(node, _):
            let line = "detach \(path(node))"
            parents[node] = nil
            return line
        case let .nodeRenamed(node, name):
            let line = "rename \(path(node)) -> \(name)"
            names[node] = name
            return line
        case let .nodeReleased(node):
            let line = "release \(path(node))"
            frozen[node] = path(node)
            return line
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
        case let .handlerCalled(call):
            var line = "call \(path(call.node)) \(call.phase) \(label(call.handler)) -> \(call.outcome)"
            if let detail = call.detail { line += " (\(detail.text))" }
            return line
        case let .stepUndelivered(_, node, phase, lostCalls):
            return "undelivered \(path(node)) \(phase)" + (lostCalls > 0 ? " (\(lostCalls) lost)" : "")
        case let .raiseFinished(event, status):
            return "end \(type(event)) \(describe(status))"
        case let .deadLetter(event):
            return "dead letter \(type(event))"
        case let .unhandledError(event):
            return "unhandled error \(type(event))"
        }
    }
}
