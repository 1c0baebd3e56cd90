import EventTree

/// A raise as the journal recorded it.
public struct EventRecord: Sendable, Hashable {
    /// The event's id (the seq of its raise).
    public let id: EventID
    /// The session it belongs to.
    public let session: SessionID
    /// Its type name.
    public let typeName: String
    let typeID: Int
    /// `event`, `request` or `error`.
    public let kind: String
    /// The node it was raised at.
    public let origin: NodeID
    /// Its delivery mode.
    public let mode: DeliveryMode
    /// The event whose handler raised it.
    public let cause: EventID?
    /// The event it was transformed from.
    public let transformedFrom: EventID?
    /// Its payload as JSON.
    public let payload: String?
    /// When its raise ended (`nil`: it never did).
    public let finishedSeq: Int?
    /// Its recorded result (`RaiseStatus` case name), `nil` when it never ended.
    public let result: String?
    let stopHandlerNumber: Int?
    let stopNode: NodeID?
    let stopPhase: Phase?
    /// The first failure's error, for a failed result.
    public let message: String?
    /// Handler calls its transform chain lost to released nodes.
    public let lostCalls: Int
    /// What a failing handler did to its route.
    public let policy: FailurePolicy

    /// The channel it travelled on.
    var channel: HandlerRegistration.Channel { kind == "error" ? .errors : .events }
}
