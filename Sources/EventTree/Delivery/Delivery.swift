/// One event's journey along its route: a state machine that the synchronous and the
/// async drivers (`EventBus+Delivery.swift`) step through, so that the rules of a step
/// (phases, handler lists, outcomes, stops, transforms, failures) are written once.
struct Delivery {
    /// Unowned: the bus runs the delivery (it is `self` of the driver).
    unowned(unsafe) let bus: EventBus
    /// The tree as the raise found it.
    let snapshot: TopologySnapshot
    let generation: Int
    /// The route, walked step by step as delivery goes (nothing built up front).
    private var walk: RouteWalk<LiveRouteTree>
    let channel: HandlerRegistration.Channel
    let policy: FailurePolicy
    /// For a request: whether a value is of its `Answer` type. `nil` for events and errors.
    let answerCheck: (@Sendable (any Sendable) -> Bool)?
    /// Where the records go, or `nil` when nothing is recorded. (A variable only so that
    /// the delivery that ends can ask whether it holds the last reference.)
    var batch: RecordBatch?
    /// `batch` and the bus's sequence, unretained (`batch` and the bus hold them), so that
    /// recording a call retains nothing.
    private let batchRef: Unmanaged<RecordBatch>?
    private let sequence: Unmanaged<SequenceCounter>
    /// Whether this delivery is the outermost of its batch (it hands the batch over).
    let isOutermost: Bool
    /// The raise as it was made.
    private var raise: Raise
    /// The id of the event the route carries now (the raise's until a transform).
    private(set) var currentID: EventID
    /// The value the route carries now, boxed under its type. Unretained: the first box is
    /// an argument of the driver (`deliver`), which its caller keeps until the delivery is
    /// over; a transform's box is kept by its ``Detour``.
    private(set) var unretainedBox: Unmanaged<AnyEventBox>
    /// The value the route carries now (see `unretainedBox`).
    var box: AnyEventBox { unretainedBox.takeUnretainedValue() }
    /// The bus's number for the type of `box`.
    private(set) var typeIndex: Int
    /// What only a raise that is transformed or fails needs, made when it first does: a
    /// plain raise neither builds nor destroys it.
    private var detour: Detour?

    /// See ``detour``.
    final class Detour {
        /// The events transforms produced, in order: the last is the one the route carries.
        var transforms: [RaisedEvent] = []
        /// The box of the value the last transform produced.
        var transformedBox: AnyEventBox?
        /// The first failure's error (or the refusal's), for the result.
        var firstFailureMessage = ""
        /// For an error: the handlers whose conversions it descends from, which must not
        /// convert it again.
        var blockedConverters: [HandlerID] = []
        /// The main-actor calls the raise enqueued (see ``WhenRaisedElsewhere/enqueue``), to
        /// run once it has ended.
        var enqueued: [(handler: HandlerEntry, box: AnyEventBox, context: HandlerContext)] = []
    }

    /// The raise's ``Detour``, made if it has none yet.
    private mutating func takeDetour() -> Detour {
        if let detour { return detour }
        let made = Detour()
        detour = made
        return made
    }

    private var stepSlot = -1
    private var stepPhase = Phase.target
    /// `stepPhase` as a set, for matching a handler's phases with one `and`.
    private var stepPhases = Phases.target
    /// The step's handlers: the dispatch plan of the carried type (already matched by type
    /// and channel), or, after a transform within the step, the node's whole list.
    private var handlers: [HandlerEntry] = []
    private var handlersAreMatched = true
    private var handlerIndex = 0
    /// The rules of outcomes, fed every call (shared with replay).
    private var verdict: RouteVerdict<HandlerSite>
    private var answer: (any Sendable)?
    /// What the handler about to be called is told: kept up to date step by step (its
    /// node and phase) and call by call (its handler), so that a call builds nothing.
    private(set) var context: HandlerContext

    /// The raise as it was made: what makes its ``RaisedEvent`` when one is needed (the
    /// journal's is made at once; otherwise only a hook or a transform asks for it).
    struct Raise {
        let id: EventID
        let typeIndex: Int
        let mode: DeliveryMode
        let cause: EventID?
        var recorded: RaisedEvent?
    }

