import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// `eventtree export`: a Trace Event file for Perfetto and chrome://tracing, and JSON Lines.
@Suite struct ExportTests {
    /// The trace's events, after checking every one has the fields the Trace Event format
    /// requires for its phase.
    static func traceEvents(_ text: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        for event in events {
            let phase = event["ph"] as? String
            #expect(event["name"] is String && event["pid"] is Int && event["tid"] is Int, "\(event)")
            switch phase {
            case "X":
                #expect(event["ts"] is NSNumber && event["dur"] is NSNumber && event["cat"] is String, "\(event)")
                #expect((event["dur"] as? Double ?? -1) >= 0)
            case "M":
                #expect((event["args"] as? [String: Any])?["name"] is String, "\(event)")
            case "s", "f":
                #expect(event["ts"] is NSNumber && event["id"] is Int && event["cat"] is String, "\(event)")
            default:
                Issue.record("unexpected phase in \(event)")
            }
        }
        return events
    }

    /// The ids of the flow events of `phase` (`s` or `f`).
    static func flowIDs(_ events: [[String: Any]], phase: String) -> [Int] {
        var ids: [Int] = []
        for event in events {
            guard let eventPhase = event["ph"] as? String, eventPhase == phase else { continue }
            ids.append(event["id"] as? Int ?? -1)
        }
        return ids
    }

    /// Whether the slices of each track nest (a slice that starts inside another ends inside it).
    static func slicesNest(_ events: [[String: Any]]) -> Bool {
        let slices = events.filter { $0["ph"] as? String == "X" }.map { event in
            (track: "\(event["pid"]!)/\(event["tid"]!)", start: (event["ts"] as! NSNumber).doubleValue,
             end: (event["ts"] as! NSNumber).doubleValue + (event["dur"] as! NSNumber).doubleValue)
        }.sorted { ($0.track, $0.start, -$0.end) < ($1.track, $1.start, -$1.end) }
        var stack: [(track: String, start: Double, end: Double)] = []
        for slice in slices {
            while let top = stack.last, top.track != slice.track || top.end <= slice.start { stack.removeLast() }
            if let top = stack.last, slice.end > top.end + 1e-9 { return false }
            stack.append(slice)
        }
        return true
    }

    @Test func theDemoTraceHasASliceForEveryRaiseAndCallAndArrowsBetweenThem() async throws {
        try await withTemporaryDirectory { directory in
            _ = try Tool.run(["demo"], in: directory)
            let journal = directory + "/eventtree-demo.eventtree"
            let result = try Tool.run(["export", journal, "--format", "chrome-trace"])
            #expect(result.status == 0)
            #expect(result.stderr == "")
            let events = try Self.traceEvents(result.stdout)
            let reader = try JournalReader(path: journal)
            let raises = try reader.rows("SELECT count(*) FROM event_history").first?.first?.int
            let calls = try reader.rows("SELECT count(*) FROM call_history").first?.first?.int
            let slices = events.filter { $0["ph"] as? String == "X" }
            #expect(slices.filter { $0["cat"] as? String != "handler" }.count == raises)
            #expect(slices.filter { $0["cat"] as? String == "handler" }.count == calls)
            // The demo raises everything on its main thread: one track, named.
            let names = events.filter { $0["name"] as? String == "thread_name" }.map { ($0["args"] as? [String: Any])?["name"] as? String }
            #expect(names == ["main"])
            // Each session is a process named after it and its recording process.
            let processes = events.filter { $0["name"] as? String == "process_name" }.map { ($0["args"] as? [String: Any])?["name"] as? String }
            #expect(processes == ["session 1: eventtree-demo"])
            #expect(Self.slicesNest(events))
            // Arrows come in pairs: one per call, and one per cause or transform link.
            let starts = Self.flowIDs(events, phase: "s")
            let ends = Self.flowIDs(events, phase: "f")
            #expect(Set(starts) == Set(ends))
            #expect(starts.count == ends.count)
            let links = try reader.rows("""
                SELECT count(*) FROM event_history WHERE cause_event_id IS NOT NULL OR transformed_from_event_id IS NOT NULL
                """).first?.first?.int ?? 0
            #expect(starts.count >= (calls ?? 0) + links)
            // Event 43's slice: the consumed OpenURL, with settings-router's call inside it.
            let openURL = try #require(slices.first { ($0["args"] as? [String: Any])?["event"] as? String == "43" })
            #expect(openURL["name"] as? String == "OpenURL")
            #expect((openURL["args"] as? [String: Any])?["result"] as? String == "consumed")
            let router = try #require(slices.first { $0["name"] as? String == "settings-router" })
            // In whole nanoseconds (the trace's microseconds carry three decimals): summed as
            // doubles, a call that ends exactly where its event ends could seem to end after it.
            func nanoseconds(_ slice: [String: Any], _ key: String) -> Int { Int(((slice[key] as! NSNumber).doubleValue * 1_000).rounded()) }
            let start = nanoseconds(openURL, "ts")
            let end = start + nanoseconds(openURL, "dur")
            #expect(nanoseconds(router, "ts") >= start)
            #expect(nanoseconds(router, "ts") + nanoseconds(router, "dur") <= end)
        }
    }

