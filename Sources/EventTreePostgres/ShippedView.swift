#if PostgreSQL
/// A journal view as the fleet database holds it: a table of the same name whose columns
/// are `journal_id` and then the view's, in the view's order.
struct ShippedView: Sendable {
    /// The view's (and the table's) name.
    let name: String
    /// The view's columns, in order.
    let columns: [String]

    static let deliveryHistory = ShippedView(name: "delivery_history", columns: [
        "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label",
        "handler_location", "outcome", "error", "duration_ns", "answer", "at",
    ])
    static let eventHistory = ShippedView(name: "event_history", columns: [
        "event_id", "seq", "session_id", "event_type", "mode", "origin_path", "cause_event_id",
        "transformed_from_event_id", "payload", "result", "kind", "raised_at", "thread",
    ])
    static let treeChanges = ShippedView(name: "tree_changes", columns: [
        "seq", "session_id", "change", "node_path", "parent_path", "node_id", "name",
    ])
    static let handlerRegistrations = ShippedView(name: "handler_registrations", columns: [
        "handler_id", "session_id", "node_path", "event_type", "phases", "label", "location",
        "added_seq", "removed_seq", "channel", "node_id",
    ])
    static let sessions = ShippedView(name: "sessions", columns: [
        "session_id", "started_at", "ended_at", "process", "events", "steps", "dropped", "host", "app_version",
    ])
    static let journalTrouble = ShippedView(name: "journal_trouble", columns: [
        "seq", "session_id", "at", "kind", "message", "records",
    ])

    /// Views whose rows never change once their seq is settled: shipped by seq, once.
    static let appendOnly = [deliveryHistory, treeChanges, journalTrouble]
    /// Views whose rows change after they are written (a session ends, a handler is
    /// removed): all of a journal's rows are replaced on every ship (they are few).
    static let refreshed = [sessions, handlerRegistrations]
    /// Every shipped view.
    static let all = appendOnly + [eventHistory] + refreshed

    /// `SELECT` of the view's columns from `source` (the view, or a query with its columns).
    func select(from source: String) -> String { "SELECT \(columns.joined(separator: ", ")) FROM \(source)" }
}
#endif
