import CEventTreeSQLite
import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Foundation
import Testing

/// A scripted session touching every outcome, tree change and mode:
///
///     app ─┬─ a ─┬─ a1
///          │     └─ a2
///          └─ b ─── b1
struct Script {
    var lines: [String: Int] = [:]
    var events: [String: EventID] = [:]

    init(recordingInto journal: Journal) {
        let bus = EventBus(recorder: journal)
        let owners = Owners()
        let app = EventNode("app", bus: bus)
        let a = EventNode("a", parent: app)
        let a1 = EventNode("a1", parent: a)
        owners["a2"] = EventNode("a2", parent: a)
        let b = EventNode("b", parent: app)
        let b1 = EventNode("b1", parent: b)

        lines["root"] = #line + 1
        app.on(Ping.self, label: "root") { _, _ in .handled }
        lines["a-stop"] = #line + 1
        a.on(Ping.self, phases: .bubble, label: "a-stop") { event, _ in event.n == 1 ? .consumed : .handled }
        lines["b1-throws"] = #line + 1
        b1.on(Ping.self, phases: .propagate, label: "b1-throws") { _, _ in throw Boom() }
        owners["a2"]!.on(Ping.self, phases: .propagate, label: "a2-listens") { _, _ in .handled }
        owners["a2"]!.on(Pong.self, phases: .propagate, label: "a2-pong") { _, _ in .handled }
        app.on(Ask.self, label: "answer") { _, _ in .answered(42) }
        a.on(Tagged.self, label: "to-ping") { _, _ in .transformed(Ping(n: 7)) }
        lines["release-a2"] = #line + 1
        app.on(Pong.self, phases: .target, label: "release-a2") { _, _ in
            owners.letGo("a2")
            return .handled
        }

        events["consumed"] = a1.raise(Ping(n: 1)).eventID                       // a-stop consumes at a
        events["delivered"] = a1.raise(Ping(n: 2)).eventID                      // a1? no; a handled; app root
        events["failed"] = b.raise(Ping(n: 3), mode: .descend).eventID          // b1 throws
        events["answered"] = a1.request(Ask()).raise.eventID
        events["unanswered"] = b.request(Ask(), mode: .descend).raise.eventID
        events["transformed"] = a1.raise(Tagged()).eventID                      // to Ping, then root
        events["dead"] = b1.raise(NamedEvent("nobody")).eventID
        try? b1.move(to: a)                                                     // tree change
        events["dispatch"] = a1.raise(Ping(n: 4), mode: .dispatch).eventID
        events["lost"] = app.raise(Pong(), mode: .descend).eventID              // a2 released on the way
        events["broadcast"] = b.raise(Ping(n: 5), mode: .broadcast).eventID
        _ = (a1, b1)
    }
}

