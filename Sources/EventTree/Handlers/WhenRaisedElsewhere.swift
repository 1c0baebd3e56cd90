/// What a synchronous raise made off the main actor does with a main-actor handler it
/// reaches (see ``EventNode/onMainActor(_:phases:label:whenRaisedElsewhere:fileID:line:_:)``).
///
/// A raise on the main actor calls the handler at once, and ``EventNode/raiseAsync(_:mode:onFailure:)``
/// awaits it in route order, whichever this says.
public enum WhenRaisedElsewhere: Sendable, Hashable {
    /// The call fails with ``DeliveryError/isolatedHandler(label:)`` (the bus warns once per
    /// handler): the raise's result says the handler could not run. For handlers whose
    /// effect the raiser relies on before the raise returns (consuming, answering,
    /// transforming): raise them on the main actor, or `await raiseAsync` them.
    case fail
    /// The call is enqueued on the main actor and runs there after the raise, with the same
    /// event and context. The raise records the call as ``Outcome/Kind/enqueued`` and goes
    /// on as after a handled call; the later call is journaled with its own outcome (the same
    /// event, node, phase and handler). Only its failure has an effect then: the error is
    /// raised from the handler's node, caused by the event, as for any failed call. For
    /// handlers that only react (update the screen): Domino's main-thread mode.
    case enqueue
}
