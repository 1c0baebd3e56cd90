import Foundation
import Synchronization

/// What the nodes of one tree share: the recorder, the global sequence and the hooks.
///
/// Create one bus per tree (or per app), then create nodes on it. The bus records every
/// fact of its session through its recorder; it holds no node alive.
///
/// ```swift
/// let bus = EventBus(recorder: journal)
/// let app = EventNode("app", bus: bus)
/// ```
public final class EventBus: @unchecked Sendable {
    // Safe: `state` is read and written only with `lock` held; every other stored
    // property is immutable, atomic, or itself Sendable.
    let lock = Lock()
    /// Guarded by `lock`, so the per-access dynamic exclusivity check is left out.
    @exclusivity(unchecked) var state = State()
    /// Bumped by every change that can alter a step's handler list (a handler added or
    /// removed, a node released). A step whose raise saw the same generation can use the
    /// raise's snapshot without taking the lock.
    let generation = Atomic<Int>(0)

    /// The session this bus records.
    public let session: SessionID
    let sequence: SequenceCounter
    let recorder: (any Recorder)?
    /// `recorder`, when it takes a raise's records as a batch (a journal): asked once here
    /// rather than cast on every raise. Unowned: `recorder` holds it (and a raise calls it
    /// without retaining it).
    unowned(unsafe) let batchRecorder: (any BatchRecorder)?
    /// Whether `recorder` is set (read on every raise; cheaper than the optional existential).
    let isRecorded: Bool
    /// Where recorded times come from.
    let clock: EventClock
    /// Changes queued for the recorder and not yet handed over (see ``handOverChanges()``).
    let unsentChanges = Atomic<Int>(0)
    /// Held by the thread handing changes to the recorder, so that they go in order.
    let handingOver = Lock()
    /// How deep raises may nest on one thread (a handler's raise, an error a failing call
    /// raises, an event an error handler converts): a raise deeper than this is refused and
    /// ends ``RaiseStatus/failed(_:)`` with ``DeliveryError/nestingTooDeep(eventType:limit:cause:)``,
    /// so that a handler whose raise leads back to itself cannot overflow the thread's stack.
    public let maximumNestingDepth: Int
    /// The main-actor calls enqueued by synchronous raises made elsewhere, not yet run.
    let enqueuedCalls = EnqueuedCalls()

    /// Creates a bus and starts its session.
    ///
    /// - Parameters:
    ///   - recorder: Where facts go: a journal, an in-memory recorder, or `nil` for none.
    ///   - appVersion: The embedding app's version, recorded with the session.
    ///   - process: The process name recorded with the session.
    ///   - clock: Where recorded times come from (the system's clocks by default).
    ///   - maximumNestingDepth: How deep raises may nest on one thread before a raise is
    ///     refused (see ``maximumNestingDepth``); at least 1.
    public init(
        recorder: (any Recorder)? = nil, appVersion: String? = nil,
        process: String = ProcessInfo.processInfo.processName, clock: EventClock = .system,
        maximumNestingDepth: Int = 64
    ) {
        self.maximumNestingDepth = max(1, maximumNestingDepth)
        self.recorder = recorder
        batchRecorder = recorder as? any BatchRecorder
        isRecorded = recorder != nil
        self.clock = clock
        sequence = recorder?.sequence ?? SequenceCounter()
        let seq = sequence.open()
        session = SessionID(rawValue: seq)
        let info = SessionInfo(
            id: session, process: process, host: ProcessInfo.processInfo.hostName,
            appVersion: appVersion, startedAt: clock.wallSeconds(), startedAtNanoseconds: clock.nanoseconds())
        recorder?.record([FactRecord(seq: seq, fact: .sessionStarted(info))], session: session)
    }

    deinit {
        end()
    }

    /// Ends the session: records its end once. Later facts are still delivered but no
    /// longer recorded. Called automatically when the bus is released.
    public func end() {
        let wasEnded = lock.withLock {
            defer { state.isEnded = true }
            return state.isEnded
        }
        guard !wasEnded, let recorder else { return }
        handOverChanges()
        recorder.record([FactRecord(seq: sequence.open(), fact: .sessionEnded(session, at: clock.nanoseconds()))], session: session)
    }

    // MARK: Hooks

    /// Calls `hook` for every event or request that no handler acted on, once, before
    /// the raise returns. Hooks add up: every registered hook is called, in order.
    ///
    /// - Returns: A token that removes this hook.
    @discardableResult
    public func onDeadLetter(_ hook: @escaping @Sendable (RaisedEvent) -> Void) -> HookToken {
        addHook(hook, to: \.deadLetterHooks)
    }

    /// Calls `hook` for every error that no error handler caught, once, before the raise
    /// that produced it returns. Hooks add up: every registered hook is called, in order.
    ///
    /// - Returns: A token that removes this hook.
    @discardableResult
    public func onUnhandledError(_ hook: @escaping @Sendable (RaisedEvent) -> Void) -> HookToken {
        addHook(hook, to: \.unhandledErrorHooks)
    }

