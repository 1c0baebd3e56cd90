import Synchronization

/// The bus's private record of one node. The user's ``EventNode`` owns it; the bus's
/// tree refers to it by slot. It outlives its ``EventNode`` only as long as a route
/// snapshot still mentions it, and holds no handlers once released.
@usableFromInline
final class NodeCore: @unchecked Sendable {
    // Safe: `name` and `handle` are read and written only with the bus's lock held;
    // everything else is immutable or atomic.
    let id: NodeID
    /// The node's index in the bus's ``Topology`` arrays, reused after release.
    let slot: Int
    /// The bus, for the rare lookups a handler context makes (weak: the bus owns the tree).
    weak let bus: EventBus?
    var name: String
    weak var handle: EventNode?
    let released = Atomic<Bool>(false)

    init(id: NodeID, slot: Int, name: String, bus: EventBus) {
        self.id = id
        self.bus = bus
        self.slot = slot
        self.name = name
    }

    var isReleased: Bool { released.load(ordering: .acquiring) }
}
