extension EventBus {
    /// Opens a raise: names its type, takes the tree snapshot and the event's number with
    /// the lock held (so that replay rebuilding the tree at that number sees what the route
    /// saw), records the raise, and computes the route outside the lock.
    ///
    /// - Parameters:
    ///   - stack: This thread's deliveries, when the caller already has it.
    ///   - inherited: The batch of the delivery this one follows up (an error or a
    ///     conversion), which then is not the outermost; `nil` to look at `outer`.
    ///   - outer: The innermost delivery of this bus on the raising thread, for a raise that
    ///     follows up nothing.
    ///   - isolation: Where it is raised.
    @inline(never)
    func begin(
        _ box: AnyEventBox, channel: HandlerRegistration.Channel, at origin: NodeCore, mode: DeliveryMode,
        policy: FailurePolicy, answerCheck: (@Sendable (any Sendable) -> Bool)?, cause explicitCause: EventID?,
        inherited: RecordBatch??, outer: DeliveryStack.Frame?, stack: DeliveryStack? = nil, isolation: RaiseIsolation
    ) -> Delivery {
        let isOutermost = inherited == nil && outer == nil
        // Read before the lock; only a recording bus reads the clock.
        let raisedAt = isRecorded ? clock.now() : 0
        lock.lock()
        let recording: Bool = if let inherited { inherited != nil } else if let outer { outer.batch != nil } else {
            isRecorded && !state.isEnded
        }
        let cause = explicitCause ?? outer?.eventID
        let typeIndex = state.knownType(of: box, channel: channel) ?? meetType(of: box, channel: channel)
        let id: EventID
        var recorded: RaisedEvent?
        if recording {
            // An outermost raise opens the batch its records are handed over in (see
            // `SequenceCounter.open()`). Only the journal needs the raise as a value now;
            // otherwise the delivery makes it when something asks (a hook, a transform).
            id = EventID(rawValue: isOutermost ? sequence.open() : sequence.advance())
            recorded = RaisedEvent(
                id: id, typeName: state.seenTypes[typeIndex].info.name, payload: box.payload,
                kind: channel == .errors ? .error : answerCheck != nil ? .request : .event, origin: origin.id, mode: mode,
                cause: cause, transformedFrom: nil, policy: policy, raisedAt: raisedAt, isolation: isolation)
        } else {
            id = EventID(rawValue: sequence.advance())
        }
        let snapshot = state.topologySnapshot()
        let generation = generation.load(ordering: .relaxed)
        let isLive = !origin.isReleased
        lock.unlock()
        // A nested raise joins its parent's batch; an outermost one takes its thread's spare.
        let batch: RecordBatch?
        if let parent = inherited ?? outer.map(\.batch) {
            batch = parent
        } else {
            batch = recording ? (stack ?? DeliveryStack.current).takeBatch() : nil
        }
        if let recorded { batch?.append(FactRecord(seq: id.rawValue, fact: .raised(recorded))) }

        if !isLive {
            // Raised at a released node: nothing can be reached from it.
            batch?.append(FactRecord(
                seq: sequence.advance(), fact: .stepUndelivered(id, node: origin.id, phase: .target, lostHandlers: [])))
        }
        return Delivery(
            bus: self, snapshot: snapshot, generation: generation, origin: origin, isLive: isLive,
            raise: Delivery.Raise(id: id, typeIndex: typeIndex, mode: mode, cause: cause, recorded: recorded),
            box: box, channel: channel, policy: policy, answerCheck: answerCheck, batch: batch, isOutermost: isOutermost)
    }

    /// Applies the rules that keep nesting finite to a delivery just begun, when they can
    /// apply (it nests past ``maximumNestingDepth``, or it is an error): refuses a raise
    /// nested too deep; keeps `converting` from converting an error again.
    @inline(never)
    func limitNesting(of delivery: inout Delivery, depth: Int, converting: [HandlerID]) {
        if depth > maximumNestingDepth {
            delivery.refuse(.nestingTooDeep(
                eventType: typeName(ofType: delivery.typeIndex), limit: maximumNestingDepth, cause: delivery.cause))
        }
        if delivery.channel == .errors, !converting.isEmpty { delivery.blockConversions(by: converting) }
    }

