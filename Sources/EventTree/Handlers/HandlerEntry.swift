import Synchronization

/// A registered handler as the bus keeps it: its description, its type test and its
/// type-erased body. The fields a step reads for every handler are stored flat.
final class HandlerEntry: Sendable {
    let registration: HandlerRegistration
    /// The node it is registered on.
    let core: NodeCore
    let id: HandlerID
    let channel: HandlerRegistration.Channel
    let phases: Phases
    /// Its code, and how it decides whether a value is for it.
    let body: HandlerBody
    /// Set when the handler is removed; checked before every call, so a handler removed
    /// during delivery is never called again, not even in the current step.
    let removed = Atomic<Bool>(false)
    /// The last slow-path verdict: `(typeIndex + 1) << 1 | matched`, 0 when none. Matching
    /// depends only on the value's type, so it is computed once per type (benign races:
    /// every writer stores the same verdict for a type).
    private let verdict = Atomic<Int>(0)
    /// Set once the bus warned that a synchronous raise reached this main-actor handler
    /// off the main actor (it warns once per handler).
    private let warnedOffMainActor = Atomic<Bool>(false)

    init(registration: HandlerRegistration, core: NodeCore, body: HandlerBody) {
        self.registration = registration
        self.core = core
        id = registration.id
        channel = registration.channel
        phases = registration.phases
        self.body = body
    }

    var isRemoved: Bool { removed.load(ordering: .acquiring) }

    /// Whether `box` (whose type the bus numbered `typeIndex`) is for this handler.
    @inline(__always)
    func matches(_ box: AnyEventBox, typeIndex: Int) -> Bool {
        guard let exactBox = body.exactBox, ObjectIdentifier(type(of: box)) != exactBox else { return true }
        let cached = verdict.load(ordering: .relaxed)
        if cached >> 1 == typeIndex + 1 { return cached & 1 == 1 }
        let result = body.accepts(box)
        verdict.store((typeIndex + 1) << 1 | (result ? 1 : 0), ordering: .relaxed)
        return result
    }

    /// Whether `box` is for this handler, without the cache (for rare paths).
    func matches(_ box: AnyEventBox) -> Bool {
        guard let exactBox = body.exactBox else { return true }
        return ObjectIdentifier(type(of: box)) == exactBox || body.accepts(box)
    }

    /// Whether the handler would have been called in a step of `phase` carrying `box`,
    /// removed or not (for counting the calls a released node lost).
    func expects(_ phase: Phase, _ channel: HandlerRegistration.Channel, _ box: AnyEventBox, typeIndex: Int) -> Bool {
        self.channel == channel && phases.contains(phase) && matches(box, typeIndex: typeIndex)
    }

    /// Whether the handler takes part in a step of `phase` carrying `box`.
    @inline(__always)
    func listens(in phase: Phase, channel: HandlerRegistration.Channel, to box: AnyEventBox, typeIndex: Int) -> Bool {
        self.channel == channel && phases.contains(phase) && !isRemoved && matches(box, typeIndex: typeIndex)
    }

    /// Calls the handler on this thread. A main-actor handler runs only when the raise
    /// was made on the main actor; otherwise the call fails with
    /// ``DeliveryError/isolatedHandler(label:)``, or throws ``CallEnqueued`` for a handler
    /// that asked to be enqueued on the main actor.
    @inline(__always)
    func call(_ box: AnyEventBox, _ context: HandlerContext, onMainActor: Bool) throws -> Outcome {
        if body.runsOnMainActor && !onMainActor { throw isolatedCallFailure() }
        return try body.call(box, context)
    }

    /// The error of a call a synchronous raise made off the main actor; the first time, the
    /// bus also warns (the failed call alone is easy to miss: only the raise's status says so).
    @inline(never)
    private func isolatedCallFailure() -> any Error {
        if body.enqueuesWhenRaisedElsewhere { return CallEnqueued() }
        if !warnedOffMainActor.exchange(true, ordering: .relaxed) {
            core.bus?.warn(
                "handler '\(registration.label)' (\(registration.location)) is isolated to the main actor and a synchronous raise reached it off the main actor, so its call failed; raise on the main actor, or from elsewhere use `await node.raiseAsync(…)` (in a Task when the caller is not async), or register it with `whenRaisedElsewhere: .enqueue` to have it called later on the main actor")
        }
        return DeliveryError.isolatedHandler(label: registration.label)
    }

    /// Calls `entry` (unretained: its caller's list holds it) on this thread.
    @inline(__always)
    static func call(
        _ entry: Unmanaged<HandlerEntry>, _ box: AnyEventBox, _ context: HandlerContext, onMainActor: Bool
    ) throws -> Outcome {
        // Safe: the step's handler list, which the caller keeps until the call returns, holds it.
        try entry._withUnsafeGuaranteedRef { try $0.call(box, context, onMainActor: onMainActor) }
    }
}

/// Thrown by a main-actor handler's call that a synchronous raise off the main actor
/// reached, when the handler asked for ``WhenRaisedElsewhere/enqueue``: the driver records
/// the call as enqueued and enqueues it on the main actor.
struct CallEnqueued: Error {}
