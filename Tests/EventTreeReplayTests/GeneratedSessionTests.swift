import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// Live delivery and replay must agree on every event: generated sessions (random trees,
/// handlers with every outcome, every mode, tree and handler changes between and during
/// raises) are recorded, replayed, and must show no divergence.
@Suite struct GeneratedSessionTests {
    @Test(arguments: 1...12)
    func replayAgreesWithLiveDeliveryOnAGeneratedSession(seed: Int) async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let expectedResults = GeneratedSession.run(seed: seed, on: bus)
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
