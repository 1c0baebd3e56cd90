import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// Live delivery and replay must agree on every event: generated sessions (random trees,
/// handlers with every outcome, every mode, tree and handler changes between and during
/// raises) are recorded, replayed, and must show no divergence.
@Suite struct GeneratedSessionTests {
    static let outcomes: [Outcome] = [.ignored, .handled, .handled, .handled, .consumed, .consumedImmediately, .transformed(Pong())]

    @Test(arguments: 1...12)
    func replayAgreesWithLiveDeliveryOnAGeneratedSession(seed: Int) async throws {
        try await withTemporaryJournal { journal in
            var random = SeededGenerator(state: UInt64(seed))
            let bus = EventBus(recorder: journal)
            let owners = Owners()
            var names = ["n0"]
            owners["n0"] = EventNode("n0", bus: bus)
            var expectedResults: [EventID: RaiseStatus.Kind] = [:]
            var tokens: [HandlerToken] = []
            for round in 0..<160 {
                switch Int.random(in: 0..<15, using: &random) {
                case 0...2 where names.count < 14:
                    let parent = owners[names.randomElement(using: &random)!]!
                    let name = "n\(round + 1)"
                    owners[name] = EventNode(name, parent: parent)
                    names.append(name)
                case 3...5:
                    let node = owners[names.randomElement(using: &random)!]!
                    let outcome = Self.outcomes.randomElement(using: &random)!
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
            try journal.flush()
            let all = try findings(journal.path)
            let diverged = all.filter { $0.classification == .diverged }
            #expect(diverged.isEmpty, "seed \(seed): \(diverged.map { "\($0.event.id.rawValue): \($0.summary)" })")
            for finding in all where expectedResults[finding.event.id] != nil {
                #expect(finding.event.status == expectedResults[finding.event.id], "seed \(seed) event \(finding.event.id)")
            }
            #expect(all.count >= expectedResults.count)
            let verification = try JournalVerifier(journal: journal.path).verify()
            #expect(verification.isIntact, "seed \(seed): \(verification.line)")
        }
    }
}
