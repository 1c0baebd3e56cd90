import Synchronization

/// A registered handler as the bus keeps it: its description, its type test and its
/// type-erased body.
final class HandlerEntry: Sendable {
    let registration: HandlerRegistration
    /// The node it is registered on.
    let core: NodeCore
    /// Whether a value is for this handler: a dynamic cast, so protocol-typed handlers
    /// match every conforming type.
    let matches: @Sendable (any Sendable) -> Bool
    let body: Body
    /// Set when the handler is removed; checked before every call, so a handler removed
    /// during delivery is never called again, not even in the current step.
    let removed = Atomic<Bool>(false)

    init(
        registration: HandlerRegistration, core: NodeCore,
        matches: @escaping @Sendable (any Sendable) -> Bool, body: Body
    ) {
        self.registration = registration
        self.core = core
        self.matches = matches
        self.body = body
    }

    var id: HandlerID { registration.id }
    var isRemoved: Bool { removed.load(ordering: .acquiring) }

    /// Whether the handler would have been called in a step of `phase` carrying `value`,
    /// removed or not (for counting the calls a released node lost).
    func expects(_ phase: Phase, _ channel: HandlerRegistration.Channel, _ value: any Sendable) -> Bool {
        registration.channel == channel && registration.phases.contains(phase) && matches(value)
    }

    /// Whether the handler takes part in a step of `phase` carrying `value`.
    func listens(in phase: Phase, channel: HandlerRegistration.Channel, to value: any Sendable) -> Bool {
        registration.channel == channel && registration.phases.contains(phase) && !isRemoved && matches(value)
    }

    /// A handler's code, erased to take any value. It is only called with values that
    /// ``matches`` accepted.
    enum Body: Sendable {
        /// Runs on whichever thread raises.
        case anyThread(@Sendable (any Sendable, HandlerContext) throws -> Outcome)
        /// Runs on the main actor: called directly by a synchronous raise on the main
        /// thread, awaited by an async raise, refused (as a failed call) otherwise.
        case mainActor(@MainActor @Sendable (any Sendable, HandlerContext) throws -> Outcome)
    }
}
