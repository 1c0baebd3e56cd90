/// Where a raise was made, which decides whether it can call main-actor handlers.
public enum RaiseIsolation: UInt8, Sendable, CaseIterable {
    /// Synchronously, isolated to the main actor: main-actor handlers are called directly.
    case mainActor
    /// Synchronously, not on the main actor (another thread, another actor, or code with no
    /// isolation): main-actor handlers' calls fail (``DeliveryError/isolatedHandler(label:)``).
    case elsewhere
    /// With `await` (``EventNode/raiseAsync(_:mode:onFailure:)``,
    /// ``EventNode/requestAsync(_:mode:onFailure:)``): main-actor handlers are awaited on the
    /// main actor, the others run where the concurrency runtime runs them.
    case awaited
}