@Suite struct ScriptedSessionTests {
    @Test func everyEventGetsItsVerdictAndEvidence() async throws {
        try await withTemporaryJournal { journal in
            let script = Script(recordingInto: journal)
            try journal.flush()
            let byID = Dictionary(uniqueKeysWithValues: try findings(journal.path).map { ($0.event.id, $0) })
            func finding(_ name: String) throws -> ReplayFinding { try #require(byID[script.events[name]!]) }
            let location = { (name: String) in "EventTreeReplayTests/ScriptedSessionTests.swift:\(script.lines[name]!)" }

            let consumed = try finding("consumed")
            #expect(consumed.classification == .consumed)
            #expect(consumed.stoppedBy?.description == "a-stop (\(location("a-stop"))) at app/a in bubble")
            #expect(consumed.neverSaw == ["app"])
            #expect(consumed.missedHandlers.map(\.label) == ["root"])
            #expect(consumed.summary == "consumed by a-stop (\(location("a-stop"))) at app/a in bubble; never reached app")

            let delivered = try finding("delivered")
            #expect(delivered.classification == .delivered)
            #expect(delivered.summary == "delivered: 2 handler calls")

            let failed = try finding("failed")
            #expect(failed.classification == .failed)
            #expect(failed.summary == "failed: b1-throws (\(location("b1-throws"))) at app/b/b1 in propagate threw: boom")

            let answered = try finding("answered")
            #expect(answered.classification == .delivered)
            #expect(answered.summary.hasPrefix("answered by answer ("))

            let unanswered = try finding("unanswered")
            #expect(unanswered.classification == .unhandled)
            #expect(unanswered.summary == "unanswered: no handler answered the request")

            let transformed = try finding("transformed")
            #expect(transformed.classification == .delivered)
            #expect(transformed.transforms.count == 1)
            #expect(transformed.calls == 2)

            let dead = try finding("dead")
            #expect(dead.classification == .unhandled)
            #expect(dead.summary == "unhandled: no handler acted (dead letter)")

            let dispatch = try finding("dispatch")
            #expect(dispatch.classification == .delivered)

            let lost = try finding("lost")
            #expect(lost.classification == .lost)
            #expect(lost.lostSteps.map { "\($0.nodePath) \($0.phase) \($0.lostCalls)" } == ["app/a/a2 propagate 1"])
            // Who released a2 is named: the handler, where it was registered, the event it handled.
            let releaseSeq = try #require(lost.lostSteps.first?.releasedBy?.dropFirst(4).prefix { $0 != " " })
            #expect(lost.summary == "lost: released during delivery before it reached app/a/a2 (propagate, 1 call; released at seq \(releaseSeq) by release-a2 (\(location("release-a2"))) handling event \(script.events["lost"]!.rawValue))")

            let broadcast = try finding("broadcast")
            #expect(broadcast.classification == .failed)   // b1 (now under a) still throws in propagate
            #expect(byID.values.filter { $0.classification == .diverged }.isEmpty)
        }
    }

    @Test func aTamperedJournalDivergesAtTheFirstDifferingStep() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/tampered.eventtree"
            let journal = try Journal(path: path)
            let script = Script(recordingInto: journal)
            try journal.close()
            let delivered = script.events["delivered"]!.rawValue
            // Remove the root handler's call from the "delivered" event.
            let lastCall = try #require(try JournalReader(path: path).rows(
                "SELECT max(seq) FROM j_calls WHERE seq - (code >> 6) = \(delivered)").first?.first?.int)
            try JournalTampering.removeCall(at: lastCall, in: path)
            let finding = try #require(try findings(path).first { $0.event.id.rawValue == delivered })
            #expect(finding.classification == .diverged)
            #expect(finding.summary == "diverged at step 3: expected root (EventTreeReplayTests/ScriptedSessionTests.swift:\(script.lines["root"]!)) called, recorded no call")
        }
    }

    @Test func untilAndSessionLimitWhatIsReplayed() async throws {
        try await withTemporaryJournal { journal in
            let script = Script(recordingInto: journal)
            _ = Script(recordingInto: journal)
            try journal.flush()
            let replayer = try Replayer(journal: journal.path)
            let sessions = try replayer.sessions()
            #expect(sessions.count == 2)
            var firstSession: [EventID] = []
            try replayer.replay(session: sessions[0].id) { firstSession.append($0.event.id) }
            #expect(firstSession.count == 12)   // 11 raises and 2 errors, one transform chain counted once
            var early: [EventID] = []
            try replayer.replay(session: sessions[0].id, until: script.events["answered"]!.rawValue) { early.append($0.event.id) }
            #expect(early == ["consumed", "delivered", "failed"].map { script.events[$0]! } + early.suffix(early.count - 3))
            #expect(early.last == script.events["answered"]!)
            #expect(throws: ReplayError.unknownSession(SessionID(rawValue: 999_999))) {
                try replayer.replay(session: SessionID(rawValue: 999_999)) { _ in }
            }
        }
    }

    @Test func topologyShowsTheTreeBeforeAndAfterAChange() async throws {
        try await withTemporaryJournal { journal in
            let script = Script(recordingInto: journal)
            try journal.flush()
            let replayer = try Replayer(journal: journal.path)
            func shape(at seq: Int) throws -> [String] {
                try replayer.topology(at: seq).nodes.map { String(repeating: "  ", count: $0.depth) + $0.name + " \($0.handlers.count)" }
            }
            let before = try shape(at: script.events["dead"]!.rawValue)
            let after = try shape(at: script.events["dispatch"]!.rawValue)
            #expect(before == [
                "app 3", "  a 2", "    a1 0", "    a2 2", "  b 0", "    b1 1",
            ])
            #expect(after == [
                "app 3", "  a 2", "    a1 0", "    a2 2", "    b1 1", "  b 0",
            ])
        }
    }
}
