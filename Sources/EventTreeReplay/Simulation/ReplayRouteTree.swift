import EventTree
import EventTreeJournal

/// A rebuilt tree as the router sees it for one event: the shape, and which nodes had a
/// handler for the event's type in the propagate phase when it was raised.
struct ReplayRouteTree: RouteTree {
    let tree: JournalTree
    let history: JournalHistory
    let event: RecordedEvent

    func parent(of node: NodeID) -> NodeID? { tree.nodes[node]?.parent }

    func children(of node: NodeID) -> [NodeID] { tree.nodes[node]?.children ?? [] }

    func hasPropagateHandler(at node: NodeID) -> Bool {
        history.handlers(on: node).contains { handler in
            handler.isRegistered(at: event.id.rawValue) && handler.phases.contains(.propagate)
                && history.matches(handler, type: event.typeID, channel: event.channel)
        }
    }
}
