/// Where a handler acted: which handler (label and registration site), on which node,
/// in which phase.
///
/// A site is two words: the handler's ``registration`` (shared, never copied) and the
/// ``phase``, so a result that names a handler costs a retain, not a copy of its strings.
public struct HandlerSite: Sendable, Hashable, CustomStringConvertible {
    /// The handler's registration: its id, label, node, event type, channel, phases and
    /// source location.
    public let registration: HandlerRegistration
    /// The phase of the step.
    public let phase: Phase

    /// Creates the site of `registration`'s handler acting in a step of `phase`.
    public init(registration: HandlerRegistration, phase: Phase) {
        self.registration = registration
        self.phase = phase
    }

    /// The handler's id.
    public var handler: HandlerID { registration.id }
    /// The label given at registration.
    public var label: String { registration.label }
    /// The `#fileID` of the registration.
    public var fileID: String { registration.fileID }
    /// The `#line` of the registration.
    public var line: Int { registration.line }
    /// The node the handler is registered on.
    public var node: NodeID { registration.node }

    /// `file:line`.
    public var location: String { registration.location }

    /// `label (file:line) at node #N in phase`.
    public var description: String { "\(label) (\(location)) at node \(node) in \(phase)" }

    /// Sites are equal when they name the same handler (id, label, location and node) in
    /// the same phase, whether or not they share a registration object.
    public static func == (lhs: HandlerSite, rhs: HandlerSite) -> Bool {
        guard lhs.phase == rhs.phase else { return false }
        if lhs.registration === rhs.registration { return true }
        return lhs.handler == rhs.handler && lhs.node == rhs.node && lhs.line == rhs.line
            && lhs.label == rhs.label && lhs.fileID == rhs.fileID
    }

    /// Hashes the values `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(handler)
        hasher.combine(node)
        hasher.combine(line)
        hasher.combine(label)
        hasher.combine(fileID)
        hasher.combine(phase)
    }
}
