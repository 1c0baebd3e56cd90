/// A handler's code, erased to take any boxed value: a class whose typed subclasses
/// (``AnyThreadBody``, ``MainActorBody``) unbox the value and call the user's closure, so
/// that a call is one virtual call into code specialised for the handler's type. It is only
/// called with boxes that ``HandlerEntry/matches(_:typeIndex:)`` accepted.
class HandlerBody: @unchecked Sendable {
    // Safe: immutable; subclasses add one immutable Sendable closure.

    /// Whether the code must run on the main actor.
    let runsOnMainActor: Bool
    /// The class of the boxes whose value the code takes without a cast: looked up once
    /// here, since code shared by every `E` would ask the runtime for it on every call.
    let exactBox: ObjectIdentifier

    init(runsOnMainActor: Bool, exactBox: ObjectIdentifier) {
        self.runsOnMainActor = runsOnMainActor
        self.exactBox = exactBox
    }

    /// Calls the code on this thread. For a main-actor body the caller has made sure that
    /// this thread is the main actor's (an async raise calls it inside `MainActor.run`).
    func call(_ box: AnyEventBox, _ context: HandlerContext) throws -> Outcome {
        fatalError("abstract")
    }

}

/// The code of a handler that runs on whichever thread raises.
final class AnyThreadBody<E: Sendable>: HandlerBody, @unchecked Sendable {
    let handler: @Sendable (E, HandlerContext) throws -> Outcome

    init(_ handler: @escaping @Sendable (E, HandlerContext) throws -> Outcome) {
        self.handler = handler
        super.init(runsOnMainActor: false, exactBox: ObjectIdentifier(EventBox<E>.self))
    }

    override func call(_ box: AnyEventBox, _ context: HandlerContext) throws -> Outcome {
        try handler(unbox(box, as: E.self, exactBox: exactBox), context)
    }
}

/// The code of a handler that runs on the main actor: called directly by a synchronous
/// raise on the main actor, awaited by an async raise, refused (as a failed call) otherwise.
final class MainActorBody<E: Sendable>: HandlerBody, @unchecked Sendable {
    let handler: @MainActor @Sendable (E, HandlerContext) throws -> Outcome

    init(_ handler: @escaping @MainActor @Sendable (E, HandlerContext) throws -> Outcome) {
        self.handler = handler
        super.init(runsOnMainActor: true, exactBox: ObjectIdentifier(EventBox<E>.self))
    }

    override func call(_ box: AnyEventBox, _ context: HandlerContext) throws -> Outcome {
        try MainActor.assumeIsolated { try handler(unbox(box, as: E.self, exactBox: exactBox), context) }
    }
}

/// The value in `box` as an `E`: a box of exactly `E` (whose class is `exactBox`) is read
/// without a cast (a pointer comparison of its class); any other box (a handler typed by a
/// protocol, a superclass or `any Event`) goes through a dynamic cast.
@inline(__always)
func unbox<E: Sendable>(_ box: AnyEventBox, as type: E.Type, exactBox: ObjectIdentifier) -> E {
    if ObjectIdentifier(Swift.type(of: box)) == exactBox {
        return unsafeDowncast(box, to: EventBox<E>.self).value
    }
    return box.anyValue as! E
}
