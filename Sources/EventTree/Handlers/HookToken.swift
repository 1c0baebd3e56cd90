/// Returned by ``EventBus/onDeadLetter(_:)``, ``EventBus/onUnhandledError(_:)`` and
/// ``EventBus/onWarning(_:)``:
/// removes exactly that hook. Hooks add up: each one registered is called, in registration
/// order, until it is removed.
public struct HookToken: Sendable, Hashable {
    let number: Int
    let bus: EventBus

    /// Removes the hook; it is not called again. Removing twice does nothing.
    public func remove() {
        bus.removeHook(number)
    }

    /// Tokens are equal when they name the same hook.
    public static func == (lhs: HookToken, rhs: HookToken) -> Bool { lhs.number == rhs.number && lhs.bus === rhs.bus }

    /// Hashes the hook's number.
    public func hash(into hasher: inout Hasher) { hasher.combine(number) }
}