    /// Calls `hook` with each run-time warning about how the bus is used (one line saying
    /// what went wrong and how to fix it), instead of writing it to standard error. Today's
    /// only warning: a synchronous raise off the main actor reached a main-actor handler,
    /// given once per handler. Hooks add up: every registered hook is called, in order.
    ///
    /// - Returns: A token that removes this hook.
    @discardableResult
    public func onWarning(_ hook: @escaping @Sendable (String) -> Void) -> HookToken {
        addHook(hook, to: \.warningHooks)
    }

    /// Appends `hook` to the hooks at `hooks`, numbered for its token.
    private func addHook<Argument>(
        _ hook: @escaping @Sendable (Argument) -> Void,
        to hooks: WritableKeyPath<State, [(number: Int, hook: @Sendable (Argument) -> Void)]>
    ) -> HookToken {
        lock.withLock {
            defer { state.nextHook += 1 }
            state[keyPath: hooks].append((state.nextHook, hook))
            return HookToken(number: state.nextHook, bus: self)
        }
    }

    /// Gives `warning` to the warning hooks, or writes it to standard error when there are none.
    func warn(_ warning: String) {
        let hooks = lock.withLock { state.warningHooks }
        guard !hooks.isEmpty else {
            FileHandle.standardError.write(Data("EventTree: warning: \(warning)\n".utf8))
            return
        }
        for (_, hook) in hooks { hook(warning) }
    }

    func removeHook(_ number: Int) {
        lock.withLock {
            state.deadLetterHooks.removeAll { $0.number == number }
            state.unhandledErrorHooks.removeAll { $0.number == number }
            state.warningHooks.removeAll { $0.number == number }
        }
    }

    /// The node whose path is `path` now, if one is in the tree (and its owner keeps it).
    public func node(atPath path: String) -> EventNode? {
        lock.withLock {
            for (slot, core) in state.topology.cores.enumerated() {
                if let core, state.topology.path(of: slot) == path { return core.handle }
            }
            return nil
        }
    }

    /// The path `node` has now, or `nil` when no node of this bus has that id any more
    /// (it was released, or is of another bus): for status texts and hooks that name a
    /// node by id, such as ``HandlerContext/origin``. The journal keeps released nodes'
    /// paths.
    public func path(of node: NodeID) -> String? {
        lock.withLock {
            guard let slot = state.topology.cores.firstIndex(where: { $0?.id == node }) else { return nil }
            return state.topology.path(of: slot)
        }
    }

    // MARK: Recording

    /// Queues the facts of a change to the bus's shared state (the tree, the handlers, the
    /// types met) for the recorder. Called with the lock held, so that the queue is in the
    /// order of the changes; the recorder gets them from ``handOverChanges()``, which runs
    /// without the lock (a recorder that blocks cannot stall the bus), before any raise
    /// that saw the new state hands over its own records.
    func enqueueChange(_ log: FactLog) {
        guard !log.records.isEmpty, recorder != nil else {
            log.settleUnlessHandedOver(handingOver: false)
            return
        }
        state.pendingChanges.append(log.records)
        unsentChanges.add(1, ordering: .relaxed)
    }

    /// Hands the queued changes to the recorder, in order, without the bus's lock. One
    /// thread hands over at a time; a raise that finds changes unsent waits for them here
    /// before its own records go (see ``end(_:stack:)``). A recorder that changes the bus
    /// from inside ``Recorder/recordChange(_:session:)`` has its change handed over by the
    /// same loop.
    @inline(never)
    func handOverChanges() {
        guard let recorder, unsentChanges.load(ordering: .acquiring) != 0 else { return }
        let stack = DeliveryStack.current
        guard !stack.isHandingOverChanges else { return }
        stack.isHandingOverChanges = true
        defer { stack.isHandingOverChanges = false }
        handingOver.lock()
        defer { handingOver.unlock() }
        while true {
            let changes = lock.withLock { () -> [[FactRecord]] in
                var taken: [[FactRecord]] = []
                swap(&taken, &state.pendingChanges)
                return taken
            }
            if changes.isEmpty { return }
            for records in changes { recorder.recordChange(records, session: session) }
            unsentChanges.subtract(changes.count, ordering: .releasing)
        }
    }

    /// Runs `change` with the lock held, numbering the facts it records and queueing them
    /// in the order of the changes; hands them to the recorder once the lock is released.
    @discardableResult
    func mutate<T, Failure: Error>(
        _ change: (inout State, inout FactLog) throws(Failure) -> T
    ) throws(Failure) -> T {
        lock.lock()
        var log = FactLog(sequence: sequence, isRecording: recorder != nil && !state.isEnded, opensBatch: true)
        let result: T
        do {
            result = try change(&state, &log)
        } catch {
            enqueueChange(log)
            lock.unlock()
            handOverChanges()
            throw error
        }
        enqueueChange(log)
        lock.unlock()
        handOverChanges()
        return result
    }

    // MARK: Lookups

    func handle(of core: NodeCore) -> EventNode? {
        lock.withLock { core.handle }
    }

    func path(of core: NodeCore) -> String {
        lock.withLock {
            state.topology.cores[core.slot] === core ? state.topology.path(of: core.slot) : core.name
        }
    }
}

extension EventBus: Hashable {
    /// Buses are equal when they are the same bus.
    public static func == (lhs: EventBus, rhs: EventBus) -> Bool { lhs === rhs }

    /// Hashes the bus's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
