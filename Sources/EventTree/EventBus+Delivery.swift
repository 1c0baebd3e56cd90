extension EventBus {
    /// Opens a raise: names its type, takes the tree snapshot and the event's number with
    /// the lock held (so that replay rebuilding the tree at that number sees what the route
    /// saw), records the raise, and computes the route outside the lock.
    func begin(
        _ payload: RaisedEvent.Payload, at origin: NodeCore, mode: DeliveryMode, policy: FailurePolicy,
        answerCheck: (@Sendable (any Sendable) -> Bool)?, cause explicitCause: EventID?, inherited: RecordBatch??
    ) -> Delivery {
        let value = payload.value
        let channel = payload.channel
        let outer = inherited == nil ? DeliveryStack.current.innermost(of: ObjectIdentifier(self)) : nil
        let isOutermost = inherited == nil && outer == nil
        lock.lock()
        let recording = recorder != nil && !state.isEnded
        let batch = inherited ?? outer?.batch ?? (recording ? RecordBatch() : nil)
        var log = FactLog(sequence: sequence, isRecording: batch != nil)
        let typeName = state.typeName(of: value, channel: channel, naming: { payload.typeName }, log: &log)
        let snapshot = state.topology
        let generation = generation.load(ordering: .relaxed)
        let id = EventID(rawValue: log.takeNumber())
        let raised = RaisedEvent(
            id: id, typeName: typeName, payload: payload, origin: origin.id, mode: mode,
            cause: explicitCause ?? outer?.eventID, transformedFrom: nil, policy: policy)
        log.record(.raised(raised), numbered: id.rawValue)
        let isLive = snapshot.cores[origin.slot] === origin && !origin.isReleased
        lock.unlock()
        batch?.records.append(contentsOf: log.records)

        let route: [RouteStep<Int>]
        if isLive {
            route = Router.route(
                from: origin.slot, mode: mode, in: LiveRouteTree(topology: snapshot, value: value, channel: channel))
        } else {
            // Raised at a released node: nothing can be reached from it.
            route = []
            batch?.records.append(Record(
                seq: sequence.advance(), fact: .stepUndelivered(id, node: origin.id, phase: .target, lostCalls: 0)))
        }
        return Delivery(
            bus: self, snapshot: snapshot, generation: generation, route: route, raised: raised, value: value,
            policy: policy, answerCheck: answerCheck, batch: batch, isOutermost: isOutermost)
    }

    /// Records the event a transform produced: a new id, linked to the old one, keeping its
    /// origin, mode and cause.
    func openTransform(of old: RaisedEvent, into event: any Event, batch: RecordBatch?) -> RaisedEvent {
        let payload = RaisedEvent.Payload.event(event)
        let raised: RaisedEvent = mutateRecording(into: batch) { state, log in
            let name = state.typeName(of: event, channel: .events, naming: { payload.typeName }, log: &log)
            let id = EventID(rawValue: log.takeNumber())
            let raised = RaisedEvent(
                id: id, typeName: name, payload: payload, origin: old.origin, mode: old.mode,
                cause: old.cause, transformedFrom: old.id, policy: old.policy)
            log.record(.raised(raised), numbered: id.rawValue)
            return raised
        }
        return raised
    }

    /// Like ``mutate(_:)`` but records into a delivery's batch (or nowhere).
    private func mutateRecording<T>(into batch: RecordBatch?, _ change: (inout State, inout FactLog) -> T) -> T {
        lock.lock()
        var log = FactLog(sequence: sequence, isRecording: batch != nil)
        let result = change(&state, &log)
        lock.unlock()
        batch?.records.append(contentsOf: log.records)
        return result
    }

    /// Ends a delivery: records how it ended, calls the hooks, and hands an outermost
    /// delivery's records to the recorder.
    func end(_ delivery: Delivery) -> RaiseResult {
        let result = delivery.finish()
        if delivery.isUnattended {
            let hook = lock.withLock { delivery.channel == .errors ? state.unhandledErrorHook : state.deadLetterHook }
            hook?(delivery.first)
        }
        if delivery.isOutermost, let batch = delivery.batch, let recorder {
            let records = batch.records
            batch.records = []
            recorder.record(records, session: session)
        }
        return result
    }

    // MARK: The synchronous driver

    /// Delivers `payload` on the calling thread and returns how it ended.
    func deliver(
        _ payload: RaisedEvent.Payload, at origin: NodeCore, mode: DeliveryMode, policy: FailurePolicy = .continue,
        answerCheck: (@Sendable (any Sendable) -> Bool)? = nil, onMainActor: Bool,
        cause: EventID? = nil, inherited: RecordBatch?? = nil
    ) -> RaiseResult {
        var delivery = begin(
            payload, at: origin, mode: mode, policy: policy, answerCheck: answerCheck, cause: cause,
            inherited: inherited)
        let stack = DeliveryStack.current
        stack.frames.append(.init(bus: ObjectIdentifier(self), eventID: delivery.current.id, batch: delivery.batch))
        let depth = stack.frames.count - 1
        while let call = delivery.nextCall() {
            let started = delivery.isRecording ? monotonicNanoseconds() : 0
            let result = call.runSynchronously(onMainActor: onMainActor)
            let elapsed = delivery.isRecording ? monotonicNanoseconds() - started : 0
            let followUp = delivery.complete(call, with: result, nanoseconds: elapsed)
            stack.frames[depth].eventID = delivery.current.id
            switch followUp {
            case let .reportError(error, node, cause)?:
                _ = deliver(
                    .error(error), at: node, mode: .bubble, onMainActor: onMainActor, cause: cause,
                    inherited: .some(delivery.batch))
            case let .convert(event, node, cause)?:
                _ = deliver(
                    .event(event), at: node, mode: .bubble, onMainActor: onMainActor, cause: cause,
                    inherited: .some(delivery.batch))
            case nil:
                break
            }
        }
        stack.frames.removeLast()
        return end(delivery)
    }

    // MARK: The async driver

    /// Delivers `payload`, awaiting main-actor handlers in route order, and returns how it ended.
    func deliverAsync(
        _ payload: RaisedEvent.Payload, at origin: NodeCore, mode: DeliveryMode, policy: FailurePolicy = .continue,
        answerCheck: (@Sendable (any Sendable) -> Bool)? = nil, cause: EventID? = nil, inherited: RecordBatch?? = nil
    ) async -> RaiseResult {
        var delivery = begin(
            payload, at: origin, mode: mode, policy: policy, answerCheck: answerCheck, cause: cause,
            inherited: inherited)
        while let call = delivery.nextCall() {
            let frame = DeliveryStack.Frame(
                bus: ObjectIdentifier(self), eventID: delivery.current.id, batch: delivery.batch)
            let timed = delivery.isRecording
            let (result, elapsed) = await call.runAwaiting(in: frame, timed: timed)
            switch delivery.complete(call, with: result, nanoseconds: elapsed) {
            case let .reportError(error, node, cause)?:
                _ = await deliverAsync(.error(error), at: node, mode: .bubble, cause: cause, inherited: .some(delivery.batch))
            case let .convert(event, node, cause)?:
                _ = await deliverAsync(.event(event), at: node, mode: .bubble, cause: cause, inherited: .some(delivery.batch))
            case nil:
                break
            }
        }
        return end(delivery)
    }
}

