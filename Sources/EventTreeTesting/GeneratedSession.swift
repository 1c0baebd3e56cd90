import EventTree
import Foundation

/// A random but repeatable session, for tests of what reads journals back: random trees,
/// handlers with every outcome and every phase, every mode, errors and their handlers,
/// tree and handler changes between and during raises, nodes released while an event is
/// on its way.
package enum GeneratedSession {
    /// An event of the generated sessions.
    package struct Ping: Event {
        package var n = 0
        package init(n: Int = 0) { self.n = n }
    }
    /// Another event type (handlers for it transform, throw and release nodes).
    package struct Pong: Event {
        package init() {}
    }
    /// The error its throwing handlers throw.
    package struct Boom: Error, CustomStringConvertible {
        package init() {}
        package var description: String { "boom" }
    }

    static let outcomes: [Outcome] = [.ignored, .handled, .handled, .handled, .consumed, .consumedImmediately, .transformed(Pong())]

    /// Runs `rounds` random steps of the session `seed` on `bus`.
    ///
    /// - Returns: The status kind of every raise, by event id.
    @discardableResult
    package static func run(seed: Int, rounds: Int = 160, on bus: EventBus) -> [EventID: RaiseStatus.Kind] {
        var random = SeededGenerator(state: UInt64(seed))
        let owners = Owners()
        var names = ["n0"]
        owners["n0"] = EventNode("n0", bus: bus)
        var expectedResults: [EventID: RaiseStatus.Kind] = [:]
        var tokens: [HandlerToken] = []
        for round in 0..<rounds {
            switch Int.random(in: 0..<15, using: &random) {
            case 0...2 where names.count < 14:
                let parent = owners[names.randomElement(using: &random)!]!
                let name = "n\(round + 1)"
                owners[name] = EventNode(name, parent: parent)
                names.append(name)
            case 3...5:
                let node = owners[names.randomElement(using: &random)!]!
                let outcome = outcomes.randomElement(using: &random)!
                let phases = Phases(rawValue: Int.random(in: 1...15, using: &random))
                if Bool.random(using: &random) {
                    tokens.append(node.on(Ping.self, phases: phases, label: "h\(round)") { _, _ in outcome })
                } else {
                    tokens.append(node.on((any Event).self, phases: phases, label: "any\(round)") { _, _ in .handled })
                }
                if Int.random(in: 0..<6, using: &random) == 0 {
                    node.on(Pong.self, phases: .all, label: "throw\(round)") { _, _ in throw Boom() }
                    node.onError(label: "catch\(round)") { _, _ in .handled }
                }
            case 6 where !tokens.isEmpty:
                tokens.remove(at: Int.random(in: 0..<tokens.count, using: &random)).remove()
            case 7 where names.count > 2:
                let name = names.dropFirst().randomElement(using: &random)!
                if Bool.random(using: &random) {
                    owners[name]?.detach()
                } else if let target = owners[names.randomElement(using: &random)!] {
                    try? owners[name]?.move(to: target, at: Int.random(in: 0...2, using: &random))
                }
            case 8 where names.count > 3:
                // A handler that releases a node while the event is on its way.
                let victim = names.dropFirst().randomElement(using: &random)!
                let node = owners[names.randomElement(using: &random)!]!
                tokens.append(node.on(Pong.self, phases: .all, label: "release-\(victim)") { _, _ in
                    owners.letGo(victim)
                    return .handled
                })
            case 10:
                // Handlers that register and remove handlers while an event is delivered.
                let node = owners[names.randomElement(using: &random)!]!
                let victim = node.on(Ping.self, phases: .all, label: "victim\(round)") { _, _ in .handled }
                node.on(Ping.self, phases: .all, label: "changer\(round)") { _, context in
                    victim.remove()
                    context.node?.parent?.on(Ping.self, label: "late\(round)") { _, _ in .handled }
                    return .handled
                }
            case 9:
                owners[names.randomElement(using: &random)!]?.rename(to: "r\(round)")
            default:
                let node = owners[names.randomElement(using: &random)!] ?? owners["n0"]!
                let mode = [DeliveryMode.bubble, .broadcast, .dispatch, .descend(.everyLevel), .descend(.firstHandler), .descend(.deepestLevel)]
                    .randomElement(using: &random)!
                let result = Bool.random(using: &random) ? node.raise(Ping(n: round), mode: mode) : node.raise(Pong(), mode: mode)
                expectedResults[result.eventID] = result.status.kind
            }
            names.removeAll { owners[$0] == nil }
            if names.isEmpty {
                owners["n0"] = EventNode("n0", bus: bus)
                names = ["n0"]
            }
        }
        return expectedResults
    }
}

/// Holds nodes the way app objects would, so that a handler can let one go.
package final class Owners: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [String: EventNode] = [:]

    package init() {}

    package subscript(name: String) -> EventNode? {
        get { lock.withLock { held[name] } }
        set { lock.withLock { held[name] = newValue } }
    }

    /// Releases the node called `name`.
    package func letGo(_ name: String) {
        let node = lock.withLock { held.removeValue(forKey: name) }
        _ = node
    }
}

/// A deterministic random generator (SplitMix64), so that generated sessions repeat.
package struct SeededGenerator: RandomNumberGenerator {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