    init(
        bus: EventBus, snapshot: TopologySnapshot, generation: Int, origin: NodeCore, isLive: Bool, raise: Raise,
        box: AnyEventBox, channel: HandlerRegistration.Channel, policy: FailurePolicy, answerCheck: (@Sendable (any Sendable) -> Bool)?,
        batch: RecordBatch?, isOutermost: Bool
    ) {
        self.bus = bus
        self.snapshot = snapshot
        self.generation = generation
        walk = RouteWalk(
            from: origin.slot, mode: raise.mode,
            in: LiveRouteTree(snapshot: Unmanaged.passUnretained(snapshot), typeIndex: raise.typeIndex, channel: channel))
        // Raised at a released node: nothing can be reached from it.
        if !isLive { walk.stage = .done }
        currentID = raise.id
        unretainedBox = Unmanaged.passUnretained(box)
        typeIndex = raise.typeIndex
        self.channel = channel
        self.policy = policy
        self.answerCheck = answerCheck
        self.batch = batch
        batchRef = batch.map { Unmanaged.passUnretained($0) }
        sequence = Unmanaged.passUnretained(bus.sequence)
        self.isOutermost = isOutermost
        verdict = RouteVerdict(channel: channel, isRequest: answerCheck != nil, policy: policy)
        context = HandlerContext(
            eventID: raise.id, origin: origin.id, nodeID: origin.id, phase: .target, cause: raise.cause,
            handler: HandlerID(rawValue: 0), core: origin)
        self.raise = raise
    }

    /// The event whose handler made the raise.
    var cause: EventID? { raise.cause }

    /// Refuses the raise before its first step (see ``RouteVerdict/refuse()``).
    @inline(never)
    mutating func refuse(_ refusal: DeliveryError) {
        walk.stage = .done
        verdict.refuse()
        takeDetour().firstFailureMessage = refusal.description
    }

    /// For an error: `converters` (the handlers whose conversions it descends from) must
    /// not convert it again.
    @inline(never)
    mutating func blockConversions(by converters: [HandlerID]) {
        takeDetour().blockedConverters = converters
    }

    /// The raise as it was made, as a value. Made from `box` before any transform (the
    /// first transform asks for it, so later the raise is made already).
    mutating func first() -> RaisedEvent {
        if let recorded = raise.recorded { return recorded }
        let made = RaisedEvent(
            id: raise.id, typeName: bus.typeName(ofType: raise.typeIndex), payload: box.payload, origin: context.origin,
            mode: raise.mode, cause: raise.cause, transformedFrom: nil, policy: policy, isRequest: answerCheck != nil)
        raise.recorded = made
        return made
    }

    /// What a call requires of its driver before the route may continue (a raise, or
    /// noting the new event id). Indirect, so that the common "none" costs no copying.
    indirect enum FollowUp {
        /// The route carries a transformed event from now on (``currentID``): a driver that
        /// keeps the id (the synchronous one, on its thread's stack) updates it.
        case transformed
        /// A handler threw: the error is raised at once from its node, on the error channel.
        case reportError(any Error, at: NodeCore, cause: EventID)
        /// Error handler `converter` converted the error into `event`, raised from its node in
        /// bubble mode.
        case convert(any Event, at: NodeCore, cause: EventID, converter: HandlerID)
    }

    /// Advances to the next handler that should be called, or returns `nil` when the
    /// route is done. ``context`` describes the call. The handler is returned unretained:
    /// the step's list holds it until the next call of this method.
    @inline(__always)
    mutating func nextHandler() -> Unmanaged<HandlerEntry>? {
        while !verdict.isStopped {
            // A step with handlers has its node in `context`.
            if handlerIndex < handlers.count {
                if context.core.isReleased {
                    let core = context.core
                    // Released during its own step: none of its remaining calls happen.
                    let lost = handlers[handlerIndex...].filter { $0.expects(stepPhase, channel, box, typeIndex: typeIndex) }
                    record(.stepUndelivered(currentID, node: core.id, phase: stepPhase, lostHandlers: lost.map(\.id)))
                    handlers = []
                    continue
                }
                // Safe (here and for `id` below): `handlers` holds the entry.
                let entry = Unmanaged.passUnretained(handlers[handlerIndex])
                handlerIndex += 1
                let listens = entry._withUnsafeGuaranteedRef { entry in
                    // A plan matched type and channel: only the phase and removal remain.
                    handlersAreMatched
                        ? entry.phases.rawValue & stepPhases.rawValue != 0 && !entry.isRemoved
                        : entry.listens(in: stepPhase, channel: channel, to: box, typeIndex: typeIndex)
                }
                if listens {
                    context.handler = entry._withUnsafeGuaranteedRef(\.id)
                    return entry
                }
                continue
            }
            if verdict.stopsAfterStep { break }
            let next: RouteStep<Int>?
            if bus.generation.load(ordering: .acquiring) == generation {
                // While the tree is as the raise found it, a node whose plan for the type is
                // empty calls nothing: the walk passes it by.
                // Safe: the delivery holds `snapshot` for as long as it walks.
                let snapshot = Unmanaged.passUnretained(snapshot)
                let type = typeIndex
                next = walk.next { node in !snapshot._withUnsafeGuaranteedRef { $0.topology.hasPlan(for: node, type: type) } }
            } else {
                next = walk.next()
            }
            guard let step = next else { break }
            startStep(step)
        }
        return nil
    }

