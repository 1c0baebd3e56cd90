/// A ready-made, untyped event for notification-style use: a name and string parameters.
///
/// ```swift
/// node.raise(NamedEvent("didSave", ["document": "notes.txt"]), mode: .broadcast)
/// ```
/// Handlers register for `NamedEvent.self` and look at ``name``.
public struct NamedEvent: Event, Hashable {
    /// The event's name, such as `didSave`.
    public var name: String
    /// Free-form parameters, journaled with the event.
    public var parameters: [String: String]

    /// Creates a named event.
    ///
    /// - Parameters:
    ///   - name: The event's name.
    ///   - parameters: Free-form parameters, journaled with the event.
    public init(_ name: String, _ parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }
}
