import EventTree
import Tracing

/// The spans one batch of records becomes, worked out in full before the tracer hears of
/// any: which span is whose parent, when each starts and ends (on the bus clock), and what
/// it carries. Worked out with the recorder's lock held (it reads the recorded world);
/// handed to the tracer after the lock is released (``emit(to:under:)``).
///
/// The rules, in the order they are tried for a raise:
/// 1. A raise that a call's outcome produced — the error a failing call threw, the event an
///    error handler converted its error into, the event a transform carries on with — is a
///    child of that call. Such a raise directly follows its call in the batch.
/// 2. A raise from inside a handler is a child of the call it was raised in: the first call
///    of its cause recorded after it (a call is recorded when it returns, after everything
///    raised inside it).
/// 3. Otherwise it is a top-level raise, a child of the recorder's parent context.
///
/// A call is a child of its event's raise. A raise ends when the last thing recorded inside
/// it ended (the facts carry no end time for a raise).
struct SpanPlan {
    /// One span to be.
    struct Planned {
        var name: String
        var isCall = false
        var parent: Int?
        /// Bus-clock nanoseconds.
        var start: Int
        var end: Int
        var attributes: SpanAttributes = [:]
        var links: [(target: Int, relation: String)] = []
        var errors: [(error: any Error, at: Int)] = []
        var status: SpanStatus?
        var events: [(name: String, at: Int, attributes: SpanAttributes)] = []
    }

    private(set) var spans: [Planned] = []
    private let clock: RecordedWorld.SessionClock

