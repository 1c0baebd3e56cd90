/// Why the bus recorded a handler call as failed although the handler did not throw.
public enum DeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A handler answered an event that is not a ``EventRequest``.
    case notARequest(eventType: String)
    /// A handler answered a request with a value of the wrong type.
    case wrongAnswerType(eventType: String, answerType: String)
    /// A synchronous raise reached a main-actor handler off the main actor.
    case isolatedHandler(label: String)
    /// A handler of ordinary events returned ``Outcome/transformedError(_:)``, which only
    /// error handlers may.
    case errorTransformOnEventChannel(label: String)
    /// An error handler converted an error whose cause chain already holds a conversion of
    /// its own: converting again could loop forever, so this error was not converted.
    case conversionLoop(label: String, eventType: String)
    /// A raise was refused because it would nest deeper than the bus allows
    /// (``EventBus/maximumNestingDepth``): a handler's raise leads back to itself.
    case nestingTooDeep(eventType: String, limit: Int, cause: EventID?)

    /// One line saying what happened and what to do.
    public var description: String {
        switch self {
        case let .notARequest(eventType):
            "a handler answered \(eventType), which is not an EventRequest; return .handled or make the event an EventRequest"
        case let .wrongAnswerType(eventType, answerType):
            "a handler answered \(eventType) with a value of type \(answerType), which is not its Answer type"
        case let .errorTransformOnEventChannel(label):
            "handler '\(label)' transformed an event into an error; only error handlers transform errors (throw, or report the error, instead)"
        case let .conversionLoop(label, eventType):
            "error handler '\(label)' already converted an error in this cause chain; converting this one into \(eventType) would loop, so it was not converted"
        case let .nestingTooDeep(eventType, limit, cause):
            "raising \(eventType) was refused: it would nest \(limit + 1) raises deep on this thread, past the bus's limit of \(limit); a handler's raise leads back to itself\(cause.map { " (its cause chain: eventtree explain JOURNAL \($0.rawValue))" } ?? "")"
        case let .isolatedHandler(label):
            "handler '\(label)' is isolated to the main actor and a synchronous raise reached it off the main actor; use raiseAsync (await) instead"
        }
    }
}
