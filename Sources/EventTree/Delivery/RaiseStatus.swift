/// How a raise ended.
///
/// The rules, in order: ``consumed(by:)`` or ``answered(by:)`` when a handler stopped the
/// route; otherwise ``failed(_:)`` when any call failed (naming the first); otherwise
/// ``unanswered`` for a request; otherwise ``delivered`` when some handler acted and
/// ``unhandled`` when none did.
// Small: a handler's site is two words, so a status is copied and destroyed cheaply and
// naming the consuming or answering handler allocates nothing. Only a failure, which
// carries its message, is boxed.
public enum RaiseStatus: Sendable, Hashable, CustomStringConvertible {
    /// Some handler acted and none stopped the route.
    case delivered
    /// A handler consumed the event (or converted the error).
    case consumed(by: HandlerSite)
    /// A handler answered the request.
    case answered(by: HandlerSite)
    /// Nobody answered the request.
    case unanswered
    /// No handler acted: a dead letter (or, for an error, an unhandled error).
    case unhandled
    /// A handler threw; this is the first failure.
    indirect case failed(HandlerFailure)

    /// The case, without its handler.
    public var kind: Kind {
        switch self {
        case .delivered: .delivered
        case .consumed: .consumed
        case .answered: .answered
        case .unanswered: .unanswered
        case .unhandled: .unhandled
        case .failed: .failed
        }
    }

    /// The case name, as the journal's `event_history.result` column spells it.
    public var name: String { kind.description }

    /// The cases of ``RaiseStatus`` without their handlers: what the journal stores.
    public enum Kind: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// See ``RaiseStatus/delivered``.
        case delivered = 0
        /// See ``RaiseStatus/consumed(by:)``.
        case consumed = 1
        /// See ``RaiseStatus/answered(by:)``.
        case answered = 2
        /// See ``RaiseStatus/unanswered``.
        case unanswered = 3
        /// See ``RaiseStatus/unhandled``.
        case unhandled = 4
        /// See ``RaiseStatus/failed(_:)``.
        case failed = 5

        /// The case name.
        public var description: String {
            switch self {
            case .delivered: "delivered"
            case .consumed: "consumed"
            case .answered: "answered"
            case .unanswered: "unanswered"
            case .unhandled: "unhandled"
            case .failed: "failed"
            }
        }
    }

    /// The handler that stopped the route or failed first, if any.
    public var site: HandlerSite? {
        switch self {
        case .consumed(let site), .answered(let site): site
        case .failed(let failure): failure.site
        case .delivered, .unanswered, .unhandled: nil
        }
    }

    /// The case name, with the handler when there is one.
    public var description: String {
        switch self {
        case .failed(let failure): "failed: \(failure)"
        default: site.map { "\(name) by \($0)" } ?? name
        }
    }
}

/// Why a raise failed: the first handler call that failed, or the bus refusing the raise.
public struct HandlerFailure: Sendable, Hashable, CustomStringConvertible {
    /// Where the failing handler ran; `nil` when the bus refused the raise before any
    /// handler ran (see ``DeliveryError/nestingTooDeep(eventType:limit:cause:)``).
    public var site: HandlerSite?
    /// `String(describing:)` of the error.
    public var message: String

    /// Creates a failure.
    public init(site: HandlerSite?, message: String) {
        self.site = site
        self.message = message
    }

    /// `message` from the site.
    public var description: String { site.map { "\(message) from \($0)" } ?? message }
}
