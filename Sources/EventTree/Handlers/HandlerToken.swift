/// Returned by a handler registration: removes exactly that handler.
///
/// Dropping the token does *not* remove the handler (it lives as long as its node);
/// call ``remove()``.
public struct HandlerToken: Sendable, Hashable {
    /// The handler's id, as the journal knows it.
    public let id: HandlerID
    let bus: EventBus
    let entry: HandlerEntry

    /// Removes the handler. It is never called afterwards, not even later in a step that
    /// is running now. Removing twice does nothing.
    public func remove() {
        bus.removeHandler(entry)
    }

    /// Tokens are equal when they name the same handler.
    public static func == (lhs: HandlerToken, rhs: HandlerToken) -> Bool { lhs.id == rhs.id }

    /// Hashes the handler's id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
