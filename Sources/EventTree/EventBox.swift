/// A raised value in a box whose class says its exact type, so that a handler typed for
/// that exact type matches it with one pointer comparison and reads it without a
/// dynamic cast.
@usableFromInline
class AnyEventBox: @unchecked Sendable {
    // Safe: immutable; subclasses add one immutable Sendable value.

    /// The value, for the slow path (protocol- or superclass-typed handlers).
    @usableFromInline var anyValue: any Sendable { fatalError("abstract") }

    /// The value as a raise's payload (an event or an error), for the paths that need the
    /// raise as a value (the journal, a hook, a transform): a delivery keeps only the box.
    var payload: RaisedEvent.Payload { fatalError("abstract") }
}

/// The box for values of type `Value`. Usable from inlinable code, so that a raise
/// specialized in the caller's module makes its box without a runtime metadata lookup.
@usableFromInline
final class EventBox<Value: Sendable>: AnyEventBox, @unchecked Sendable {
    // Safe: `value` is immutable and Sendable.
    @usableFromInline let value: Value
    /// Wraps the value as a payload (the box knows `Value` only as `Sendable`).
    let wrap: @Sendable (Value) -> RaisedEvent.Payload

    @usableFromInline
    init(_ value: Value, wrap: @escaping @Sendable (Value) -> RaisedEvent.Payload) {
        self.value = value
        self.wrap = wrap
    }

    @usableFromInline override var anyValue: any Sendable { value }

    override var payload: RaisedEvent.Payload { wrap(value) }
}

/// Boxes an event under its dynamic type (the existential is opened).
func makeBox<E: Event>(_ event: E) -> AnyEventBox { EventBox(event) { .event($0) } }

/// Boxes an error under its dynamic type.
func makeBox<E: Error>(_ error: E) -> AnyEventBox { EventBox(error) { .error($0) } }
