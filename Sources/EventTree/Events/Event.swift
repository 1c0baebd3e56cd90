/// A value that can be raised at a node and travel a route through the tree.
///
/// Events are values: `Sendable` so that they may be raised from any thread, and
/// `Codable` so that the journal can store their payload as JSON. Handlers match events
/// by dynamic cast, so a handler registered for a protocol that refines `Event` receives
/// every conforming event.
///
/// ```swift
/// struct LoggedIn: Event {
///     var user: String
/// }
/// ```
public protocol Event: Sendable, Codable {
    /// The name the journal records for this type.
    ///
    /// Defaults to the type's name as written in source (`String(describing:)`); override
    /// it when two modules declare event types of the same name.
    static var eventTypeName: String { get }

    /// The names of fields the journal must not store (a password, a card number), at any
    /// depth of the payload, as they are encoded (their coding keys). A journal replaces
    /// their values, as it does those its redaction deny-list matches; none by default.
    ///
    /// ```swift
    /// struct PaymentSubmitted: Event {
    ///     var amount: Int
    ///     var card: String
    ///     static let redactedFields: Set<String> = ["card"]
    /// }
    /// ```
    static var redactedFields: Set<String> { get }
}

extension Event {
    /// The type's name as written in source.
    public static var eventTypeName: String { String(describing: Self.self) }

    /// None: only the journal's deny-list applies.
    public static var redactedFields: Set<String> { [] }
}
