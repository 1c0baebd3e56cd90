import EventTree

/// The small integers the journal's tables store for the engine's enumerations, one
/// place for both directions (the views spell the same codes out in SQL).
package enum JournalCodes {
    package static func code(_ phase: Phase) -> Int { phase.rawValue }
    package static func phase(_ code: Int) -> Phase? { Phase(rawValue: code) }

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
}
