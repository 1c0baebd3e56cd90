/// The rules of outcomes, written once: fed the outcome of each handler call in route
/// order, it says whether the step or the route stops, whether anyone acted, and how the
/// raise ends. Live delivery feeds it the calls it makes; replay feeds it the calls the
/// journal recorded, so both apply the very same rules.
///
/// `Handler` is whatever identifies a call's handler to the caller (a ``HandlerSite`` live,
/// a recorded handler in replay). Inlinable (and frozen), so that each caller gets a copy
/// specialized for its handler type: replay feeds it millions of calls. Its state is
/// visible to the package for that reason; change it only through ``apply(_:by:)``.
@frozen
package struct RouteVerdict<Handler: Sendable>: Sendable {
    /// The channel the route travels on.
    package let channel: HandlerRegistration.Channel
    /// Whether the raise is a request (which ends `unanswered` when nobody answers).
    package let isRequest: Bool
    /// What a failing call does to the route.
    package let policy: FailurePolicy
    /// For a what-if: consumptions are recorded as acting but do not stop the route.
    package let ignoresConsumption: Bool

    /// The handler that stopped the route (consumed, answered, converted, failed under
    /// policy `stop`) and how.
    package var stop: (handler: Handler, outcome: Outcome.Kind)?
    /// The first handler that failed.
    package var firstFailure: Handler?
    /// Whether any call acted (a failure counts).
    package var acted = false
    /// Whether any call acted without failing (what catching an error means).
    package var actedWithoutFailing = false
    /// The route stops once the current step's remaining handlers have run.
    package var stopsAfterStep = false
    /// The route stops now: not even the current node's remaining handlers run.
    package var isStopped = false
    /// The bus refused the raise before its first step: it ends `failed`, naming no handler.
    package var isRefused = false

    /// A verdict before any call.
    @inlinable
    package init(
        channel: HandlerRegistration.Channel, isRequest: Bool, policy: FailurePolicy, ignoresConsumption: Bool = false
    ) {
        self.channel = channel
        self.isRequest = isRequest
        self.policy = policy
        self.ignoresConsumption = ignoresConsumption
    }

    /// What a call's outcome means for the route.
    package enum Effect: Sendable, Equatable {
        /// Delivery goes on.
        case goOn
        /// The route now carries the transformed event (event channel).
        case transform
        /// The error handler converted the error into an event: the error stops here and the
        /// event is raised from the converting node.
        case convert
    }

    /// Applies the outcome of `handler`'s call.
    ///
    /// - Returns: What the caller must do beyond stopping (see ``isStopped`` and
    ///   ``stopsAfterStep``).
    @inlinable @inline(__always) @discardableResult
    package mutating func apply(_ outcome: Outcome.Kind, by handler: @autoclosure () -> Handler) -> Effect {
        if outcome.isActing { acted = true }
        if outcome.isActing && outcome != .failed { actedWithoutFailing = true }
        switch outcome {
        case .ignored, .handled, .enqueued:
            return .goOn
        case .consumed:
            guard !ignoresConsumption else { return .goOn }
            if stop == nil { stop = (handler(), outcome) }
            stopsAfterStep = true
            return .goOn
        case .consumedImmediately:
            guard !ignoresConsumption else { return .goOn }
            if stop == nil { stop = (handler(), outcome) }
            isStopped = true
            return .goOn
        case .transformed:
            guard channel == .errors else { return .transform }
            stop = (handler(), outcome)
            isStopped = true
            return .convert
        case .transformedError:
            // Only an error handler transforms an error; the live delivery turns any other
            // into a failed call before it gets here.
            return .transform
        case .answered:
            stop = (handler(), outcome)
            isStopped = true
            return .goOn
        case .failed:
            if firstFailure == nil { firstFailure = handler() }
            if policy == .stop {
                if stop == nil { stop = (handler(), outcome) }
                isStopped = true
            }
            return .goOn
        }
    }

    /// Refuses the raise before its first step (nested too deep): no step runs and it ends
    /// `failed`. Acting, so that a refused event is no dead letter; never catching, so that a
    /// refused error is an unhandled one.
    @inlinable
    package mutating func refuse() {
        isRefused = true
        isStopped = true
        acted = true
    }

    /// How the raise ends, by the rules of ``RaiseStatus``: `consumed` or `answered` when a
    /// handler stopped the route; otherwise `failed` when any call failed; otherwise, for a
    /// request, `unanswered`; otherwise `delivered` when some handler acted (on the error
    /// channel: acted without failing) and `unhandled` when none did.
    @inlinable
    package var status: RaiseStatus.Kind {
        if let stop {
            switch stop.outcome {
            case .answered: return .answered
            case .failed: return .failed
            default: return .consumed
            }
        }
        if firstFailure != nil || isRefused { return .failed }
        if isRequest { return .unanswered }
        return isUnattended ? .unhandled : .delivered
    }

    /// Whether nobody acted on the event (a dead letter) or caught the error.
    @inlinable
    package var isUnattended: Bool {
        channel == .errors ? !actedWithoutFailing : !acted
    }

    /// The handler the result names: the one that stopped the route, or the first failure.
    @inlinable
    package var namedHandler: Handler? { stop?.handler ?? firstFailure }
}
