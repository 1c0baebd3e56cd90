/// Where a handler acted: which handler (label and registration site), on which node,
/// in which phase.
public struct HandlerSite: Sendable, Hashable, CustomStringConvertible {
    /// The handler's id.
    public var handler: HandlerID
    /// The label given at registration.
    public var label: String
    /// The `#fileID` of the registration.
    public var fileID: String
    /// The `#line` of the registration.
    public var line: Int
    /// The node the handler is registered on.
    public var node: NodeID
    /// The phase of the step.
    public var phase: Phase

    /// Creates a site.
    public init(handler: HandlerID, label: String, fileID: String, line: Int, node: NodeID, phase: Phase) {
        self.handler = handler
        self.label = label
        self.fileID = fileID
        self.line = line
        self.node = node
        self.phase = phase
    }

    /// `file:line`.
    public var location: String { "\(fileID):\(line)" }

    /// `label (file:line) at node #N in phase`.
    public var description: String { "\(label) (\(location)) at node \(node) in \(phase)" }
}
