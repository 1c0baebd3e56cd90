/// What one handler call did with the event it was given.
///
/// A handler that throws is recorded as ``Kind/failed``; it does not return an outcome.
public enum Outcome: Sendable {
    /// It did not act.
    case ignored
    /// It acted; delivery continues.
    case handled
    /// It acted and stops the event after the current step: the step's remaining handlers
    /// still run, no later step does (DOM `stopPropagation`).
    case consumed
    /// It acted and stops the event at once: not even the node's remaining handlers run
    /// (DOM `stopImmediatePropagation`).
    case consumedImmediately
    /// From the next handler on (this node's included) the route carries `event`, which
    /// gets its own id linked to the old one. From an error handler this *converts* the
    /// error: it stops, and `event` is raised from the converting node in bubble mode.
    indirect case transformed(any Event)
    /// From an error handler: from the next error handler on (this node's included) the
    /// route carries `error` instead, under a new id linked to the old one; typed error
    /// handlers match its type. Unlike ``transformed(_:)``, the error goes on as an error.
    indirect case transformedError(any Error)
    /// The answer to a ``EventRequest``: stops the route at once and is returned to the raiser.
    /// Only requests can be answered, and only with their `Answer` type.
    indirect case answered(any Sendable)

    /// The outcome's case, as the journal stores it.
    public var kind: Kind {
        switch self {
        case .ignored: .ignored
        case .handled: .handled
        case .consumed: .consumed
        case .consumedImmediately: .consumedImmediately
        case .transformed: .transformed
        case .transformedError: .transformedError
        case .answered: .answered
        }
    }

    /// The case of a recorded handler call: the outcome's cases plus ``failed``.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// See ``Outcome/ignored``.
        case ignored
        /// See ``Outcome/handled``.
        case handled
        /// See ``Outcome/consumed``.
        case consumed
        /// See ``Outcome/consumedImmediately``.
        case consumedImmediately
        /// See ``Outcome/transformed(_:)``.
        case transformed
        /// See ``Outcome/answered(_:)``.
        case answered
        /// See ``Outcome/transformedError(_:)``.
        case transformedError
        /// The handler threw (or could not run, or answered wrongly).
        case failed
        /// A main-actor handler registered with ``WhenRaisedElsewhere/enqueue``, reached by
        /// a synchronous raise off the main actor: its call was enqueued on the main actor,
        /// where it runs after the raise (its own outcome is recorded then). The route goes
        /// on, as after ``handled``.
        case enqueued

        /// Whether the call counts as acting on the event (everything but ``ignored``).
        public var isActing: Bool { self != .ignored }

        /// The case name.
        public var description: String { rawValue }
    }
}
