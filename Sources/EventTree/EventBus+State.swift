extension EventBus {
    /// Everything mutable about a bus, guarded by its lock.
    struct State {
        var topology = Topology()
        var isEnded = false
        var deadLetterHook: (@Sendable (RaisedEvent) -> Void)?
        var unhandledErrorHook: (@Sendable (RaisedEvent) -> Void)?
        /// Type names of the event and error types raised so far, by channel and type.
        var typeNames: [TypeKey: String] = [:]
        /// The types raised so far, each with its first value, for matching new handlers
        /// against them (matching is a dynamic cast of a value).
        var seenTypes: [(key: TypeKey, sample: any Sendable, name: String)] = []

        struct TypeKey: Hashable {
            let type: ObjectIdentifier
            let channel: HandlerRegistration.Channel
        }

        /// The journal name of `value`'s type on `channel`; on the first meeting, records
        /// which live handlers match it.
        mutating func typeName(
            of value: any Sendable, channel: HandlerRegistration.Channel, naming: () -> String, log: inout FactLog
        ) -> String {
            let key = TypeKey(type: ObjectIdentifier(Swift.type(of: value)), channel: channel)
            if let name = typeNames[key] { return name }
            let name = naming()
            typeNames[key] = name
            seenTypes.append((key, value, name))
            for list in topology.handlers {
                for entry in list where entry.registration.channel == channel && entry.registration.eventType != nil
                    && entry.matches(value) {
                    log.record(.handlerMatched(entry.id, eventType: name))
                }
            }
            return name
        }
    }
}