    /// Plans the spans of `records` (in sequence order), applying to `world` any fact among
    /// them that changes it.
    init(records: [FactRecord], clock: RecordedWorld.SessionClock, world: inout RecordedWorld) {
        self.clock = clock
        // Every raise and every call gets a span, numbered in record order.
        var spanOfRecord = [Int](repeating: -1, count: records.count)
        var count = 0
        for (index, record) in records.enumerated() {
            switch record.fact {
            case .raised, .handlerCalled:
                spanOfRecord[index] = count
                count += 1
            default:
                break
            }
        }
        guard count > 0 else {
            for record in records { world.apply(record) }
            return
        }
        // A raise from inside a handler comes before the call it was raised in: walking
        // backwards, the next call of its cause is at hand when the raise is met.
        var enclosingCall: [Int: Int] = [:]
        var nextCall: [EventID: Int] = [:]
        for index in records.indices.reversed() {
            switch records[index].fact {
            case .handlerCalled(let call, _):
                nextCall[call.event] = spanOfRecord[index]
            case .raised(let raised):
                if let cause = raised.cause, let call = nextCall[cause] { enclosingCall[index] = call }
            default:
                break
            }
        }

        spans.reserveCapacity(count)
        var raiseSpans: [EventID: Int] = [:]
        var kinds: [EventID: RaisedEvent.Kind] = [:]
        // The latest instant recorded so far: where an undelivered step is placed, and
        // where a raise ends when its own end comes.
        var latest = Int.min
        for (index, record) in records.enumerated() {
            switch record.fact {
            case .raised(let raised):
                kinds[raised.id] = raised.kind
                let isProduct = index > 0 && Self.isProduct(of: raised, records[index - 1], kinds: kinds)
                let parent = (isProduct ? spanOfRecord[index - 1] : nil)
                    ?? enclosingCall[index]
                    ?? (raised.transformedFrom ?? raised.cause).flatMap { raiseSpans[$0] }
                var span = Planned(name: raised.typeName, parent: parent, start: raised.raisedAt, end: raised.raisedAt)
                span.attributes = Self.attributes(of: raised, seq: record.seq, world: world)
                if case .error(let error) = raised.payload { span.errors.append((error, raised.raisedAt)) }
                // The chain's cause is linked from its first event; a transformed event
                // links to the one it came from.
                let linked = raised.transformedFrom.map { ($0, "transformed_from") } ?? raised.cause.map { ($0, "cause") }
                if let (event, relation) = linked, let target = raiseSpans[event], target != parent {
                    span.links.append((target, relation))
                }
                raiseSpans[raised.id] = spans.count
                spans.append(span)
                latest = max(latest, raised.raisedAt)
            case .handlerCalled(let call, let detail):
                let end = call.startedAt + call.nanoseconds
                var span = Planned(
                    name: world.handler(call.handler)?.label ?? "handler \(call.handler.rawValue)",
                    parent: raiseSpans[call.event], start: call.startedAt, end: end)
                span.isCall = true
                span.attributes = Self.attributes(of: call, seq: record.seq, world: world)
                if case .error(let error)? = detail {
                    span.errors.append((error, end))
                    span.status = SpanStatus(code: .error, message: String(describing: error))
                }
                spans.append(span)
                latest = max(latest, end)
            case let .stepUndelivered(event, node, phase, lostHandlers):
                guard let target = raiseSpans[event] else { break }
                var attributes: SpanAttributes = [:]
                if let path = world.tree.path(of: node, at: record.seq) { attributes.set(Name.nodePath, value: .string(path)) }
                attributes.set(Name.phase, value: .string(phase.description))
                attributes.set(Name.lostHandlers, value: .int64(Int64(lostHandlers.count)))
                spans[target].events.append((Name.undeliveredEvent, max(latest, spans[target].start), attributes))
            case let .raiseFinished(event, status):
                guard let target = raiseSpans[event] else { break }
                spans[target].end = max(spans[target].end, latest)
                spans[target].attributes.set(Name.result, value: .string(status.name))
                if case .failed(let failure) = status {
                    spans[target].status = SpanStatus(code: .error, message: failure.message)
                }
            case .deadLetter(let event):
                if let target = raiseSpans[event] { spans[target].attributes.set(Name.deadLetter, value: .bool(true)) }
            case .unhandledError(let event):
                guard let target = raiseSpans[event] else { break }
                spans[target].attributes.set(Name.unhandledError, value: .bool(true))
                spans[target].status = SpanStatus(code: .error, message: "unhandled error")
            default:
                world.apply(record)
            }
        }
        // A raise lasts at least as long as what happened under it, a raise its call
        // produced included (which starts once the call has returned). Every span comes
        // after its nearest raise above it, so one backward pass settles every end.
        for index in spans.indices.reversed() {
            guard var ancestor = spans[index].parent else { continue }
            if spans[ancestor].isCall {
                guard let raise = spans[ancestor].parent else { continue }
                ancestor = raise
            }
            spans[ancestor].end = max(spans[ancestor].end, spans[index].end)
        }
    }

    /// Whether `raised` is what the call recorded just before it produced: the error of a
    /// failing call (on the event channel), a converted error's event, or a transform.
    private static func isProduct(of raised: RaisedEvent, _ previous: FactRecord, kinds: [EventID: RaisedEvent.Kind]) -> Bool {
        guard case .handlerCalled(let call, _) = previous.fact else { return false }
        let source = kinds[call.event]
        switch call.outcome {
        case .transformed where raised.transformedFrom == call.event,
            .transformedError where raised.transformedFrom == call.event:
            return true
        case .transformed where source == .error && raised.kind != .error && raised.cause == call.event:
            return true
        case .failed where source != .error && raised.kind == .error && raised.cause == call.event
            && raised.transformedFrom == nil:
            return true
        default:
            return false
        }
    }

    private static func attributes(of raised: RaisedEvent, seq: Int, world: RecordedWorld) -> SpanAttributes {
        var attributes: SpanAttributes = [:]
        attributes.set(Name.eventID, value: .int64(Int64(raised.id.rawValue)))
        attributes.set(Name.eventType, value: .string(raised.typeName))
        attributes.set(Name.eventKind, value: .string(raised.kind.description))
        attributes.set(Name.mode, value: .string(raised.mode.description))
        if let path = world.tree.path(of: raised.origin, at: seq) { attributes.set(Name.nodePath, value: .string(path)) }
        if let cause = raised.cause { attributes.set(Name.cause, value: .int64(Int64(cause.rawValue))) }
        if let source = raised.transformedFrom {
            attributes.set(Name.transformedFrom, value: .int64(Int64(source.rawValue)))
        }
        return attributes
    }

