/// A raised value in a box whose class says its exact type, so that a handler typed for
/// that exact type matches it with one pointer comparison and reads it without a
/// dynamic cast.
@usableFromInline
class AnyEventBox: @unchecked Sendable {
    // Safe: a box's value is set only while one thread holds the box alone (see
    // `DeliveryStack.spareBox(ofType:)`); while a delivery shares it, it is not changed.

    /// Reads the value of a box of this class, and wraps it as a payload: made by code
    /// specialized for its type, so that neither costs a runtime metadata lookup (generic
    /// code reading an optional of the type would look up the optional's metadata).
    @usableFromInline let open: @Sendable (AnyEventBox) -> any Sendable
    @usableFromInline let wrap: @Sendable (AnyEventBox) -> RaisedEvent.Payload

    @usableFromInline
    init(open: @escaping @Sendable (AnyEventBox) -> any Sendable, wrap: @escaping @Sendable (AnyEventBox) -> RaisedEvent.Payload) {
        self.open = open
        self.wrap = wrap
    }

    /// The value, for the slow path (protocol- or superclass-typed handlers).
    @usableFromInline var anyValue: any Sendable { open(self) }

    /// The value as a raise's payload (an event or an error), for the paths that need the
    /// raise as a value (the journal, a hook, a transform): a delivery keeps only the box.
    var payload: RaisedEvent.Payload { wrap(self) }
}

/// The box for values of type `Value`. Usable from inlinable code, so that a raise
/// specialized in the caller's module makes its box without a runtime metadata lookup.
///
/// A synchronous raise hands its box back to its thread's ``DeliveryStack`` when nothing
/// else holds it, emptied, so that the next raise of the type on that thread reuses it
/// instead of allocating one (`stored` is `nil` only while the box waits there).
@usableFromInline
final class EventBox<Value: Sendable>: AnyEventBox, @unchecked Sendable {
    /// The value; `nil` while the box is a spare. Unchecked: it changes only while one thread
    /// holds the box alone, and every handler call reads it.
    @exclusivity(unchecked) @usableFromInline var stored: Value?

    @usableFromInline
    init(
        _ value: Value, open: @escaping @Sendable (AnyEventBox) -> any Sendable,
        wrap: @escaping @Sendable (AnyEventBox) -> RaisedEvent.Payload
    ) {
        stored = value
        super.init(open: open, wrap: wrap)
    }

    /// The value the box carries (a box in use always carries one).
    @inlinable var value: Value { stored.unsafelyUnwrapped }

    /// The value of `box`, a box of this class.
    @inlinable static func value(of box: AnyEventBox) -> Value { unsafeDowncast(box, to: Self.self).value }
}

extension EventBox where Value: Event {
    /// A box carrying `event`.
    @inlinable
    convenience init(event: Value) {
        self.init(event, open: { EventBox.value(of: $0) }, wrap: { .event(EventBox.value(of: $0)) })
    }
}

extension EventBox where Value: Error {
    /// A box carrying `error`.
    convenience init(error: Value) {
        self.init(error, open: { EventBox.value(of: $0) }, wrap: { .error(EventBox.value(of: $0)) })
    }
}

func makeBox<E: Event>(_ event: E) -> AnyEventBox { EventBox(event: event) }

func makeBox<E: Error>(_ error: E) -> AnyEventBox { EventBox(error: error) }

extension DeliveryStack {
    /// A box carrying `event`: this thread's spare box of the type if it has one, otherwise
    /// a new one.
    @inlinable
    func box<E: Event>(carrying event: E) -> EventBox<E> {
        if let spare = spareBox(ofType: ObjectIdentifier(EventBox<E>.self)) {
            let box = unsafeDowncast(spare, to: EventBox<E>.self)
            box.stored = event
            return box
        }
        return EventBox(event: event)
    }

    /// Keeps `box`, emptied, for the next raise of its type on this thread, unless
    /// something else still holds it (a type's first box stays with the bus as its sample).
    @inlinable
    func recycle<E>(_ box: consuming EventBox<E>) {
        var box = box
        guard isKnownUniquelyReferenced(&box) else { return }
        box.stored = nil
        keepSpareBox(consume box)
    }
}
