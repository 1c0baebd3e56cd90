import EventTree
@testable import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// An event with a payload of some size.
struct Note: Event { var n: Int; var text: String }

/// Collects what a journal's retention pruned.
final class Prunes: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [JournalPrune] = []
    func append(_ prune: JournalPrune) { lock.withLock { kept.append(prune) } }
    var all: [JournalPrune] { lock.withLock { kept } }
}

@Suite struct RetentionTests {
    /// A session of `raises` pings with a 200-byte payload each, whose clock starts at
    /// `wall` seconds and ends `duration` seconds later.
    static func session(
        into journal: Journal, wall: Double = 1_700_000_000, duration: Double = 60, raises: Int = 200
    ) -> SessionID {
        let elapsed = NSLock()
        nonisolated(unsafe) var nanoseconds = 0
        let clock = EventClock(
            wallSeconds: { wall },
            nanoseconds: { elapsed.withLock { nanoseconds } })
        let bus = EventBus(recorder: journal, process: "retention", clock: clock)
        let app = EventNode("app", bus: bus)
        let screen = EventNode("screen", parent: app)
        app.on(Note.self, label: "count") { _, _ in .handled }
        for n in 0..<raises { screen.raise(Note(n: n, text: String(repeating: "x", count: 200))) }
        elapsed.withLock { nanoseconds = Int(duration * 1e9) }
        bus.end()
        withExtendedLifetime([app, screen]) {}
        return bus.session
    }

    /// Records `count` sessions, an hour apart, into a new journal at `path`.
    static func sessions(_ count: Int, at path: String, raises: Int = 200) throws -> [SessionID] {
        let journal = try Journal(path: path)
        let ids = (0..<count).map { session(into: journal, wall: 1_700_000_000 + Double($0) * 3_600, raises: raises) }
        try journal.close()
        return ids
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    @Test func sixSessionsPrunedToTwoShrinkAndVerifyFromTheirAnchor() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/six.eventtree"
            let ids = try Self.sessions(6, at: path)
            let before = try JournalVerifier(journal: path).verify()
            #expect(before.isIntact)
            let sizeBefore = Self.size(path)

            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 2)
            let journal = try Journal(path: path, options: options)
            let prune = try #require(journal.openingPrune)
            try journal.close()

