import EventTree
import Foundation

/// The event types a live replay can rebuild from a journal's JSON payloads.
///
/// ```swift
/// var types = EventTypes()
/// types.register(LoggedIn.self)
/// types.register(CurrentUser.self)   // an EventRequest: re-raised with request(_:)
/// ```
public struct EventTypes: Sendable {
    typealias Raiser = @Sendable (Data, EventNode, DeliveryMode, FailurePolicy, isolated (any Actor)?) throws -> RaiseResult
    typealias AsyncRaiser = @Sendable (Data, EventNode, DeliveryMode, FailurePolicy) async throws -> RaiseResult
    private var raisers: [String: Raiser] = [:]
    private var asyncRaisers: [String: AsyncRaiser] = [:]

    /// An empty registry: `NamedEvent` is always known.
    public init() {
        register(NamedEvent.self)
    }

    /// Registers an event type under its journal name.
    public mutating func register<E: Event>(_ type: E.Type) {
        raisers[E.eventTypeName] = { data, node, mode, policy, isolation in
            node.raise(try JSONDecoder().decode(E.self, from: data), mode: mode, onFailure: policy, isolation: isolation)
        }
        asyncRaisers[E.eventTypeName] = { data, node, mode, policy in
            await node.raiseAsync(try JSONDecoder().decode(E.self, from: data), mode: mode, onFailure: policy)
        }
    }

    /// Registers a request type; it is re-raised as a request.
    public mutating func register<R: EventRequest>(_ type: R.Type) {
        raisers[R.eventTypeName] = { data, node, mode, policy, isolation in
            node.request(try JSONDecoder().decode(R.self, from: data), mode: mode, onFailure: policy, isolation: isolation)
                .raise
        }
        asyncRaisers[R.eventTypeName] = { data, node, mode, policy in
            await node.requestAsync(try JSONDecoder().decode(R.self, from: data), mode: mode, onFailure: policy).raise
        }
    }

    /// Decodes `payload` as the type named `typeName` and raises it at `node`, with the
    /// caller's isolation (main-actor handlers are called when it is the main actor).
    ///
    /// - Returns: `nil` when no type of that name is registered.
    func raise(
        typeName: String, payload: String, at node: EventNode, mode: DeliveryMode, policy: FailurePolicy,
        isolation: isolated (any Actor)? = #isolation
    ) throws -> RaiseResult? {
        guard let raiser = raisers[typeName] else { return nil }
        return try raiser(Data(payload.utf8), node, mode, policy, isolation)
    }

    /// Like ``raise(typeName:payload:at:mode:policy:isolation:)``, awaiting main-actor handlers.
    func raiseAsync(
        typeName: String, payload: String, at node: EventNode, mode: DeliveryMode, policy: FailurePolicy
    ) async throws -> RaiseResult? {
        guard let raiser = asyncRaisers[typeName] else { return nil }
        return try await raiser(Data(payload.utf8), node, mode, policy)
    }
}
