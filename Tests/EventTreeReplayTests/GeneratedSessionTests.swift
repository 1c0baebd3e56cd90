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

/// `Replayer.explain(journal:…)` reads only the registrations one event's delivery can meet;
/// its answer must be the one a replayer that read them all gives, for every event.
@Suite struct ScopedExplainTests {
    @Test(arguments: 1...4)
    func explainingFromTheEventsOwnRegistrationsAnswersAsReadingThemAll(seed: Int) async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            _ = GeneratedSession.run(seed: seed, on: bus)
            try journal.flush()
            let full = try Replayer(journal: journal.path)
            let reader = try JournalReader(path: journal.path)
            let events = try reader.rows("SELECT event_id FROM j_events ORDER BY event_id").compactMap { $0.first?.int }
            let paths = try reader.rows("SELECT DISTINCT node_path FROM tree_changes ORDER BY 1").compactMap { $0.first?.string }
            let handler = try #require(try reader.rows("SELECT min(handler_id) FROM j_handlers").first?.first?.int)
            #expect(events.count > 20)
            for (index, event) in events.enumerated() {
                let id = EventID(rawValue: event)
                let node = paths.isEmpty ? nil : paths[index % paths.count]
                let without = index % 3 == 0 ? HandlerID(rawValue: handler) : nil
                let expected = try full.explain(event: id, node: node, withoutHandler: without)
                let scoped = try Replayer.explain(journal: journal.path, event: id, node: node, withoutHandler: without)
                #expect(String(describing: scoped) == String(describing: expected), "seed \(seed) event \(event)")
            }
        }
    }
}
