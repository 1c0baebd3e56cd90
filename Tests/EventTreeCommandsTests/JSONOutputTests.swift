import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// JSON output parses, and its fields carry the documented names and values.
@Suite struct JSONOutputTests {
    func parse(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test func replayJSONCarriesTheEvidence() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["replay", path, "--format", "json", "--only", "consumed"])
            #expect(result.status == 0)
            let findings = try #require(try parse(result.stdout) as? [[String: Any]])
            #expect(findings.count == 3)
            let openURL = try #require(findings.first)
            #expect(openURL["event_id"] as? Int == 43)
            #expect(openURL["session_id"] as? Int == 1)
            #expect(openURL["event_type"] as? String == "OpenURL")
            #expect(openURL["kind"] as? String == "event")
            #expect(openURL["mode"] as? String == "bubble")
            #expect(openURL["origin_path"] as? String == "app/tabs/settings/profile")
            #expect(openURL["classification"] as? String == "consumed")
            #expect(openURL["result"] as? String == "consumed")
            let stop = try #require(openURL["stopped_by"] as? [String: Any])
            #expect(stop["label"] as? String == "settings-router")
            #expect(stop["node_path"] as? String == "app/tabs/settings")
            #expect(stop["phase"] as? String == "bubble")
            #expect((stop["location"] as? String)?.hasPrefix("EventTreeCommands/DemoScenario.swift:") == true)
            #expect(stop["handler_id"] is Int)
            #expect(openURL["never_saw"] as? [String] == ["app/tabs", "app"])
            #expect((openURL["missed_handlers"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["analytics", "deep-link-router"])
            #expect(openURL["failure"] is NSNull)
            #expect(openURL["divergence"] is NSNull)
            #expect(openURL["lost_steps"] as? [Any] != nil)
            #expect(openURL["calls"] as? Int == 1)
        }
    }

    @Test func replayJSONStatesEachEventsResultAsEventHistoryDoes() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["replay", path, "--format", "json"])
            let findings = try #require(try parse(result.stdout) as? [[String: Any]])
            let reader = try JournalReader(path: path)
            let history = Dictionary(uniqueKeysWithValues: try reader.rows("SELECT event_id, result FROM event_history")
                .map { ($0[0].int!, $0[1].string!) })
            #expect(findings.count == 14)
            for finding in findings {
                let id = try #require(finding["event_id"] as? Int)
                #expect(finding["result"] as? String == history[id], "event \(id)")
            }
            #expect(findings.contains { $0["result"] as? String == "lost" })
        }
    }

    @Test func jsonlHasOneObjectPerLineAndQueryRowsKeepTheirTypes() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["query", path, "--format", "jsonl", "--type", "PostLiked"])
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 4)
            for line in lines {
                let row = try #require(try parse(String(line)) as? [String: Any])
                #expect(Set(row.keys) == [
                    "seq", "session_id", "event_id", "event_type", "node_path", "phase", "handler_label",
                    "handler_location", "outcome", "error", "duration_ns", "answer", "at",
                ])
                #expect(row["duration_ns"] is Int)
                #expect((row["at"] as? String)?.hasSuffix("Z") == true)
                #expect(row["seq"] is Int)
                #expect(row["event_type"] as? String == "PostLiked")
                #expect(row["error"] is NSNull)
            }
        }
    }

    @Test func explainJSONHasTheRouteAndTheVerdict() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["explain", path, "98", "--node", "app/tabs/home/post-2", "--format", "json"])
            let object = try #require(try parse(result.stdout) as? [String: Any])
            let node = try #require(object["node"] as? [String: Any])
            #expect(node["reason"] as? String == "releasedDuringDelivery")
            #expect(node["received"] as? Bool == false)
            let steps = try #require(object["steps"] as? [[String: Any]])
            #expect(steps.count == 8)
            #expect(steps[4]["reach"] as? String == "undelivered")
            #expect((steps[4]["lost"] as? [[String: Any]])?.first?["label"] as? String == "save-draft")
            #expect((object["event"] as? [String: Any])?["classification"] as? String == "lost")
        }
    }

    @Test func failOnExitsOneWhenFindingsExist() async throws {
        try await withDemoJournal { path in
            let failing = runCommand(["replay", path, "--fail-on", "lost,diverged", "--format", "csv", "--only", "lost"])
            #expect(failing.status == 1)
            #expect(failing.stderr == "error: 1 event in lost,diverged (--fail-on)\n")
            let passing = runCommand(["replay", path, "--fail-on", "diverged", "--format", "csv"])
            #expect(passing.status == 0)
        }
    }
}

