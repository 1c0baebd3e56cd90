import EventTree

/// What the writer remembers between facts. A value, so that a failed transaction can
/// restore it and retry the same records.
struct WriterModel {
    struct Node {
        var name: String
        var parent: NodeID?
        var children: [NodeID] = []
    }

    /// Live nodes (released ones are forgotten: their paths are frozen in the journal).
    var nodes: [NodeID: Node] = [:]
    var handlerNumbers: [HandlerID: Int] = [:]
    var nextHandlerNumber: Int
    var typeIDs: [String: Int] = [:]
    var nextTypeID: Int
    var openEvents: [EventID: EventRow] = [:]

    /// Loads what an existing journal already numbered.
    init(loadingFrom db: borrowing Connection) throws(SQLiteError) {
        nextHandlerNumber = (try db.integer("SELECT max(handler_no) FROM j_handlers") ?? 0) + 1
        nextTypeID = (try db.integer("SELECT max(type_id) FROM j_types") ?? 0) + 1
        let types = try db.prepare("SELECT type_id, name FROM j_types")
        while try types.step() {
            if let name = types.text(1) { typeIDs[name] = types.int(0) }
        }
    }

    mutating func link(_ node: NodeID, under parent: NodeID, at index: Int) {
        nodes[node]?.parent = parent
        guard nodes[parent] != nil else { return }
        let position = min(max(index, 0), nodes[parent]!.children.count)
        nodes[parent]!.children.insert(node, at: position)
    }

    mutating func unlink(_ node: NodeID) {
        guard let parent = nodes[node]?.parent else { return }
        nodes[parent]?.children.removeAll { $0 == node }
        nodes[node]?.parent = nil
    }

    func path(of node: NodeID) -> String {
        var names: [String] = []
        var current: NodeID? = node
        while let id = current, let entry = nodes[id] {
            names.append(entry.name)
            current = entry.parent
        }
        return names.reversed().joined(separator: "/")
    }
}
