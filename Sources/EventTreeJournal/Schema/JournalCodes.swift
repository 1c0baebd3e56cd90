import EventTree

/// The small integers the journal's tables store for the engine's enumerations: the one
/// place that maps them, both ways. The SQL views spell the same codes out in words (a test
/// keeps the two in agreement); everything else reads typed values from ``JournalReader``.
package enum JournalCodes {
    // MARK: Phases, outcomes, modes, channels

    package static func code(_ phase: Phase) -> Int { phase.rawValue }
    package static func phase(_ code: Int) -> Phase? { Phase(rawValue: code) }

    package static func code(_ outcome: Outcome.Kind) -> Int {
        switch outcome {
        case .ignored: 0
        case .handled: 1
        case .consumed: 2
        case .consumedImmediately: 3
        case .transformed: 4
        case .answered: 5
        case .failed: 6
        case .transformedError: 7
        case .enqueued: 8
        }
    }

    package static func outcome(_ code: Int) -> Outcome.Kind? {
        Outcome.Kind.allCases.first { self.code($0) == code }
    }

    package static let modes: [DeliveryMode] = [
        .bubble, .broadcast, .dispatch, .descend(.everyLevel), .descend(.firstHandler), .descend(.deepestLevel),
    ]
    package static func code(_ mode: DeliveryMode) -> Int { modes.firstIndex(of: mode) ?? 0 }
    package static func mode(_ code: Int) -> DeliveryMode? { modes.indices.contains(code) ? modes[code] : nil }

    package static func code(_ channel: HandlerRegistration.Channel) -> Int { channel == .events ? 0 : 1 }
    package static func channel(_ code: Int) -> HandlerRegistration.Channel? {
        switch code {
        case 0: .events
        case 1: .errors
        default: nil
        }
    }

    /// The word the views use for a channel.
    package static func word(_ channel: HandlerRegistration.Channel) -> String { channel == .events ? "events" : "errors" }

    // MARK: Handler calls

    /// A `j_calls.code`: how far back the call's event was raised, the phase and the outcome.
    package static func callCode(eventBack: Int, phase: Phase, outcome: Outcome.Kind) -> Int {
        eventBack << 6 | code(phase) << 4 | code(outcome)
    }

    /// The parts of a `j_calls.code`, or `nil` when they make no sense.
    package static func decodeCall(_ code: Int) -> (eventBack: Int, phase: Phase, outcome: Outcome.Kind)? {
        guard code >= 0, let phase = phase((code >> 4) & 3), let outcome = outcome(code & 15) else { return nil }
        return (code >> 6, phase, outcome)
    }
}
