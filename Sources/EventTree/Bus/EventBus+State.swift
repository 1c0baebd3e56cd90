extension EventBus {
    /// Everything mutable about a bus, guarded by its lock.
    struct State {
        private var storedTopology = Topology()
        /// The tree as raises share it, made on the first raise after a change.
        private var sharedTopology: TopologySnapshot?

        /// The tree. Changing it drops the shared snapshot first, so that raises in flight
        /// keep theirs and the change itself copies nothing they do not hold.
        var topology: Topology {
            _read { yield storedTopology }
            _modify {
                sharedTopology = nil
                yield &storedTopology
            }
        }

        /// The tree as it stands, shared by every raise until it changes (one reference
        /// to take, not one per array).
        mutating func topologySnapshot() -> TopologySnapshot {
            if let sharedTopology { return sharedTopology }
            let snapshot = TopologySnapshot(storedTopology)
            sharedTopology = snapshot
            return snapshot
        }
        var isEnded = false
        /// Changes' records queued for the recorder, in the order of the changes (see
        /// ``EventBus/enqueueChange(_:)``).
        var pendingChanges: [[FactRecord]] = []
        /// Hooks by kind, in registration order, each with the number its token removes.
        var deadLetterHooks: [(number: Int, hook: @Sendable (RaisedEvent) -> Void)] = []
        var unhandledErrorHooks: [(number: Int, hook: @Sendable (RaisedEvent) -> Void)] = []
        var warningHooks: [(number: Int, hook: @Sendable (String) -> Void)] = []
        var nextHook = 1
        /// The event and error types raised so far, by channel and box type.
        var types: [TypeKey: TypeInfo] = [:]
        /// The last type looked up, with its number: most raises repeat the previous one's
        /// type, and a comparison is cheaper than hashing.
        var lastType: (key: TypeKey, index: Int)?
        /// The same, in the order first seen, each with its first value (matching new
        /// handlers against them is a dynamic cast of a value).
        var seenTypes: [(channel: HandlerRegistration.Channel, sample: AnyEventBox, info: TypeInfo)] = []

        struct TypeKey: Hashable {
            let box: ObjectIdentifier
            let channel: HandlerRegistration.Channel
        }

        /// A raised type: its journal name and a small number (handlers cache their
        /// verdict for it under that number).
        struct TypeInfo {
            let name: String
            let index: Int
        }

        /// The number of `box`'s type on `channel`, if it was raised before.
        @inline(__always)
        mutating func knownType(of box: AnyEventBox, channel: HandlerRegistration.Channel) -> Int? {
            let key = TypeKey(box: ObjectIdentifier(Swift.type(of: box)), channel: channel)
            if let lastType, lastType.key == key { return lastType.index }
            guard let info = types[key] else { return nil }
            lastType = (key, info.index)
            return info.index
        }

        /// Numbers `box`'s type on `channel`, met for the first time, under `name`, and
        /// records which live handlers match it.
        mutating func meetType(
            of box: AnyEventBox, channel: HandlerRegistration.Channel, name: String, log: inout FactLog
        ) -> TypeInfo {
            let key = TypeKey(box: ObjectIdentifier(Swift.type(of: box)), channel: channel)
            let info = TypeInfo(name: name, index: seenTypes.count)
            types[key] = info
            lastType = (key, info.index)
            seenTypes.append((channel, box, info))
            for slot in topology.handlers.indices where !topology.handlers[slot].isEmpty {
                let plan = topology.handlers[slot].filter { $0.channel == channel && $0.matches(box) }
                topology.plans[slot].append(plan)
                for entry in plan where entry.registration.eventType != nil {
                    log.record(.handlerMatched(entry.id, eventType: info.name))
                }
            }
            return info
        }

        /// Rebuilds the dispatch plans of `slot` after its handlers changed.
        mutating func rebuildPlans(of slot: Int) {
            topology.rebuildPlans(of: slot, types: seenTypes.map { ($0.channel, $0.sample) })
        }
    }
}
