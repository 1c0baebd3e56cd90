import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

@Suite struct JournalRecordingTests {
    /// A session touching every kind of fact. Returns the nodes, so that the caller decides
    /// when they are released (and journaled as such).
    static func script(_ journal: Journal) throws -> [EventNode] {
        let bus = EventBus(recorder: journal, appVersion: "1.2.3", process: "script")
        let app = EventNode("app", bus: bus)
        let a = EventNode("a", parent: app)
        let b = Owner(EventNode("b", parent: app))
        app.on(Ping.self, label: "root") { _, _ in .handled }
        a.on(Ping.self, label: "stopper") { _, _ in .consumed }
        a.on(Pong.self, label: "to-ping") { _, _ in .transformed(Ping(n: 2)) }
        app.on(UserName.self, label: "answer") { _, _ in .answered("ada") }
        b.node!.on(Ping.self, phases: .propagate, label: "b-listener") { _, _ in throw Boom() }
        app.onError(label: "catch") { _, _ in .handled }
        a.raise(Ping())                              // consumed at a
        _ = a.request(UserName())                    // answered at app
        app.raise(Pong(), mode: .descend)            // a transforms Pong into Ping; a consumes it
        app.raise(Ping(n: 3), mode: .descend)        // a consumes; b throws; app catches the error
        a.rename(to: "alpha")
        app.on(Pong.self, phases: .target, label: "release-b") { _, _ in
            b.letGo()
            return .handled
        }
        app.raise(Pong(), mode: .descend)            // b is released during delivery: its step is lost
        app.raise(NamedEvent("nobody"))              // a dead letter
        try journal.flush()
        return [app, a]
    }

