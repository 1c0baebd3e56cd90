/// A raised value in a box whose class says its exact type, so that a handler typed for
/// that exact type matches it with one pointer comparison and reads it without a
/// dynamic cast.
@usableFromInline
class AnyEventBox: @unchecked Sendable {
    // Safe: a box's value is set only while one thread holds the box alone (see
    // `DeliveryStack.spareBox(ofType:)`); while a delivery shares it, it is not changed.

    /// The value, for the slow path (protocol- or superclass-typed handlers).
    @usableFromInline var anyValue: any Sendable { fatalError("abstract") }

    /// The value as a raise's payload (an event or an error), for the paths that need the
    /// raise as a value (the journal, a hook, a transform): a delivery keeps only the box.
    var payload: RaisedEvent.Payload { fatalError("abstract") }
}

/// The box for values of type `Value`. Usable from inlinable code, so that a raise
/// specialized in the caller's module makes its box without a runtime metadata lookup.
///
/// A synchronous raise hands its box back to its thread's ``DeliveryStack`` when nothing
/// else holds it, emptied, so that the next raise of the type on that thread reuses it
/// instead of allocating one. The value lives in storage of its own rather than in an
/// optional: code that is not specialized for the type (the journal's payload, a box made
/// for a transform or an error) would look up the optional's metadata at run time on every
/// read, where the storage's type is the box's own generic argument.
@usableFromInline
final class EventBox<Value: Sendable>: AnyEventBox, @unchecked Sendable {
    /// The value, initialized while the box is in use (`holdsValue`).
    @usableFromInline let storage: UnsafeMutablePointer<Value>
    /// Whether `storage` holds a value: false only while the box is a spare. Unchecked: it
    /// changes only while one thread holds the box alone.
    @exclusivity(unchecked) @usableFromInline var holdsValue: Bool
    let wrap: @Sendable (Value) -> RaisedEvent.Payload

    @usableFromInline
    init(_ value: Value, wrap: @escaping @Sendable (Value) -> RaisedEvent.Payload) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        holdsValue = true
        self.wrap = wrap
    }

    deinit {
        if holdsValue { storage.deinitialize(count: 1) }
        storage.deallocate()
    }

    /// The value the box carries (a box in use always carries one).
    @inlinable var value: Value { storage.pointee }

    @usableFromInline override var anyValue: any Sendable { value }

    override var payload: RaisedEvent.Payload { wrap(value) }

    /// Puts `value` in the emptied box.
    @inlinable
    func refill(with value: Value) {
        storage.initialize(to: value)
        holdsValue = true
    }

    /// Empties the box (its value is destroyed), for keeping it as a spare.
    @inlinable
    func empty() {
        storage.deinitialize(count: 1)
        holdsValue = false
    }
}

func makeBox<E: Event>(_ event: E) -> AnyEventBox { EventBox(event) { .event($0) } }

func makeBox<E: Error>(_ error: E) -> AnyEventBox { EventBox(error) { .error($0) } }

extension DeliveryStack {
    /// A box carrying `event`: this thread's spare box of the type if it has one, otherwise
    /// a new one.
    @inlinable
    func box<E: Event>(carrying event: E) -> EventBox<E> {
        if let spare = spareBox(ofType: ObjectIdentifier(EventBox<E>.self)) {
            let box = unsafeDowncast(spare, to: EventBox<E>.self)
            box.refill(with: event)
            return box
        }
        return EventBox(event) { .event($0) }
    }

    /// Keeps `box`, emptied, for the next raise of its type on this thread, unless
    /// something else still holds it (a type's first box stays with the bus as its sample).
    @inlinable
    func recycle<E>(_ box: consuming EventBox<E>) {
        var box = box
        guard isKnownUniquelyReferenced(&box) else { return }
        box.empty()
        keepSpareBox(consume box)
    }
}