    /// Records the event a transform produced: a new id, linked to the old one, keeping its
    /// origin, mode, cause and policy.
    func openTransform(
        of old: RaisedEvent, into payload: RaisedEvent.Payload, batch: RecordBatch?
    ) -> (RaisedEvent, AnyEventBox, Int) {
        let box = payload.makeBox()
        let raisedAt = batch != nil ? clock.now() : 0
        lock.lock()
        var log = FactLog(sequence: sequence, isRecording: batch != nil, opensBatch: false)
        let channel = payload.channel
        let typeIndex = state.knownType(of: box, channel: channel) ?? meetType(of: box, channel: channel)
        let id = EventID(rawValue: log.takeNumber())
        let raised = RaisedEvent(
            id: id, typeName: state.seenTypes[typeIndex].info.name, payload: payload,
            kind: channel == .errors ? .error : old.kind == .request ? .request : .event, origin: old.origin, mode: old.mode,
            cause: old.cause, transformedFrom: old.id, policy: old.policy, raisedAt: log.isRecording ? raisedAt : 0,
            isolation: old.isolation)
        log.record(.raised(raised), numbered: id.rawValue)
        lock.unlock()
        batch?.append(contentsOf: log.records)
        return (raised, box, typeIndex)
    }

    /// The journal name of the type the bus numbered `index`.
    func typeName(ofType index: Int) -> String {
        lock.withLock { state.seenTypes[index].info.name }
    }

    /// With the lock held: numbers a type raised for the first time on `channel`, recording
    /// which handlers match it.
    private func meetType(of box: AnyEventBox, channel: HandlerRegistration.Channel) -> Int {
        // A type's first meeting with its handlers is a change to shared state: other
        // threads' raises of the type depend on it, so it is queued for the recorder now
        // (and handed over before any raise's records, this one's included).
        var meeting = FactLog(sequence: sequence, isRecording: isRecorded && !state.isEnded, opensBatch: true)
        let type = state.meetType(of: box, channel: channel, name: box.payload.typeName, log: &meeting)
        // A new type gave every plan a new entry: snapshots taken before (a delivery that
        // transforms into this type) must read the live plans from now on.
        generation.add(1, ordering: .releasing)
        enqueueChange(meeting)
        return type.index
    }

    /// Ends a delivery: records how it ended, calls the hooks, and hands an outermost
    /// delivery's records to the recorder. `stack` is the thread's that ends it.
    func end(_ delivery: inout Delivery, stack: DeliveryStack = .current) -> RaiseResult {
        let status = delivery.status
        if delivery.isRecording {
            delivery.recordEnd(status)
        } else if delivery.defersCalls {
            delivery.enqueueDeferredCalls()
        }
        if delivery.isUnattended {
            let isError = delivery.channel == .errors
            let hooks = lock.withLock { isError ? state.unhandledErrorHooks : state.deadLetterHooks }
            if !hooks.isEmpty {
                let raised = delivery.first()
                for (_, hook) in hooks { hook(raised) }
            }
        }
        var recording = RecordingStatus.notRecorded
        if delivery.batch != nil {
            if delivery.isOutermost, isRecorded {
                let count = delivery.batch!.count
                recording = handOver(delivery.batch!, stack: stack)
                // The batch, holding the buffer the recorder handed back, for this thread's
                // next outermost raise (unless something else still holds it).
                // Moved there: the delivery, which ends, has no more use for it.
                if isKnownUniquelyReferenced(&delivery.batch) { stack.keepSpare(delivery.batch.take()!, handedOver: count) }
            } else {
                recording = .withEnclosingRaise
            }
        }
        return delivery.result(status, recording: recording)
    }

    /// Hands an outermost raise's records to the recorder: the batch itself to a recorder
    /// that takes batches; otherwise the records moved into the array `stack` keeps for this
    /// thread's raises, which keeps the buffer the recorder hands back.
    @inline(__always)
    func handOver(_ batch: RecordBatch, stack: DeliveryStack) -> RecordingStatus {
        // The changes this raise may depend on go first. (The lock taken at its start makes
        // every change queued before it visible here.)
        if unsentChanges.load(ordering: .relaxed) != 0 { handOverChanges() }
        if let batchRecorder { return batchRecorder.record(takingFrom: batch, session: session) }
        var records = stack.spareRecords.take() ?? []
        batch.moveAll(appendingTo: &records)
        let status = recorder!.record(emptying: &records, session: session)
        stack.spareRecords = consume records
        return status
    }

