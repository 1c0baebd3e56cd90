import EventTree

/// The small integers the journal's tables store for the engine's enumerations, one
/// place for both directions (the views spell the same codes out in SQL).
package enum JournalCodes {
    package static func code(_ phase: Phase) -> Int { phase.rawValue }

    package static func code(_ outcome: Outcome.Kind) -> Int { Outcome.Kind.allCases.firstIndex(of: outcome)! }
    package static func outcome(_ code: Int) -> Outcome.Kind? {
        Outcome.Kind.allCases.indices.contains(code) ? Outcome.Kind.allCases[code] : nil
    }

    package static let modes: [DeliveryMode] = [.bubble, .broadcast, .dispatch, .descend(.everyLevel), .descend(.firstHandler), .descend(.deepestLevel)]
    package static func code(_ mode: DeliveryMode) -> Int { modes.firstIndex(of: mode)! }
    package static func mode(_ code: Int) -> DeliveryMode? { modes.indices.contains(code) ? modes[code] : nil }

    /// The `event_history.result` names, by code.
    package static let results = ["delivered", "consumed", "answered", "unanswered", "unhandled", "failed"]
    package static func code(_ status: RaiseStatus) -> Int { results.firstIndex(of: status.name)! }

    package static let kinds = ["event", "request", "error"]
    package static func code(kind: String) -> Int { kinds.firstIndex(of: kind) ?? 0 }

    /// Tree changes: 0 created, 1 attached, 2 detached, 3 moved, 4 renamed, 5 released.
    package static let changes = ["created", "attached", "detached", "moved", "renamed", "released"]

    package static func code(_ channel: HandlerRegistration.Channel) -> Int { channel == .events ? 0 : 1 }

    /// A `j_calls.code`: how far back the call's event was raised, the phase and the outcome.
    package static func callCode(eventBack: Int, phase: Phase, outcome: Outcome.Kind) -> Int {
        eventBack << 5 | code(phase) << 3 | code(outcome)
    }

    /// The parts of a `j_calls.code`.
    package static func decodeCall(_ code: Int) -> (eventBack: Int, phase: Phase, outcome: Outcome.Kind) {
        (code >> 5, Phase(rawValue: (code >> 3) & 3) ?? .target, outcome(code & 7) ?? .failed)
    }

    /// The columns of an event record, for `SELECT \(eventColumns) \(eventSource) WHERE …`
    /// (the details table joined; `e.` and `x.` name the two tables).
    package static let eventColumns = """
        e.event_id, e.session_id, e.type_id, e.kind, e.origin_id, e.mode, x.cause_id, x.transformed_from, e.payload,
        e.event_id + e.finished_back, e.result, x.stop_handler_no, x.stop_node_id, x.stop_phase, x.message,
        coalesce(x.lost_calls, 0), coalesce(x.on_failure, 0)
        """
    package static let eventSource = "FROM j_events e LEFT JOIN j_event_details x ON x.event_id = e.event_id"
}
