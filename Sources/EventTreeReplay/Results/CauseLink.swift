import EventTree
import EventTreeJournal

/// One event on an event's cause chain: what raised it, or what it raised in turn.
public struct CauseLink: Sendable, Hashable, CustomStringConvertible {
    /// How an event came from the one before it on the chain.
    public enum Relation: String, Sendable, Hashable {
        /// The outermost raise: the app raised it, no handler did.
        case raisedByApp
        /// A handler of the previous event raised it (a nested raise).
        case raisedInHandler
        /// A handler of the previous event threw it (or reported it).
        case errorFromHandler
        /// An error handler converted the previous event (an error) into it.
        case convertedFromError
        /// A handler transformed the previous event into it.
        case transformed
    }

    /// The event.
    public let event: EventID
    /// Its type.
    public let typeName: String
    /// An event, a request or an error.
    public let kind: RaisedEvent.Kind
    /// How it came from the event before it on the chain (`event` it came from).
    public let relation: Relation
    /// The event it came from (`nil` for the outermost raise).
    public let from: EventID?
    /// How deep below the explained event it is (consequences: 1 for a direct one); 0 on
    /// the way up.
    public let depth: Int
    /// Its result.
    public let result: EventResult

    /// `61 RenderError (error), thrown by a handler of 56: delivered`.
    public var description: String {
        let origin: String
        switch relation {
        case .raisedByApp: origin = "raised by the app"
        case .raisedInHandler: origin = "raised by a handler of \(from?.rawValue ?? 0)"
        case .errorFromHandler: origin = "thrown by a handler of \(from?.rawValue ?? 0)"
        case .convertedFromError: origin = "converted from error \(from?.rawValue ?? 0)"
        case .transformed: origin = "transformed from \(from?.rawValue ?? 0)"
        }
        return "\(event.rawValue) \(typeName) (\(kind)), \(origin): \(result)"
    }

    /// How `event` came from `parent`.
    static func relation(of event: RecordedEvent, to parent: RecordedEvent) -> Relation {
        if event.transformedFrom == parent.id { return .transformed }
        if event.kind == .error && parent.kind != .error { return .errorFromHandler }
        if parent.kind == .error && event.kind != .error && parent.status == .consumed { return .convertedFromError }
        return .raisedInHandler
    }
}