    // MARK: The synchronous driver

    /// Delivers the value in `box` on `channel` from the calling thread and returns how it ended.
    /// The entry point of the inlinable raise, which passes the box it made (by code specialized
    /// for the event's type) and its thread's `stack`.
    @usableFromInline
    func deliver(
        _ box: AnyEventBox, channel: HandlerRegistration.Channel, at origin: NodeCore, mode: DeliveryMode,
        policy: FailurePolicy = .continue, answerCheck: (@Sendable (any Sendable) -> Bool)? = nil, onMainActor: Bool,
        cause: EventID? = nil, inherited: RecordBatch?? = nil, stack: DeliveryStack = .current
    ) -> RaiseResult {
        let enclosing = stack.innermost(of: ObjectIdentifier(self))
        let depth = (enclosing?.depth ?? 0) &+ 1
        var delivery = begin(
            box, channel: channel, at: origin, mode: mode, policy: policy, answerCheck: answerCheck, cause: cause,
            inherited: inherited, outer: inherited == nil ? enclosing : nil, stack: stack,
            isolation: onMainActor ? .mainActor : .elsewhere)
        if depth > maximumNestingDepth || channel == .errors {
            limitNesting(of: &delivery, depth: depth, converting: stack.converting)
        }
        let outerCall = stack.push(
            .init(bus: ObjectIdentifier(self), eventID: delivery.currentID, batch: delivery.batch, depth: depth))
        let timed = delivery.isRecording
        // A recorded call ends with one reading, which is also the start of the next call
        // when nothing else ran in between (0 after a follow-up, and when not timed): one
        // reading per call, the bookkeeping between two calls counted in the second.
        var lastReading = 0
        while let next = delivery.nextHandler() {
            stack.handler = delivery.context.handler
            let started = lastReading != 0 || !timed ? lastReading : clock.now()
            let followUp: Delivery.FollowUp?
            do {
                // The step's list holds the handler through the call.
                let outcome = try delivery.unretainedBox._withUnsafeGuaranteedRef { box in
                    try HandlerEntry.call(next, box, delivery.context, onMainActor: onMainActor)
                }
                if timed { lastReading = clock.now() }
                followUp = delivery.complete(next, with: outcome, startedAt: started, nanoseconds: lastReading &- started)
            } catch {
                if timed { lastReading = clock.now() }
                followUp = delivery.fail(next, with: error, startedAt: started, nanoseconds: lastReading &- started)
            }
            // The stack keeps naming this handler until the next call overwrites it: between
            // calls nothing on this thread asks (a follow-up raise pushes its own frame).
            switch followUp {
            case nil:
                continue
            case .transformed?:
                stack.innermost?.eventID = delivery.currentID
            case let .reportError(error, node, cause)?:
                _ = deliver(
                    makeBox(error), channel: .errors, at: node, mode: .bubble, onMainActor: onMainActor, cause: cause,
                    inherited: .some(delivery.batch), stack: stack)
            case let .convert(event, node, cause, converter)?:
                // Errors raised within the converted event's delivery are not converted by
                // `converter` again: no chain of conversions can loop.
                stack.converting.append(converter)
                _ = deliver(
                    makeBox(event), channel: .events, at: node, mode: .bubble, onMainActor: onMainActor, cause: cause,
                    inherited: .some(delivery.batch), stack: stack)
                stack.converting.removeLast()
            }
            lastReading = 0
        }
        stack.pop(restoring: outerCall)
        return end(&delivery, stack: stack)
    }

    // MARK: The async driver