    @Test func raisesFromTwoThreadsGetTwoNamedTracks() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { _, _ in .handled }
            app.raise(NamedEvent("ping"))
            // A thread of its own (not the test's cooperative pool): waiting for it blocks nothing it needs.
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                // Named as pthread_setname_np names a thread. (Foundation on Linux may drop a name
                // a Thread sets as it starts: its setter can run before the Thread knows its pthread.)
                #if os(Linux)
                try? "worker".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                #else
                Thread.current.name = "worker"
                #endif
                app.raise(NamedEvent("ping"))
                done.signal()
            }
            thread.start()
            done.wait()
            bus.end()
            try journal.flush()
            let threads = try JournalReader(path: journal.path).rows("SELECT thread FROM event_history ORDER BY seq")
                .map { $0[0].string }
            #expect(threads.count == 2)
            #expect(threads[1] == "worker")
            #expect(threads[0] != "worker")
            let result = runCommand(["export", journal.path, "--format", "chrome-trace"])
            let events = try Self.traceEvents(result.stdout)
            let names = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
            #expect(names.count == 2 && names.contains("worker"))
            let tracks = Set(events.filter { $0["ph"] as? String == "X" }.compactMap { $0["tid"] as? Int })
            #expect(tracks.count == 2)
        }
    }

    /// A raise on the main actor and an awaited one get tracks of their own, named as the
    /// journal names them, with ids a trace viewer keeps (it drops a negative `tid`). A raise
    /// nested in an awaited one is on the awaited track too: where its outermost raise was made.
    @Test @MainActor func mainActorAndAwaitedRaisesGetNamedTracksAndNestedRaisesTheirOutermosts() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "h") { event, context in
                if event.name == "outer" { context.node?.raise(NamedEvent("inner")) }
                return .handled
            }
            app.raise(NamedEvent("on the main actor"))
            await app.raiseAsync(NamedEvent("outer"))
            bus.end()
            try journal.flush()
            let threads = try JournalReader(path: journal.path).rows("SELECT thread FROM event_history ORDER BY seq")
                .map { $0[0].string }
            #expect(threads == ["main actor", "awaited", "awaited"])
            let events = try Self.traceEvents(runCommand(["export", journal.path, "--format", "chrome-trace"]).stdout)
            let names = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
            #expect(names == ["main actor", "awaited"])
            let tracks = Set(events.filter { $0["ph"] as? String == "X" }.compactMap { $0["tid"] as? Int })
            #expect(tracks == [1, 2])
            #expect(Self.slicesNest(events))
        }
    }

    /// Raises end in seq order, not in time order: on one track, a raise still open (67,
    /// from 110 µs to past 200) can have started inside one that ended (56, 100–140 µs)
    /// before a third (75, at 150 µs) that ends first. The three still nest.
    @Test func slicesNestWhenRaisesEndInAnotherOrderThanTheyStarted() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/overlap.eventtree"
            #expect(try Tool.run(["demo", "--journal", path], in: directory).status == 0)
            try? FileManager.default.removeItem(atPath: path + ".lock")
            sqliteExecute(path, """
                PRAGMA journal_mode = DELETE;
                UPDATE j_events SET raised_us = 100 WHERE event_id = 56;
                UPDATE j_events SET raised_us = 140 WHERE event_id = 61;
                UPDATE j_events SET raised_us = 110, finished_back = 30 WHERE event_id = 67;
                UPDATE j_events SET raised_us = 200 WHERE event_id = 70;
                UPDATE j_events SET raised_us = 150 WHERE event_id IN (75, 77);
                """)
            let result = try Tool.run(["export", path, "--format", "chrome-trace"])
            #expect(result.status == 0, "\(result.stderr)")
            let events = try Self.traceEvents(result.stdout)
            #expect(events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String != "handler" }.count == 15)
            #expect(Self.slicesNest(events))
        }
    }

    /// A main-actor call enqueued by a raise off the main actor runs after the raise ended:
    /// it is a slice with an arrow from its raise, and what it raises has one from it too.
    @Test func anEnqueuedCallThatRanLaterHasItsSliceAndArrows() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.onMainActor(NamedEvent.self, label: "ui", whenRaisedElsewhere: .enqueue) { event, context in
                if event.name == "ping" { context.node?.raise(NamedEvent("pong")) }
                return .handled
            }
            _ = await Task.detached { app.raise(NamedEvent("ping")) }.value
            await bus.waitForEnqueuedCalls()
            bus.end()
            try journal.flush()
            let events = try Self.traceEvents(runCommand(["export", journal.path, "--format", "chrome-trace"]).stdout)
            let slices = events.filter { $0["ph"] as? String == "X" }
            // ping's enqueued call and the call that ran later; pong's call, made on the main actor.
            #expect(slices.filter { $0["cat"] as? String == "handler" }.compactMap { ($0["args"] as? [String: Any])?["outcome"] as? String }
                .sorted() == ["enqueued", "handled", "handled"])
            #expect(slices.filter { $0["cat"] as? String == "event" }.map { $0["name"] as? String } == ["NamedEvent", "NamedEvent"])
            let flows = events.filter { $0["ph"] as? String == "s" }.compactMap { $0["name"] as? String }
            #expect(flows.sorted() == ["delivery", "delivery", "delivery", "nested raise"])
            // The journal has no start for the call that ran later: it is drawn after its raise.
            func number(_ slice: [String: Any], _ key: String) -> Double { (slice[key] as? NSNumber)?.doubleValue ?? -1 }
            let ping = try #require(slices.filter { $0["cat"] as? String == "event" }
                .min { Int(($0["args"] as? [String: Any])?["event"] as? String ?? "") ?? 0 < Int(($1["args"] as? [String: Any])?["event"] as? String ?? "") ?? 0 })
            let late = try #require(slices.first {
                $0["tid"] as? Int == ping["tid"] as? Int && ($0["args"] as? [String: Any])?["outcome"] as? String == "handled"
            })
            #expect(number(late, "ts") >= number(ping, "ts") + number(ping, "dur"))
            #expect(Set(Self.flowIDs(events, phase: "s")) == Set(Self.flowIDs(events, phase: "f")))
            #expect(Self.slicesNest(events))
        }
    }

    @Test func jsonLinesHoldEveryRecordInSeqOrder() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["export", path, "--format", "jsonl"])
            #expect(result.status == 0)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            let seqs = objects.compactMap { $0["seq"] as? Int }
            #expect(seqs.count == objects.count && seqs == seqs.sorted() && Set(seqs).count == seqs.count)
            #expect(lines.first == #"{"seq":1,"record":"session_started","session":1,"started_at":1800000000,"process":"eventtree-demo","host":"","app_version":"demo"}"#)
            let kinds = objects.map { $0["record"] as? String ?? "?" }
            let reader = try JournalReader(path: path)
            func count(_ sql: String) throws -> Int { try reader.rows(sql).first?.first?.int ?? -1 }
            #expect(kinds.filter { $0 == "raise" }.count == (try count("SELECT count(*) FROM event_history")))
            #expect(kinds.filter { $0 == "call" }.count == (try count("SELECT count(*) FROM call_history")))
            #expect(kinds.filter { $0 == "handler_added" }.count == (try count("SELECT count(*) FROM handler_registrations")))
            #expect(kinds.filter { $0 == "dead_letter" }.count == 2)
            #expect(kinds.last == "session_ended")
            let consumed = try #require(objects.first { $0["record"] as? String == "raise" && $0["seq"] as? Int == 43 })
            #expect(consumed["event_type"] as? String == "OpenURL")
            #expect(consumed["result"] as? String == "consumed")
            #expect(consumed["payload"] as? String == #"{"url":"app://settings/privacy"}"#)
            #expect(runCommand(["export", path, "--format", "jsonl", "--session", "1"]).status == 2)
        }
    }
}