    /// Takes the handler list of the next step: the raise's snapshot while nothing has
    /// changed since, otherwise the live list (so a handler added during delivery runs
    /// from the next step on).
    private mutating func startStep(_ step: RouteStep<Int>) {
        handlerIndex = 0
        handlersAreMatched = true
        stepSlot = step.node
        stepPhase = step.phase
        stepPhases = Phases(step.phase)
        // (A step whose plan is empty does not get here while the tree is as the raise found
        // it: `nextHandler()` walks past it. Once the tree has changed, the live list decides.)
        // The common case, read in place: the snapshot's node and plan, unchanged since.
        // Safe: the delivery holds `snapshot`, and the snapshot's topology holds its cores.
        let snapshot = Unmanaged.passUnretained(snapshot)
        let isCurrent = snapshot._withUnsafeGuaranteedRef { snapshot in
            guard let core = snapshot.topology.unretainedCore(at: step.node),
                  !core._withUnsafeGuaranteedRef(\.isReleased),
                  bus.generation.load(ordering: .acquiring) == generation else { return false }
            // (Most routes start at the origin, which the context holds already.)
            if Unmanaged.passUnretained(context.core).toOpaque() != core.toOpaque() { context.core = core.takeUnretainedValue() }
            context.nodeID = core._withUnsafeGuaranteedRef(\.id)
            context.phase = step.phase
            handlers = snapshot.topology.plans[step.node][typeIndex]
            return true
        }
        if isCurrent { return }
        let core = snapshot.takeUnretainedValue().topology.cores[step.node]
        if let core, let live = bus.livePlan(of: core, type: typeIndex) {
            enter(core, phase: step.phase)
            handlers = live
        } else {
            // Released before its step: the calls the raise's snapshot promised are lost.
            if let core {
                let lost = self.snapshot.topology.plan(for: step.node, type: typeIndex).filter { $0.phases.contains(step.phase) }
                record(.stepUndelivered(currentID, node: core.id, phase: step.phase, lostHandlers: lost.map(\.id)))
            }
            handlers = []
        }
    }

    /// Makes `core` the step's node, in `phase`, for the calls to come.
    @inline(__always)
    private mutating func enter(_ core: NodeCore, phase: Phase) {
        context.core = core
        context.nodeID = core.id
        context.phase = phase
    }

    /// After a transform within a step, the rest of the step's handlers are the node's
    /// whole list after `entry`, matched against the new type one by one.
    private mutating func continueStepWithAllHandlers(after entry: HandlerEntry) {
        let core = context.core
        let all = bus.generation.load(ordering: .acquiring) == generation
            ? snapshot.topology.handlers[stepSlot] : (bus.liveHandlers(of: core) ?? [])
        handlers = all
        handlersAreMatched = false
        handlerIndex = (all.firstIndex { $0 === entry } ?? all.count - 1) + 1
    }

    /// Where `entry` acts in a step of `phase`.
    private static func site(_ entry: HandlerEntry, _ phase: Phase) -> HandlerSite {
        HandlerSite(registration: entry.registration, phase: phase)
    }

    /// Applies what a call returned; returns the raise that must run before the route goes on.
    @inline(__always)
    mutating func complete(
        _ entry: Unmanaged<HandlerEntry>, with outcome: consuming Outcome, startedAt: Int, nanoseconds: Int
    ) -> FollowUp? {
        // The common outcomes carry no value: no transform, no answer to check. (Consumed by
        // the switch, so that such a case needs no destroying.)
        let kind: Outcome.Kind
        switch consume outcome {
        case .ignored: kind = .ignored
        case .handled: kind = .handled
        case .consumed: kind = .consumed
        case .consumedImmediately: kind = .consumedImmediately
        case let carrying:
            return completeCarryingValue(
                entry.takeUnretainedValue(), with: carrying, startedAt: startedAt, nanoseconds: nanoseconds)
        }
        verdict.apply(kind, by: Self.site(entry.takeUnretainedValue(), stepPhase))
        if batch != nil {
            recordCall(outcome: kind, startedAt: startedAt, nanoseconds: nanoseconds, detail: nil)
        }
        return nil
    }