    /// Delivers the value in `box` on `channel`, awaiting main-actor handlers in route order,
    /// and returns how it ended.
    ///
    /// - Parameters:
    ///   - depth: How deep the delivery nests, when it follows up another (`nil`: one below
    ///     the calling thread's innermost delivery, if any).
    ///   - converting: The handlers whose conversions the delivery descends from.
    func deliverAsync(
        _ box: AnyEventBox, channel: HandlerRegistration.Channel, at origin: NodeCore, mode: DeliveryMode, policy: FailurePolicy = .continue,
        answerCheck: (@Sendable (any Sendable) -> Bool)? = nil, cause: EventID? = nil, inherited: RecordBatch?? = nil,
        depth: Int? = nil, converting: [HandlerID] = []
    ) async -> RaiseResult {
        let enclosing = inherited == nil ? DeliveryStack.current.innermost(of: ObjectIdentifier(self)) : nil
        let depth = depth ?? (enclosing?.depth ?? 0) &+ 1
        var delivery = begin(
            box, channel: channel, at: origin, mode: mode, policy: policy, answerCheck: answerCheck, cause: cause,
            inherited: inherited, outer: enclosing, isolation: .awaited)
        if depth > maximumNestingDepth || channel == .errors {
            limitNesting(of: &delivery, depth: depth, converting: converting)
        }
        while let next = delivery.nextHandler() {
            // Retained: the step's list may change across the suspension.
            let entry = next.takeUnretainedValue()
            let frame = DeliveryStack.Frame(
                bus: ObjectIdentifier(self), eventID: delivery.currentID, batch: delivery.batch, depth: depth)
            let (result, started, elapsed) = await entry.callAwaiting(
                delivery.box, delivery.context, in: frame, converting: converting, clock: delivery.isRecording ? clock : nil)
            let followUp: Delivery.FollowUp?
            switch result {
            case .success(let outcome):
                followUp = delivery.complete(next, with: outcome, startedAt: started, nanoseconds: elapsed)
            case .failure(let error):
                followUp = delivery.fail(next, with: error, startedAt: started, nanoseconds: elapsed)
            }
            switch followUp {
            case .transformed?:
                break  // each call's frame is made with the current id
            case let .reportError(error, node, cause)?:
                _ = await deliverAsync(
                    makeBox(error), channel: .errors, at: node, mode: .bubble, cause: cause, inherited: .some(delivery.batch),
                    depth: depth + 1, converting: converting)
            case let .convert(event, node, cause, converter)?:
                _ = await deliverAsync(
                    makeBox(event), channel: .events, at: node, mode: .bubble, cause: cause, inherited: .some(delivery.batch),
                    depth: depth + 1, converting: converting + [converter])
            case nil:
                break
            }
        }
        return end(&delivery)
    }
}

extension HandlerEntry {
    /// Calls the handler where it must run (hopping to the main actor for main-actor
    /// handlers), with `frame` as that thread's innermost delivery during the call.
    ///
    /// - Returns: The result, when the call started and how long it ran (both 0 when
    ///   `clock` is `nil`: the delivery is not recorded).
    func callAwaiting(
        _ box: AnyEventBox, _ context: HandlerContext, in frame: DeliveryStack.Frame, converting: [HandlerID],
        clock: EventClock?
    ) async -> (Result<Outcome, any Error>, startedAt: Int, nanoseconds: Int) {
        let body = body
        guard body.runsOnMainActor else {
            return Self.run(clock, in: frame, converting: converting, calling: context.handler) { try body.call(box, context) }
        }
        return await MainActor.run {
            Self.run(clock, in: frame, converting: converting, calling: context.handler) { try body.call(box, context) }
        }
    }

    private static func run(
        _ clock: EventClock?, in frame: DeliveryStack.Frame, converting: [HandlerID], calling handler: HandlerID,
        _ body: () throws -> Outcome
    ) -> (Result<Outcome, any Error>, startedAt: Int, nanoseconds: Int) {
        let stack = DeliveryStack.current
        let outerCall = stack.push(frame)
        stack.handler = handler
        // A synchronous raise inside the call sees the conversions this delivery descends from.
        let outerConverting = stack.converting
        stack.converting = converting
        defer {
            stack.converting = outerConverting
            stack.pop(restoring: outerCall)
        }
        let started = clock?.nanoseconds() ?? 0
        let result = Result { try body() }
        return (result, started, clock.map { $0.nanoseconds() - started } ?? 0)
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
