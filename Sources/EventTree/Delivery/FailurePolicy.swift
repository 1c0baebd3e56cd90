/// What a raise does when one of its handlers throws.
///
/// Either way the failed call is journaled and an error is raised on the error channel.
public enum FailurePolicy: Sendable, Hashable {
    /// The event continues to the next handler (the default).
    case `continue`
    /// The event stops at once, like ``Outcome/consumedImmediately``.
    case stop
}
