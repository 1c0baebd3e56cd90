/// One place in the tree: a name, at most one parent, ordered children, and handlers.
///
/// An app object owns its node; the tree does not keep it alive. When the owner lets go
/// of its node (or calls ``release()``), the node leaves the tree, its handlers are freed,
/// and each of its children becomes the root of a detached subtree. All of it is journaled.
///
/// ```swift
/// let app = EventNode("app", bus: bus)
/// let settings = EventNode("settings", parent: app)
/// settings.path // "app/settings"
/// ```
public final class EventNode: Sendable, CustomStringConvertible {
    /// The bus this node's tree lives on.
    public let bus: EventBus
    @usableFromInline let core: NodeCore

    /// Creates a root node on `bus`.
    ///
    /// - Parameters:
    ///   - name: A short label such as `settings`; it appears in paths.
    ///   - bus: The bus of the tree.
    public init(_ name: String, bus: EventBus) {
        self.bus = bus
        core = bus.makeCore(named: name)
        bus.setHandle(self, of: core)
    }

    /// Creates a node as the last child of `parent`, on its bus.
    ///
    /// - Parameters:
    ///   - name: A short label such as `settings`; it appears in paths.
    ///   - parent: The parent. If it has been released, the new node stays a root.
    public convenience init(_ name: String, parent: EventNode) {
        self.init(name, bus: parent.bus)
        try? bus.attach(core, under: parent.core, at: nil)
    }

    deinit {
        bus.release(core)
    }

    /// The node's id, as the journal knows it.
    public var id: NodeID { core.id }

    /// The node's name.
    public var name: String { bus.name(of: core) }

    /// The names from the root to this node, joined by `/`.
    public var path: String { bus.path(of: core) }

    /// The parent, or `nil` for a root (or when the parent's owner let it go).
    public var parent: EventNode? { bus.parent(of: core) }

    /// The children whose owners still hold them, in attach order.
    public var children: [EventNode] { bus.children(of: core) }

    /// Whether the node has been released.
    public var isReleased: Bool { core.isReleased }

    /// Attaches `child` as a child of this node, moving it if it already has a parent.
    ///
    /// - Parameters:
    ///   - child: The node to attach.
    ///   - index: Its position among the children; the end when `nil`.
    /// - Throws: ``TreeError`` when `child` is this node or one of its ancestors, lives on
    ///   another bus, or either node has been released. The tree is then unchanged.
    public func attach(_ child: EventNode, at index: Int? = nil) throws(TreeError) {
        guard child.bus === bus else { throw .differentBus(node: child.id, parent: id) }
        try bus.attach(child.core, under: core, at: index)
    }

    /// Moves this node under `parent`. The same as `parent.attach(self, at: index)`.
    ///
    /// - Throws: ``TreeError``, as ``attach(_:at:)``.
    public func move(to parent: EventNode, at index: Int? = nil) throws(TreeError) {
        try parent.attach(self, at: index)
    }

    /// Detaches this node from its parent: it becomes the root of a detached subtree,
    /// still on its bus. Does nothing for a root.
    public func detach() {
        bus.detach(core)
    }

    /// Renames the node.
    public func rename(to name: String) {
        bus.rename(core, to: name)
    }

    /// Releases the node now, as if its owner had let it go: its handlers are removed,
    /// its children become roots of detached subtrees. Releasing twice does nothing.
    public func release() {
        bus.release(core)
    }

    /// `path (#id)`.
    public var description: String { "\(path) (\(id))" }
}