    @Test func everyFactReachesItsViewWithThePathsOfTheMoment() async throws {
        try await withTemporaryJournal { journal in
            let nodes = try Self.script(journal)
            defer { withExtendedLifetime(nodes) {} }
            let calls = try lines(journal.path, """
                SELECT seq, event_id, event_type, node_path, phase, handler_label, outcome, error, answer
                FROM delivery_history ORDER BY seq
                """)
            #expect(calls == [
                "17|16|Ping|app/a|target|stopper|consumed||",
                "21|20|UserName|app|bubble|answer|answered||ada",
                "25|24|Pong|app/a|propagate|to-ping|transformed||",
                "27|26|Ping|app/b|propagate|b-listener|failed|boom|",
                "29|28|Boom|app|bubble|catch|handled||",
                "34|33|Ping|app|target|root|handled||",
                "35|33|Ping|app/a|propagate|stopper|consumed||",
                "43|40|Pong|app|target|release-b|handled||",
                "44|40|Pong|app/alpha|propagate|to-ping|transformed||",
                // Lost at the path b had when the event was raised, with the handler it lost
                // and who released b.
                "46|45|Ping|app/b|propagate|b-listener|undelivered|node released at seq 42 by release-b (EventTreeJournalTests/JournalRecordingTests.swift:26) handling event 40|",
            ])
            let events = try lines(journal.path, """
                SELECT event_id, event_type, kind, mode, origin_path, cause_event_id, transformed_from_event_id,
                    payload, result
                FROM event_history ORDER BY event_id
                """)
            #expect(events == [
                "16|Ping|event|bubble|app/a|||{\"n\":1}|consumed",
                "20|UserName|request|bubble|app/a|||{}|answered",
                "24|Pong|event|descend|app|||{}|failed",
                "26|Ping|event|descend|app||24|{\"n\":2}|failed",
                "28|Boom|error|bubble|app/b|26||\"boom\"|delivered",
                "33|Ping|event|descend|app|||{\"n\":3}|consumed",
                "40|Pong|event|descend|app|||{}|lost",
                "45|Ping|event|descend|app||40|{\"n\":2}|lost",
                "49|NamedEvent|event|bubble|app|||{\"name\":\"nobody\",\"parameters\":{}}|unhandled",
            ])
            let changes = try lines(journal.path, "SELECT seq, change, node_path, parent_path, name FROM tree_changes ORDER BY seq")
            #expect(changes == [
                "2|created|app||app",
                "3|created|a||a",
                "4|attached|app/a|app|",
                "5|created|b||b",
                "6|attached|app/b|app|",
                "37|renamed|app/alpha||alpha",
                "42|released|app/b||",
            ])
            let handlers = try lines(journal.path, """
                SELECT handler_id, node_path, event_type, phases, label, added_seq, removed_seq, channel
                FROM handler_registrations ORDER BY handler_id
                """)
            #expect(handlers == [
                "7|app|Ping|target,bubble,propagate|root|7||events",
                "8|app/a|Ping|target,bubble,propagate|stopper|8||events",
                "9|app/a|Pong|target,bubble,propagate|to-ping|9||events",
                "10|app|UserName|target,bubble,propagate|answer|10||events",
                "11|app/b|Ping|propagate|b-listener|11|41|events",
                "12|app||target,bubble,propagate|catch|12||errors",
                "38|app|Pong|target|release-b|38||events",
            ])
            let sessions = try lines(journal.path, "SELECT session_id, process, events, steps, dropped, app_version FROM sessions")
            #expect(sessions == ["1|script|9|10|0|1.2.3"])
        }
    }

    /// Paths are derived from the tree changes, not stored per node: a node's rows show the
    /// path it had at their seq after any ancestor was renamed, moved or detached, and the
    /// reader finds a node by a path it only had through an ancestor.
    @Test func pathsBelowAChangedNodeFollowItsAncestors() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, process: "paths")
            let app = EventNode("app", bus: bus)
            let a = EventNode("a", parent: app)
            let b = EventNode("b", parent: a)
            let leaf = EventNode("leaf", parent: b)
            leaf.on(Ping.self, label: "leaf") { _, _ in .handled }
            leaf.raise(Ping(n: 1))
            a.rename(to: "x")
            leaf.raise(Ping(n: 2))
            try b.move(to: app)
            leaf.raise(Ping(n: 3))
            b.detach()
            leaf.raise(Ping(n: 4))
            try journal.flush()
            #expect(try lines(journal.path, "SELECT node_path FROM call_history ORDER BY seq") == [
                "app/a/b/leaf", "app/x/b/leaf", "app/b/leaf", "b/leaf",
            ])
            #expect(try lines(journal.path, "SELECT origin_path FROM event_history ORDER BY seq") == [
                "app/a/b/leaf", "app/x/b/leaf", "app/b/leaf", "b/leaf",
            ])
            #expect(try lines(journal.path, "SELECT change, node_path, parent_path FROM tree_changes WHERE change IN ('renamed', 'moved', 'detached') ORDER BY seq") == [
                "renamed|app/x|", "moved|app/b|app", "detached|b|app",
            ])
            let reader = try JournalReader(path: journal.path)
            let renamed = try #require(Int(try lines(journal.path, "SELECT seq FROM j_changes WHERE change = 4")[0]))
            let found = try reader.nodes(of: SessionID(rawValue: 1), withPath: "app/x/b/leaf")
            #expect(found.map(\.node) == [leaf.id])
            #expect(found.map(\.since) == [renamed])
            for path in ["app/a/b/leaf", "app/x/b", "app/b/leaf", "b/leaf", "b"] {
                #expect(try reader.hasNode(withPath: path), "\(path)")
            }
            #expect(try !reader.hasNode(withPath: "app/leaf"))
            #expect(try !reader.hasNode(withPath: "app/x/b/leaf/more"))
        }
    }

    /// A call enqueued on the main actor runs after its raise ended: it keeps its own time,
    /// measured from its raise (it was written as made at the raise's time once the raise
    /// was committed and another event's call written in between).
    @MainActor
    @Test func aCallMadeAfterItsRaiseEndedKeepsItsOwnTime() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.onMainActor(Ping.self, label: "ui", whenRaisedElsewhere: .enqueue) { _, _ in .handled }
            app.on(Pong.self, label: "other") { _, _ in .handled }
            // The main actor is held while Ping and Pong are raised on another thread, their
            // records committed, and for 50 ms after: the call enqueued by Ping starts at least
            // 50 ms after Ping was raised.
            let raised = DispatchSemaphore(value: 0)
            Thread {
                app.raise(Ping())
                app.raise(Pong())
                raised.signal()
            }.start()
            raised.wait()
            try journal.flush()
            usleep(50_000)
            await bus.waitForEnqueuedCalls()
            bus.end()
            try journal.flush()
            let ping = "(SELECT event_id FROM event_history WHERE event_type = 'Ping')"
            // Enqueued (8) at once, then handled (1) later.
            #expect(try lines(journal.path, "SELECT code & 15, offset_us >= 50000 FROM j_calls WHERE event_id = \(ping) ORDER BY seq")
                == ["8|0", "1|1"])
            #expect(try lines(journal.path, """
                SELECT count(*) FROM call_history WHERE event_id = \(ping)
                   AND (julianday(at) - julianday((SELECT raised_at FROM event_history WHERE event_id = \(ping)))) * 86400 > 0.049
                """) == ["1"])
        }
    }

    /// A released node keeps the path it had, whatever its former ancestors become.
    @Test func aReleasedNodeKeepsItsLastPath() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, process: "released")
            let app = EventNode("app", bus: bus)
            let screen = EventNode("screen", parent: app)
            let gone = EventNode("gone", parent: screen)
            gone.release()
            screen.rename(to: "renamed")
            screen.detach()
            gone.raise(Ping())
            try journal.flush()
            #expect(try lines(journal.path, "SELECT origin_path FROM event_history") == ["app/screen/gone"])
            #expect(try lines(journal.path, "SELECT node_path FROM tree_changes WHERE change = 'released'") == ["app/screen/gone"])
            withExtendedLifetime([app, screen]) {}
        }
    }

    /// Releasing a chain from its root down detaches each node's child in turn: a stored
    /// path per node below each detach made that cubic (1,000 nodes: 1.2 GB in 23 s).
    @Test func releasingADeepChainFromItsRootDownWritesARowPerChange() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, process: "chain")
            let depth = 300
            var chain = [EventNode("n0", bus: bus)]
            for index in 1..<depth { chain.append(EventNode("n\(index)", parent: chain[index - 1])) }
            chain[depth - 1].on(Ping.self, label: "deepest") { _, _ in .handled }
            chain[depth - 1].raise(Ping())
            for node in chain { node.release() }
            try journal.flush()
            #expect(try lines(journal.path, "SELECT count(*) FROM j_changes") == ["\(4 * depth - 2)"])
            #expect(try lines(journal.path, "SELECT node_path FROM call_history") == [
                (0..<depth).map { "n\($0)" }.joined(separator: "/"),
            ])
            // Each released node is shown at the path it had: a root by then.
            #expect(try lines(journal.path, "SELECT node_path FROM tree_changes WHERE change = 'released' ORDER BY seq LIMIT 2") == ["n0", "n1"])
            let pages = try #require(Int(try lines(journal.path, "PRAGMA page_count")[0]))
            let pageSize = try #require(Int(try lines(journal.path, "PRAGMA page_size")[0]))
            #expect(pages * pageSize < 512 * 1024, "\(pages) pages")
        }
    }

    @Test func aRaisesCallsAreKeptInItsRowUnlessTheyStartAfterOtherRecords() async throws {
        try await withTemporaryJournal { journal in
            let nodes = try Self.script(journal)
            defer { withExtendedLifetime(nodes) {} }
            // Each call's seq follows its raise's: the run is its event row's calls.
            #expect(try lines(journal.path, """
                SELECT event_id, json_array_length(calls) FROM j_events WHERE calls IS NOT NULL ORDER BY event_id
                """) == ["16|1", "20|1", "24|1", "26|1", "28|1", "33|2"])
            // Event 40's first call comes after b's release (seqs 41 and 42): a j_call_runs row.
            #expect(try lines(journal.path, "SELECT seq, event_id, last_seq FROM j_call_runs") == ["43|40|44"])
            // The j_calls view unpacks both: code & 63 is phase * 16 + outcome, as in the first test.
            #expect(try lines(journal.path, "SELECT seq, event_id, handler_no, code & 63 FROM j_calls ORDER BY seq") == [
                "17|16|2|18", "21|20|4|37", "25|24|3|52", "27|26|5|54", "29|28|6|33", "34|33|1|17", "35|33|2|50",
                "43|40|7|17", "44|40|3|52",
            ])
        }
    }

    @Test func aRaiseThatEndsBeyondItsRowsReachKeepsItsCallsInARun() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            // 1,023 calls end a raise 1,024 seqs after it, its row's reach; 1,024 calls, one
            // seq further.
            for index in 0..<1_023 { app.on(Ping.self, label: "p\(index)") { _, _ in .handled } }
            for index in 0..<1_024 { app.on(Pong.self, label: "q\(index)") { _, _ in .handled } }
            app.raise(Ping())
            app.raise(Pong())
            try journal.flush()
            let events = try lines(journal.path, "SELECT event_id FROM j_events ORDER BY event_id").compactMap { Int($0) }
            try #require(events.count == 2)
            #expect(try lines(journal.path, "SELECT finished_back, json_array_length(calls) FROM j_events ORDER BY event_id")
                == ["1024|1023", "1025|"])
            #expect(try lines(journal.path, "SELECT seq, event_id, last_seq FROM j_call_runs")
                == ["\(events[1] + 1)|\(events[1])|\(events[1] + 1_024)"])
            #expect(try lines(journal.path, "SELECT count(*), count(DISTINCT seq) FROM j_calls") == ["2047|2047"])
            // Read by seq, from either place: the last call of each raise alone.
            let reader = try JournalReader(path: journal.path)
            for (event, calls) in [(events[0], 1_023), (events[1], 1_024)] {
                let steps = try reader.steps(in: (event + calls)...(event + calls))
                #expect(steps.current?.seq == event + calls)
                #expect(steps.current?.event.rawValue == event)
                try steps.advance()
                #expect(steps.current == nil)
            }
        }
    }

    @Test func raisesAndCallsCarryTimesFromTheBusClock() async throws {
        try await withTemporaryJournal { journal in
            // Each reading of the monotonic clock is 1 ms after the previous one.
            let ticks = Ticks()
            let clock = EventClock(wallSeconds: { 1_700_000_000.25 }, nanoseconds: { ticks.next(step: 1_000_000) })
            let bus = EventBus(recorder: journal, process: "clocked", clock: clock)
            let app = EventNode("app", bus: bus)
            app.on(Ping.self, label: "first") { _, _ in .handled }
            app.on(Ping.self, label: "second") { _, _ in .handled }
            app.raise(Ping())
            bus.end()
            try journal.flush()
            // Readings: session start 0; raise 1 ms; first call 2 (ends 3); the second call
            // starts where the first ended, 3 (ends 4); session end 5.
            #expect(try lines(journal.path, "SELECT started_at, ended_at FROM sessions")
                == ["2023-11-14T22:13:20.250Z|2023-11-14T22:13:20.255Z"])
            #expect(try lines(journal.path, "SELECT raised_at FROM event_history") == ["2023-11-14T22:13:20.251Z"])
            #expect(try lines(journal.path, "SELECT handler_label, at, duration_ns FROM delivery_history ORDER BY seq")
                == ["first|2023-11-14T22:13:20.252Z|1000000", "second|2023-11-14T22:13:20.253Z|1000000"])
        }
    }
}

/// A monotonic clock for tests: every reading is `step` later than the one before.
final class Ticks: @unchecked Sendable {
    private let lock = NSLock()
    private var now = -1
    func next(step: Int) -> Int {
        lock.withLock {
            now += 1
            return now * step
        }
    }
}