            #expect(prune.sessions == ids[..<4].map(\.rawValue))
            #expect(prune.reason == "sessions")
            #expect(prune.throughSeq == ids[4].rawValue - 1)
            #expect(prune.anchorSeq > ids[5].rawValue)
            #expect(prune.bytesAfter < prune.bytesBefore)
            #expect(Self.size(path) < sizeBefore * 2 / 3)
            let reader = try JournalReader(path: path)
            #expect(try reader.sessionIDs() == Array(ids[4...]))
            #expect(try lines(path, "SELECT count(*) FROM event_history WHERE session_id < \(ids[4].rawValue)") == ["0"])
            #expect(try lines(path, "SELECT through_seq, sessions, reason FROM journal_prunes")
                == ["\(prune.throughSeq)|4|sessions"])

            let after = try JournalVerifier(journal: path).verify()
            #expect(after.isIntact, "\(after.line)")
            #expect(after.pruned?.sessions == 4)
            #expect(after.pruned?.records == prune.records)
            #expect(after.line.contains("pruned before it: 4 sessions (\(prune.records) records through seq \(prune.throughSeq))"))
            // The chain goes on unchanged: the head taken before the prune is still on it, and
            // only the prune's record comes after it.
            let withHead = try JournalVerifier(journal: path).verify(expectedHead: before.head)
            #expect(withHead.verdictKind == "unproven")
            #expect(withHead.firstBadSeq == prune.anchorSeq)
        }
    }

    @Test func retentionWithoutAHashChainIsRefusedBeforeAnythingIsWritten() async {
        await withTemporaryDirectory { directory in
            let path = directory + "/unchained.eventtree"
            var options = JournalOptions()
            options.chainsRecords = false
            options.retention = JournalRetention(maximumSessions: 1)
            #expect(throws: JournalError.refused(
                path: path, reason: "retention cuts a journal at its hash chain's checkpoints: set chainsRecords, or no retention limits")) {
                try Journal(path: path, options: options)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aSecondPruneCountsFromTheJournalsStart() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/twice.eventtree"
            let ids = try Self.sessions(5, at: path)
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 3)
            let first = try #require(try Journal(path: path, options: options).openingPrune)
            options.retention = JournalRetention(maximumSessions: 1)
            let journal = try Journal(path: path, options: options)
            let second = try #require(journal.openingPrune)
            try journal.close()
            #expect(first.sessions == ids[..<2].map(\.rawValue))
            #expect(second.sessions == ids[2..<4].map(\.rawValue))
            let report = try JournalVerifier(journal: path).verify()
            #expect(report.isIntact, "\(report.line)")
            #expect(report.pruned?.sessions == 4)
            // The first prune's own record went with the second cut (it lay before it).
            #expect(report.pruned?.records == first.records + second.records)
        }
    }

    @Test func sessionsOlderThanTheAgeLimitGo() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/age.eventtree"
            let ids = try Self.sessions(6, at: path, raises: 20)
            var options = JournalOptions()
            // Sessions end an hour apart; the last ended at start + 5 h + 60 s.
            options.retention = JournalRetention(maximumSessionAge: .seconds(2 * 3_600))
            options.retention.now = { 1_700_000_000 + 5 * 3_600 + 60 }
            let journal = try Journal(path: path, options: options)
            let prune = try #require(journal.openingPrune)
            try journal.close()
            #expect(prune.reason == "age")
            #expect(prune.sessions == ids[..<3].map(\.rawValue))
            #expect(try JournalVerifier(journal: path).verify().isIntact)
        }
    }

    @Test func theWriterPrunesWhenASessionEndsAndNeverTheOneUnderWay() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/live.eventtree"
            let prunes = Prunes()
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 1)
            options.onPrune = { prunes.append($0) }
            let journal = try Journal(path: path, options: options)
            let first = Self.session(into: journal, raises: 20)
            try journal.flush()
            let second = Self.session(into: journal, raises: 20)
            try journal.flush()
            // A session under way: neither it nor any session after it is pruned until it ends.
            let open = EventBus(recorder: journal, process: "open")
            let third = Self.session(into: journal, raises: 20)
            let fourth = Self.session(into: journal, raises: 20)
            try journal.flush()
            #expect(prunes.all.map(\.sessions) == [[first.rawValue], [second.rawValue]])
            open.end()
            // Ended, it overlaps the two recorded meanwhile: the three go together, once a
            // later session starts after them.
            try journal.flush()
            #expect(prunes.all.count == 2)
            let last = Self.session(into: journal, raises: 20)
            try journal.close()
            #expect(prunes.all.map(\.sessions).last == [open.session, third, fourth].map(\.rawValue))
            #expect(try JournalReader(path: path).sessionIDs() == [last])
            let report = try JournalVerifier(journal: path).verify()
            #expect(report.isIntact, "\(report.line)")
            #expect(report.pruned?.sessions == 5)
        }
    }

    @Test func aRecordPutBackIntoThePrunedPartIsFound() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/tampered.eventtree"
            _ = try Self.sessions(3, at: path, raises: 20)
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 1)
            let prune = try #require(try Journal(path: path, options: options).openingPrune)
            let seq = prune.throughSeq - 3
            execute(path, "INSERT INTO j_call_details (seq, text) VALUES (\(seq), 'back')")
            let report = try JournalVerifier(journal: path).verify()
            #expect(report.verdict == .altered(
                seq: seq, "it lies in what the journal's prune removed (through seq \(prune.throughSeq)): it was inserted"))

            execute(path, "DELETE FROM j_call_details WHERE seq = \(seq); UPDATE j_prunes SET hash = zeroblob(32)")
            let changed = try JournalVerifier(journal: path).verify()
            #expect(changed.firstBadSeq == prune.throughSeq + 1)

            // What the prune record says is printed: hostile text and times stay inert.
            execute(path, "UPDATE j_prunes SET reason = char(27) || '[2J', pruned_at = 1e300")
            let hostile = try JournalVerifier(journal: path).verify()
            #expect(hostile.line.hasSuffix("last on an unknown date by unknown, anchored at seq \(prune.anchorSeq)"))
        }
    }

    @Test func anExtractedSessionVerifiesAloneAndPassesThroughTheSourcesCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/source.eventtree"
            let journal = try Journal(path: path)
            let first = EventBus(recorder: journal, process: "first")
            EventNode("other", bus: first).raise(Pong())
            first.end()
            let ids = [first.session] + (0..<2).map { Self.session(into: journal, wall: 1_700_000_000 + Double($0), raises: 30) }
            try journal.close()
            let sourceBytes = bytes(path)

            let copy = directory + "/one.eventtree"
            let extract = try Journal.extract(session: ids[1], from: path, to: copy)
            #expect(bytes(path) == sourceBytes)
            #expect(try JournalReader(path: copy).sessionIDs() == [ids[1]])
            #expect(try lines(copy, "SELECT DISTINCT event_type FROM event_history") == ["Note"])
            #expect(try lines(copy, "SELECT name FROM j_types") == ["Note"])
            #expect(extract.sourceHead.seq == ids[2].rawValue - 1)
            #expect(extract.prune?.sessions == [ids[0].rawValue])
            let report = try JournalVerifier(journal: copy).verify()
            #expect(report.isIntact, "\(report.line)")
            #expect(report.records == extract.records)
            // The source's chain passes through the same head: the extract is what it holds.
            #expect(try JournalVerifier(journal: path).verify(expectedHead: extract.sourceHead).verdictKind == "unproven")
            let againstSource = try JournalVerifier(journal: copy).verify(expectedHead: extract.sourceHead)
            #expect(againstSource.firstBadSeq == extract.sourceHead.seq + 1)
            #expect(try lines(copy, "SELECT count(*) FROM event_history") == ["30"])

            // The last session, and the first (nothing before it: no anchor).
            let last = directory + "/last.eventtree"
            try Journal.extract(session: ids[2], from: path, to: last)
            #expect(try JournalVerifier(journal: last).verify().isIntact)
            let firstCopy = directory + "/first.eventtree"
            let firstExtract = try Journal.extract(session: ids[0], from: path, to: firstCopy)
            #expect(firstExtract.prune == nil)
            #expect(try JournalVerifier(journal: firstCopy).verify().isIntact)
        }
    }

    @Test func extractRefusesWhatItCannotDoWithoutTouchingAnything() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/source.eventtree"
            let ids = try Self.sessions(2, at: path, raises: 5)
            let taken = directory + "/taken.eventtree"
            _ = FileManager.default.createFile(atPath: taken, contents: Data("keep".utf8))
            #expect(throws: JournalError.refused(path: path, reason: "it has no session 3; 'eventtree sessions \(path)' lists them")) {
                try Journal.extract(session: SessionID(rawValue: 3), from: path, to: directory + "/new.eventtree")
            }
            #expect(throws: JournalError.refused(path: taken, reason: "it exists already; extract writes a new journal (remove it, or choose another path)")) {
                try Journal.extract(session: ids[0], from: path, to: taken)
            }
            #expect(bytes(taken) == Data("keep".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["source.eventtree", "taken.eventtree"])
        }
    }

    @Test func aSessionExtractedFromAPrunedJournalKeepsTheAnchor() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/pruned.eventtree"
            let ids = try Self.sessions(4, at: path, raises: 10)
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSessions: 2)
            try Journal(path: path, options: options).close()
            let copy = directory + "/copy.eventtree"
            let extract = try Journal.extract(session: ids[2], from: path, to: copy)
            #expect(extract.prune?.throughSeq == ids[2].rawValue - 1)
            let report = try JournalVerifier(journal: copy).verify()
            #expect(report.isIntact, "\(report.line)")
            #expect(report.pruned?.sessions == 2)
        }
    }

    /// A day of an app's life, compressed: a session every ten simulated minutes for 24
    /// hours, each opening the journal (as an app launch does), raising throughout and
    /// closing it, under a 5 MB cap and a 6-hour age limit.
    @Test func aDayOfSessionsStaysWithinItsLimitsAndVerifiesAfterEveryPrune() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/soak.eventtree"
            let cap = 5_000_000
            let sixHours = 6.0 * 3_600
            let day = 24.0 * 3_600
            let start = 1_700_000_000.0
            let clock = SimulatedTime(start)
            let prunes = Prunes()
            var options = JournalOptions()
            options.retention = JournalRetention(maximumSize: cap, maximumSessionAge: .seconds(Int(sixHours)))
            options.retention.now = { clock.now }
            options.onPrune = { prunes.append($0) }
            var oneSession = 0
            var sessions = 0
            var verified = 0
            for _ in 0..<Int(day / 600) {
                let prunesBefore = prunes.all.count
                let sizeBefore = Self.size(path)
                let journal = try Journal(path: path, options: options)
                let sessionStart = clock.now
                let bus = EventBus(recorder: journal, process: "soak", clock: EventClock(
                    wallSeconds: { clock.now }, nanoseconds: { Int((clock.now - sessionStart) * 1e9) }))
                let app = EventNode("app", bus: bus)
                let screen = EventNode("screen", parent: app)
                app.on(Note.self, label: "count") { _, _ in .handled }
                var dropped = 0
                // 200 raises over the session's five minutes (about 600 KB).
                for n in 0..<200 {
                    let result = screen.raise(Note(n: n, text: String(repeating: "soak \(n) ", count: 400)))
                    if case .dropped = result.recording { dropped += 1 }
                    clock.advance(by: 300.0 / 200)
                }
                bus.end()
                withExtendedLifetime([app, screen]) {}
                try journal.close()
                sessions += 1
                #expect(dropped == 0)
                #expect(try lines(path, "SELECT count(*) FROM event_history WHERE session_id = \(bus.session.rawValue)") == ["200"])
                if sessions == 1 { oneSession = Self.size(path) }
                // Never over the cap by more than the session under way when it was reached.
                #expect(Self.size(path) <= cap + oneSession, "session \(sessions): \(Self.size(path)) bytes")
                if prunes.all.count > prunesBefore {
                    let report = try JournalVerifier(journal: path).verify()
                    #expect(report.isIntact, "after session \(sessions): \(report.line)")
                    verified += 1
                } else if sessions > 1 {
                    #expect(Self.size(path) >= sizeBefore, "session \(sessions) shrank the file without a prune")
                }
                clock.advance(by: 300)
            }
            #expect(sessions == 144)
            #expect(verified > 100)
            // The age limit holds too: nothing ended more than six hours before the last prune.
            let oldest = try lines(path, "SELECT min(ended_at) FROM j_sessions").first.flatMap(Double.init) ?? 0
            #expect(oldest >= clock.now - 600 - sixHours - 300)
            #expect(Set(prunes.all.map(\.reason)) == ["size"])
        }
    }

    @Test func aFullJournalMakesRoomByPruningInsteadOfFailing() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/full.eventtree"
            let ids = try Self.sessions(4, at: path)
            let prunes = Prunes()
            var options = JournalOptions()
            // Room for what the file holds now, and no more: the next session fills it.
            options.maximumSize = Self.size(path)
            options.retention = JournalRetention(maximumSessions: 100)
            options.onPrune = { prunes.append($0) }
            let failures = StatusLog()
            options.onStatusChange = { failures.append($0) }
            let journal = try Journal(path: path, options: options)
            #expect(journal.openingPrune == nil)
            let last = Self.session(into: journal)
            try journal.flush()
            #expect(journal.status == .healthy)
            try journal.close()
            let pruned = prunes.all.flatMap(\.sessions)
            #expect(!pruned.isEmpty)
            #expect(pruned == ids.prefix(pruned.count).map(\.rawValue))
            #expect(prunes.all.allSatisfy { $0.reason == "size" })
            #expect(failures.values == ["closed, 0 unrecorded"])
            #expect(try lines(path, "SELECT count(*) FROM event_history WHERE session_id = \(last.rawValue)") == ["200"])
            #expect(Self.size(path) <= options.maximumSize! + 4_096)
            #expect(try JournalVerifier(journal: path).verify().isIntact)
        }
    }
}

/// A wall clock that tests move by hand.
final class SimulatedTime: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Double
    init(_ seconds: Double) { self.seconds = seconds }
    var now: Double { lock.withLock { seconds } }
    func advance(by interval: Double) { lock.withLock { seconds += interval } }
}