/// A handler's code, erased to take any boxed value, with what it matches.
///
/// Made by ``anyThread(_:)`` or ``mainActor(_:)``, which are inlinable: the closure that
/// unboxes the event and calls yours is specialised for your event type in your module, so
/// that a call is one closure call reading the value straight out of its box. It is only
/// called with boxes that ``HandlerEntry/matches(_:typeIndex:)`` accepted.
@usableFromInline
final class HandlerBody: Sendable {
    /// Whether the code must run on the main actor.
    let runsOnMainActor: Bool
    /// Whether a synchronous raise off the main actor enqueues the call on the main actor
    /// (see ``WhenRaisedElsewhere/enqueue``) rather than failing it.
    let enqueuesWhenRaisedElsewhere: Bool
    /// The class of the boxes of exactly the handler's type (`nil`: it takes every value of
    /// its channel).
    let exactBox: ObjectIdentifier?
    /// Whether a value of another type is for the handler (a protocol or a superclass).
    let accepts: @Sendable (AnyEventBox) -> Bool
    /// The code, called by ``call(_:_:)``.
    private let code: @Sendable (AnyEventBox, HandlerContext) throws -> Outcome

    @usableFromInline
    init(
        runsOnMainActor: Bool, enqueuesWhenRaisedElsewhere: Bool = false, exactBox: ObjectIdentifier?,
        accepts: @escaping @Sendable (AnyEventBox) -> Bool, call: @escaping @Sendable (AnyEventBox, HandlerContext) throws -> Outcome
    ) {
        self.runsOnMainActor = runsOnMainActor
        self.enqueuesWhenRaisedElsewhere = enqueuesWhenRaisedElsewhere
        self.exactBox = exactBox
        self.accepts = accepts
        code = call
    }

    /// Calls the code on this thread. For a main-actor body the caller has made sure that
    /// this thread is the main actor's (an async raise calls it inside `MainActor.run`).
    /// Inlined into the delivery loop, which calls the closure straight from the body's
    /// `let` without retaining it (an out-of-line copy of this method would retain it).
    @inline(__always)
    func call(_ box: AnyEventBox, _ context: HandlerContext) throws -> Outcome {
        try code(box, context)
    }

    /// The body of a handler for values of type `E` that runs on whichever thread raises.
    @inlinable
    static func anyThread<E: Sendable>(_ handler: @escaping @Sendable (E, HandlerContext) throws -> Outcome) -> HandlerBody {
        let exact = ObjectIdentifier(EventBox<E>.self)
        return HandlerBody(runsOnMainActor: false, exactBox: exact, accepts: { $0.anyValue is E }) { box, context in
            try handler(unbox(box, as: E.self, exactBox: exact), context)
        }
    }

    /// The body of a handler for every value of its channel (`E` is `any Event` or `any Error`).
    @inlinable
    static func anyValue<E: Sendable>(_ handler: @escaping @Sendable (E, HandlerContext) throws -> Outcome) -> HandlerBody {
        HandlerBody(runsOnMainActor: false, exactBox: nil, accepts: { _ in true }) { box, context in
            try handler(box.anyValue as! E, context)
        }
    }

    /// The body of a handler for values of type `E` that runs on the main actor: called
    /// directly by a synchronous raise on the main actor, awaited by an async raise,
    /// otherwise refused (as a failed call) or enqueued on the main actor, as `elsewhere` says.
    @inlinable
    static func mainActor<E: Sendable>(
        whenRaisedElsewhere elsewhere: WhenRaisedElsewhere = .fail,
        _ handler: @escaping @MainActor @Sendable (E, HandlerContext) throws -> Outcome
    ) -> HandlerBody {
        let exact = ObjectIdentifier(EventBox<E>.self)
        return HandlerBody(
            runsOnMainActor: true, enqueuesWhenRaisedElsewhere: elsewhere == .enqueue, exactBox: exact,
            accepts: { $0.anyValue is E }
        ) { box, context in
            try MainActor.assumeIsolated { try handler(unbox(box, as: E.self, exactBox: exact), context) }
        }
    }
}

/// The value in `box` as an `E`: a box of exactly `E` (whose class is `exactBox`) is read
/// without a cast (a pointer comparison of its class); any other box (a handler typed by a
/// protocol, a superclass or `any Event`) goes through a dynamic cast.
@inlinable @inline(__always)
func unbox<E: Sendable>(_ box: AnyEventBox, as type: E.Type, exactBox: ObjectIdentifier) -> E {
    if ObjectIdentifier(Swift.type(of: box)) == exactBox {
        return unsafeDowncast(box, to: EventBox<E>.self).value
    }
    return unboxByCasting(box, as: type)
}

/// The value in `box` as an `E`, through a dynamic cast: out of line, so that a handler's
/// call of a box of its exact type saves no registers for it.
@inlinable @inline(never)
func unboxByCasting<E: Sendable>(_ box: AnyEventBox, as type: E.Type) -> E {
    box.anyValue as! E
}