extension Delivery.Call {
    /// Calls the handler on this thread. A main-actor handler runs only when the raise was
    /// made on the main actor; otherwise the call fails with
    /// ``DeliveryError/isolatedHandler(label:)``.
    func runSynchronously(onMainActor: Bool) -> Delivery.CallResult {
        switch entry.body {
        case .anyThread(let body):
            return Self.capture { try body(value, context) }
        case .mainActor(let body):
            guard onMainActor else {
                return .failed(DeliveryError.isolatedHandler(label: entry.registration.label))
            }
            return MainActor.assumeIsolated { Self.capture { try body(value, context) } }
        }
    }

    /// Calls the handler where it must run (hopping to the main actor for main-actor
    /// handlers), with `frame` as this thread's innermost delivery during the call.
    func runAwaiting(in frame: DeliveryStack.Frame, timed: Bool) async -> (Delivery.CallResult, Int) {
        let value = value
        let context = context
        switch entry.body {
        case .anyThread(let body):
            return Self.timed(timed, in: frame) { try body(value, context) }
        case .mainActor(let body):
            return await MainActor.run { Self.timed(timed, in: frame) { try body(value, context) } }
        }
    }

    private static func timed(
        _ timed: Bool, in frame: DeliveryStack.Frame, _ body: () throws -> Outcome
    ) -> (Delivery.CallResult, Int) {
        let stack = DeliveryStack.current
        stack.frames.append(frame)
        defer { stack.frames.removeLast() }
        let started = timed ? monotonicNanoseconds() : 0
        let result = capture(body)
        return (result, timed ? monotonicNanoseconds() - started : 0)
    }

    private static func capture(_ body: () throws -> Outcome) -> Delivery.CallResult {
        do {
            return .outcome(try body())
        } catch {
            return .failed(error)
        }
    }
}

extension RaisedEvent.Payload {
    /// The name handlers are matched under in the journal.
    var typeName: String {
        switch self {
        case .event(let event): type(of: event).eventTypeName
        case .error(let error): String(describing: type(of: error))
        }
    }
}
