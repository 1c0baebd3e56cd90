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

    /// One line saying what happened and what to do.
    public var description: String {
        switch self {
        case let .notARequest(eventType):
            "a handler answered \(eventType), which is not an EventRequest; return .handled or make the event an EventRequest"
        case let .wrongAnswerType(eventType, answerType):
            "a handler answered \(eventType) with a value of type \(answerType), which is not its Answer type"
        case let .errorTransformOnEventChannel(label):
            "handler '\(label)' transformed an event into an error; only error handlers transform errors (throw, or report the error, instead)"
        case let .isolatedHandler(label):
            "handler '\(label)' is isolated to the main actor and a synchronous raise reached it off the main actor; use raiseAsync (await) instead"
        }
    }
}