    /// ``complete(_:with:startedAt:nanoseconds:)`` for an outcome that carries a value.
    private mutating func completeCarryingValue(
        _ entry: HandlerEntry, with outcome: Outcome, startedAt: Int, nanoseconds: Int
    ) -> FollowUp? {
        var detail: HandlerCall.Detail?
        if case .transformedError = outcome, channel != .errors {
            return fail(
                entry, with: DeliveryError.errorTransformOnEventChannel(label: entry.registration.label), startedAt: startedAt,
                nanoseconds: nanoseconds)
        }
        if channel == .errors, case .transformed(let event) = outcome, let detour,
           detour.blockedConverters.contains(entry.id) {
            return fail(
                entry, with: DeliveryError.conversionLoop(label: entry.registration.label, eventType: type(of: event).eventTypeName),
                startedAt: startedAt, nanoseconds: nanoseconds)
        }
        if case .answered(let value) = outcome {
            if let failure = answerError(for: value) {
                return fail(entry, with: failure, startedAt: startedAt, nanoseconds: nanoseconds)
            }
            answer = value
            detail = .answer(value)
        }
        let phase = stepPhase
        let effect = verdict.apply(outcome.kind, by: Self.site(entry, phase))
        if batch != nil {
            recordCall(outcome: outcome.kind, startedAt: startedAt, nanoseconds: nanoseconds, detail: detail)
        }
        switch (effect, outcome) {
        case (.transform, .transformed(let event)):
            transform(into: .event(event))
            continueStepWithAllHandlers(after: entry)
            return .transformed
        case (.transform, .transformedError(let error)):
            transform(into: .error(error))
            continueStepWithAllHandlers(after: entry)
            return .transformed
        case (.convert, .transformed(let event)):
            return .convert(event, at: entry.core, cause: currentID, converter: entry.id)
        default:
            return nil
        }
    }

    private func answerError(for answer: any Sendable) -> DeliveryError? {
        let typeName = detour?.transforms.last?.typeName ?? bus.typeName(ofType: raise.typeIndex)
        guard let answerCheck, box.anyValue is any EventRequest else { return .notARequest(eventType: typeName) }
        guard answerCheck(answer) else {
            return .wrongAnswerType(eventType: typeName, answerType: String(describing: type(of: answer)))
        }
        return nil
    }

    /// Records a call enqueued on the main actor (see ``WhenRaisedElsewhere/enqueue``), to
    /// be enqueued when the raise ends: the route goes on as after a handled call.
    private mutating func enqueue(_ handler: HandlerEntry, startedAt: Int, nanoseconds: Int) {
        verdict.apply(.enqueued, by: Self.site(handler, stepPhase))
        recordCall(outcome: .enqueued, startedAt: startedAt, nanoseconds: nanoseconds, detail: nil)
        takeDetour().enqueued.append((handler, box, context))
    }

    /// Records a failed call; on the event channel its error must then be raised. A call
    /// that could not run because it is to be enqueued on the main actor (``CallEnqueued``)
    /// is recorded as enqueued instead.
    mutating func fail(_ entry: Unmanaged<HandlerEntry>, with error: any Error, startedAt: Int, nanoseconds: Int) -> FollowUp? {
        if error is CallEnqueued {
            enqueue(entry.takeUnretainedValue(), startedAt: startedAt, nanoseconds: nanoseconds)
            return nil
        }
        return fail(entry.takeUnretainedValue(), with: error, startedAt: startedAt, nanoseconds: nanoseconds)
    }

    private mutating func fail(_ entry: HandlerEntry, with error: any Error, startedAt: Int, nanoseconds: Int) -> FollowUp? {
        if verdict.firstFailure == nil { takeDetour().firstFailureMessage = String(describing: error) }
        let phase = stepPhase
        verdict.apply(.failed, by: Self.site(entry, phase))
        recordCall(outcome: .failed, startedAt: startedAt, nanoseconds: nanoseconds, detail: .error(error))
        return channel == .events ? .reportError(error, at: entry.core, cause: currentID) : nil
    }

