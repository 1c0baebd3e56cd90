/// A raised value in a box whose class says its exact type, so that a handler typed for
/// that exact type matches it with one pointer comparison and reads it without a
/// dynamic cast.
@usableFromInline
class AnyEventBox: @unchecked Sendable {
    // Safe: immutable; subclasses add one immutable Sendable value.

    /// The value, for the slow path (protocol- or superclass-typed handlers).
    var anyValue: any Sendable { fatalError("abstract") }
}

/// The box for values of type `Value`. Usable from inlinable code, so that a raise
/// specialized in the caller's module makes its box without a runtime metadata lookup.
@usableFromInline
final class EventBox<Value: Sendable>: AnyEventBox, @unchecked Sendable {
    // Safe: `value` is immutable and Sendable.
    let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }

    override var anyValue: any Sendable { value }
}

/// Boxes an event under its dynamic type (the existential is opened).
func makeBox<E: Event>(_ event: E) -> AnyEventBox { EventBox(event) }

/// Boxes an error under its dynamic type.
func makeBox<E: Error>(_ error: E) -> AnyEventBox { EventBox(error) }
