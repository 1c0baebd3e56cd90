extension EventBus {
    /// Creates a node's record: a new root, named `name`.
    func makeCore(named name: String) -> NodeCore {
        mutate { state, log in
            let slot = state.topology.takeSlot()
            let id = NodeID(rawValue: log.takeNumber())
            log.record(.nodeCreated(id, name: name), numbered: id.rawValue)
            let core = NodeCore(id: id, slot: slot, name: name, bus: self)
            state.topology.cores[slot] = core
            return core
        }
    }

    func setHandle(_ node: EventNode, of core: NodeCore) {
        lock.withLock { core.handle = node }
    }

    /// Attaches `child` under `parent` (moving it if it has a parent already).
    func attach(_ child: NodeCore, under parent: NodeCore, at index: Int?) throws(TreeError) {
        try mutate { (state, log) throws(TreeError) in
            if child.isReleased { throw .released(child.id) }
            if parent.isReleased { throw .released(parent.id) }
            if state.topology.isAncestor(child.slot, of: parent.slot) {
                throw .wouldCreateCycle(node: child.id, parent: parent.id)
            }
            let wasAttached = state.topology.unlink(child.slot) != nil
            let position = state.topology.link(child.slot, under: parent.slot, at: index)
            log.record(wasAttached
                ? .nodeMoved(child.id, parent: parent.id, index: position)
                : .nodeAttached(child.id, parent: parent.id, index: position))
        }
    }

    /// Detaches `core` from its parent: it becomes the root of its own subtree.
    func detach(_ core: NodeCore) {
        mutate { state, log in
            guard !core.isReleased, let parent = state.topology.unlink(core.slot),
                let parentCore = state.topology.cores[parent]
            else { return }
            log.record(.nodeDetached(core.id, parent: parentCore.id))
        }
    }

    func rename(_ core: NodeCore, to name: String) {
        mutate { _, log in
            guard !core.isReleased, core.name != name else { return }
            core.name = name
            log.record(.nodeRenamed(core.id, name: name))
        }
    }

    /// Releases a node: its handlers go (and are freed), its children become roots of
    /// detached subtrees, and its slot becomes free. Releasing twice does nothing.
    func release(_ core: NodeCore) {
        let freed: [HandlerEntry] = mutate { state, log in
            guard !core.released.exchange(true, ordering: .acquiringAndReleasing) else { return [] }
            generation.add(1, ordering: .releasing)
            let slot = core.slot
            // Children and handlers go first, so that each of these facts names the node
            // where it stood; the release comes last.
            for child in state.topology.children[slot] {
                state.topology.parents[child] = -1
                if let childCore = state.topology.cores[child] { log.record(.nodeDetached(childCore.id, parent: core.id)) }
            }
            let handlers = state.topology.handlers[slot]
            for entry in handlers {
                entry.removed.store(true, ordering: .releasing)
                log.record(.handlerRemoved(entry.id))
            }
            log.record(.nodeReleased(core.id, by: DeliveryStack.current.callInProgress(on: ObjectIdentifier(self))))
            state.topology.unlink(slot)
            state.topology.children[slot] = []
            state.topology.handlers[slot] = []
            state.topology.plans[slot] = []
            state.topology.cores[slot] = nil
            state.topology.freeSlots.append(slot)
            return handlers
        }
        // The handlers' closures (and what they capture) are freed here, outside the lock.
        _ = freed
    }

    /// Registers a handler on `core`.
    func addHandler(
        on core: NodeCore, label: String, eventType: String?, channel: HandlerRegistration.Channel,
        phases: Phases, fileID: String, line: Int, body: HandlerBody
    ) -> HandlerToken {
        mutate { state, log in
            let id = HandlerID(rawValue: log.takeNumber())
            let registration = HandlerRegistration(
                id: id, node: core.id, label: label, eventType: eventType, channel: channel,
                phases: phases, fileID: fileID, line: line)
            log.record(.handlerAdded(registration), numbered: id.rawValue)
            let entry = HandlerEntry(registration: registration, core: core, body: body)
            if core.isReleased {
                // A released node keeps no handlers; the registration is journaled and
                // removed at once so that the history stays complete.
                entry.removed.store(true, ordering: .releasing)
                log.record(.handlerRemoved(id))
            } else {
                state.topology.handlers[core.slot].append(entry)
                state.rebuildPlans(of: core.slot)
                generation.add(1, ordering: .releasing)
                if eventType != nil {
                    for seen in state.seenTypes where seen.channel == channel && entry.matches(seen.sample) {
                        log.record(.handlerMatched(id, eventType: seen.info.name))
                    }
                }
            }
            return HandlerToken(id: id, bus: self, entry: entry)
        }
    }

    func removeHandler(_ entry: HandlerEntry) {
        mutate { state, log in
            guard !entry.removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            generation.add(1, ordering: .releasing)
            log.record(.handlerRemoved(entry.id))
            let slot = entry.core.slot
            if state.topology.cores[slot] === entry.core {
                state.topology.handlers[slot].removeAll { $0 === entry }
                state.rebuildPlans(of: slot)
            }
        }
    }

    /// The node's handler list as it is now, or `nil` when the node is released.
    /// The live dispatch plan of `core` for the type numbered `type`, unless it was released.
    func livePlan(of core: NodeCore, type: Int) -> [HandlerEntry]? {
        lock.withLock {
            state.topology.cores[core.slot] === core && !core.isReleased ? state.topology.plan(for: core.slot, type: type) : nil
        }
    }

    func liveHandlers(of core: NodeCore) -> [HandlerEntry]? {
        lock.withLock {
            state.topology.cores[core.slot] === core && !core.isReleased ? state.topology.handlers[core.slot] : nil
        }
    }

    // MARK: Reading the tree

    func parent(of core: NodeCore) -> EventNode? {
        lock.withLock {
            guard state.topology.cores[core.slot] === core else { return nil }
            let parent = state.topology.parents[core.slot]
            return parent >= 0 ? state.topology.cores[parent]?.handle : nil
        }
    }

    func children(of core: NodeCore) -> [EventNode] {
        lock.withLock {
            guard state.topology.cores[core.slot] === core else { return [] }
            return state.topology.children[core.slot].compactMap { state.topology.cores[$0]?.handle }
        }
    }

    func name(of core: NodeCore) -> String {
        lock.withLock { core.name }
    }
}