    /// From the next handler on, the route carries `event` under a new id.
    private mutating func transform(into payload: RaisedEvent.Payload) {
        let detour = takeDetour()
        let (raised, box, typeIndex) = bus.openTransform(of: detour.transforms.last ?? first(), into: payload, batch: batch)
        detour.transforms.append(raised)
        currentID = raised.id
        context.eventID = raised.id
        detour.transformedBox = box
        unretainedBox = Unmanaged.passUnretained(box)
        self.typeIndex = typeIndex
    }

    /// Records the call ``context`` describes.
    @inline(__always)
    private func recordCall(outcome: Outcome.Kind, startedAt: Int, nanoseconds: Int, detail: HandlerCall.Detail?) {
        // Safe (here and in `record`): `batch` and the bus hold the batch and the sequence.
        guard let batchRef else { return }
        let seq = sequence._withUnsafeGuaranteedRef { $0.advance() }
        batchRef._withUnsafeGuaranteedRef {
            $0.append(FactRecord(seq: seq, fact: .handlerCalled(HandlerCall(
                event: currentID, node: context.nodeID, phase: stepPhase, handler: context.handler,
                outcome: outcome, startedAt: startedAt, nanoseconds: nanoseconds), detail: detail)))
        }
    }

    private func record(_ fact: consuming Fact) {
        guard let batchRef else { return }
        let seq = sequence._withUnsafeGuaranteedRef { $0.advance() }
        let record = FactRecord(seq: seq, fact: fact)
        batchRef._withUnsafeGuaranteedRef { $0.append(record) }
    }

    /// Whether calls are being timed and recorded.
    var isRecording: Bool { batch != nil }

    /// How the raise ended, by the rules of ``RouteVerdict``, naming the handler.
    var status: RaiseStatus {
        switch verdict.status {
        case .delivered: .delivered
        case .unanswered: .unanswered
        case .unhandled: .unhandled
        case .consumed: verdict.namedHandler.map { .consumed(by: $0) } ?? .delivered
        case .answered: verdict.namedHandler.map { .answered(by: $0) } ?? .delivered
        case .failed:
            // No failing handler: the bus refused the raise.
            .failed(HandlerFailure(site: verdict.firstFailure, message: detour?.firstFailureMessage ?? ""))
        }
    }

    /// Whether nobody acted on the event (a dead letter) or caught the error.
    var isUnattended: Bool { verdict.isUnattended }

    /// Records the end of the raise (for every event of its transform chain), which ended
    /// with `status`, then enqueues the main-actor calls it deferred, so that each runs after
    /// its event's end.
    func recordEnd(_ status: RaiseStatus) {
        guard batch != nil else { return }
        record(.raiseFinished(raise.id, status: status))
        if let detour {
            for raised in detour.transforms { record(.raiseFinished(raised.id, status: status)) }
            // (An enqueued call acts: such a raise is never unattended, nothing follows.)
            if !detour.enqueued.isEmpty { enqueueDeferredCalls() }
        }
        if isUnattended { record(channel == .errors ? .unhandledError(raise.id) : .deadLetter(raise.id)) }
    }

    /// Whether the raise enqueued main-actor calls, to run once it has ended.
    var defersCalls: Bool { detour.map { !$0.enqueued.isEmpty } ?? false }

    /// Enqueues the main-actor calls the raise deferred (for an unrecorded raise, once it
    /// has ended; a recorded one does when it records its end).
    @inline(never)
    func enqueueDeferredCalls() {
        for call in detour?.enqueued ?? [] { bus.enqueueCall(to: call.handler, carrying: call.box, in: call.context) }
    }

    /// The raise's result, once its records are handed over (the answer moves into it).
    mutating func result(_ status: consuming RaiseStatus, recording: RecordingStatus) -> RaiseResult {
        RaiseResult(eventID: raise.id, finalEventID: currentID, status: status, answer: answer.take(), recording: recording)
    }
}

extension RaisedEvent.Payload {
    /// The channel this payload travels on.
    @inline(__always) var channel: HandlerRegistration.Channel {
        switch self {
        case .event: .events
        case .error: .errors
        }
    }

    /// The value boxed under its dynamic type.
    func makeBox() -> AnyEventBox {
        switch self {
        case .event(let event): EventTree.makeBox(event)
        case .error(let error): EventTree.makeBox(error)
        }
    }
}