    private static func attributes(of call: HandlerCall, seq: Int, world: RecordedWorld) -> SpanAttributes {
        var attributes: SpanAttributes = [:]
        attributes.set(Name.eventID, value: .int64(Int64(call.event.rawValue)))
        if let path = world.tree.path(of: call.node, at: seq) { attributes.set(Name.nodePath, value: .string(path)) }
        attributes.set(Name.phase, value: .string(call.phase.description))
        if let handler = world.handler(call.handler) {
            attributes.set(Name.handlerLabel, value: .string(handler.label))
            attributes.set(Name.handlerLocation, value: .string(handler.location))
        }
        attributes.set(Name.outcome, value: .string(call.outcome.rawValue))
        return attributes
    }

    /// The wall-clock instant of the bus clock's reading `nanoseconds`.
    private func instant(_ nanoseconds: Int) -> DefaultTracerClock.Instant {
        DefaultTracerClock.Instant(nanosecondsSinceEpoch: clock.wall(nanoseconds))
    }

    /// Starts, fills and ends the planned spans with `tracer`: parents before children, a
    /// top-level span under `context`. A span that does not record (a sampler left it out)
    /// gets no children.
    func emit(to tracer: any Tracer, under context: ServiceContext) {
        var children = [[Int]](repeating: [], count: spans.count)
        var roots: [Int] = []
        for (index, span) in spans.enumerated() {
            if let parent = span.parent { children[parent].append(index) } else { roots.append(index) }
        }
        var started = [(any Span)?](repeating: nil, count: spans.count)
        var order: [Int] = []
        order.reserveCapacity(spans.count)
        var pending = Array(roots.reversed())
        while let index = pending.popLast() {
            let plan = spans[index]
            let parentContext = plan.parent.flatMap { started[$0]?.context } ?? context
            let span = tracer.startSpan(plan.name, context: parentContext, ofKind: .internal, at: instant(plan.start))
            guard span.isRecording else {
                span.end(at: instant(plan.end))
                continue
            }
            span.updateAttributes { $0.merge(plan.attributes) }
            started[index] = span
            order.append(index)
            pending.append(contentsOf: children[index].reversed())
        }
        for index in order {
            guard let span = started[index] else { continue }
            let plan = spans[index]
            for link in plan.links {
                guard let target = started[link.target] else { continue }
                span.addLink(SpanLink(context: target.context, attributes: [Name.link: .string(link.relation)]))
            }
            for (error, at) in plan.errors { span.recordError(error, attributes: [:], at: instant(at)) }
            for event in plan.events {
                span.addEvent(SpanEvent(name: event.name, at: instant(event.at), attributes: event.attributes))
            }
            if let status = plan.status { span.setStatus(status) }
        }
        // Children end before their parents.
        for index in order.reversed() {
            started[index]?.end(at: instant(spans[index].end))
        }
    }
}

/// The attribute and event names, stable: dashboards and queries use them.
enum Name {
    static let eventID = "eventtree.event.id"
    static let eventType = "eventtree.event.type"
    static let eventKind = "eventtree.event.kind"
    static let mode = "eventtree.delivery.mode"
    static let nodePath = "eventtree.node.path"
    static let cause = "eventtree.event.cause"
    static let transformedFrom = "eventtree.event.transformed_from"
    static let result = "eventtree.result"
    static let deadLetter = "eventtree.dead_letter"
    static let unhandledError = "eventtree.unhandled_error"
    static let phase = "eventtree.phase"
    static let handlerLabel = "eventtree.handler.label"
    static let handlerLocation = "eventtree.handler.location"
    static let outcome = "eventtree.outcome"
    static let lostHandlers = "eventtree.lost_handlers"
    static let link = "eventtree.link"
    static let undeliveredEvent = "eventtree.step.undelivered"
}