/// Reading a journal that another process is writing.
@Suite struct LiveJournalTests {
    @Test func theToolReadsAJournalWhileThisProcessWritesIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/live.eventtree"
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "log") { _, _ in .handled }
            for index in 0..<10 { app.raise(NamedEvent("e\(index)")) }
            try journal.flush()
            let first = try Tool.run(["query", path, "--format", "csv"], in: directory)
            #expect(first.status == 0)
            #expect(first.stdout.split(separator: "\n").count == 11)

            // tail --follow in another process sees rows committed after it started.
            let process = Process()
            process.executableURL = Tool.builtExecutable
            process.arguments = ["tail", path, "--follow", "--seconds", "3", "--format", "csv"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Wait until tail has printed what was committed before it started…
            var data = Data()
            while String(decoding: data, as: UTF8.self).split(separator: "\n").count < 11 {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data += chunk
            }
            // …then commit more: tail prints them too.
            for index in 10..<15 { app.raise(NamedEvent("e\(index)")) }
            try journal.flush()
            data += output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            #expect(process.terminationStatus == 0)
            #expect(lines.count == 16, "header and 15 calls, got \(lines.count)")
            let replay = try Tool.run(["replay", path, "--format", "csv"], in: directory)
            #expect(replay.stdout.split(separator: "\n").count == 16)
            try journal.close()
        }
    }
}

/// `query` and `tail` read calls a window of seqs at a time (the call view cannot be
/// searched by seq); rows come exactly as the view gives them, in seq order.
@Suite struct CallWindowTests {
    @Test func queryAndTailReadCallsAcrossWindowsInSeqOrder() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/many.eventtree"
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            for index in 1...10 { app.on(NamedEvent.self, label: "h\(index)") { _, _ in .handled } }
            // Two threads raising at once: runs of calls whose seqs interleave.
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for index in 0..<2_000 { app.raise(NamedEvent("t\(thread)-\(index)")) }
            }
            bus.end()
            try journal.close()
            let reader = try JournalReader(path: path)
            let expected = try reader.rows("SELECT seq FROM delivery_history ORDER BY seq").map { $0[0].description }
            #expect(expected.count == 40_000)
            #expect(Int(expected.last!)! > 2 * 16_384)  // more than two windows of calls
            func seqs(_ arguments: [String]) throws -> [String] {
                let result = try Tool.run(arguments + ["--format", "csv"], in: directory)
                #expect(result.status == 0, "\(result.stderr)")
                return result.stdout.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) }
            }
            #expect(try seqs(["query", path]) == expected)
            #expect(try seqs(["query", path, "--since", expected[15_000], "--limit", "3"]) == Array(expected[15_000..<15_003]))
            #expect(try seqs(["query", path, "--since", expected[100], "--until", expected[19_000]]) == Array(expected[100...19_000]))
            let event = try #require(try reader.rows("SELECT event_id FROM j_events ORDER BY event_id LIMIT 1 OFFSET 1500").first?.first?.int)
            let ofEvent = try reader.rows("SELECT seq FROM delivery_history WHERE event_id = \(event) ORDER BY seq").map { $0[0].description }
            #expect(ofEvent.count == 10)
            #expect(try seqs(["query", path, "--event", "\(event)"]) == ofEvent)
            #expect(try seqs(["tail", path, "--last", "25"]) == Array(expected.suffix(25)))
        }
    }
}
