/// An event that expects an answer, like a question asked up the tree.
///
/// Raise it with ``EventNode/request(_:mode:onFailure:isolation:)``; the first handler that returns
/// ``Outcome/answered(_:)`` with a value of type ``Answer`` stops the route, and its value
/// is returned. When no handler answers, the result says ``RaiseStatus/unanswered``:
/// never an accidental `nil`.
///
/// ```swift
/// struct CurrentUser: EventRequest {
///     typealias Answer = String
/// }
/// ```
public protocol EventRequest: Event {
    /// The type of the value a handler answers with.
    associatedtype Answer: Sendable
}
