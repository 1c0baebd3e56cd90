import EventTree
import EventTreeJournal
@testable import EventTreeReport
import EventTreeReplay
import EventTreeTesting
import Foundation
import Testing

/// `eventtree report` pages, opened in a real headless browser (Debian's `chromium`), and
/// the diagrams rendered by Graphviz (`dot`).
@Suite struct ReportTests {
    /// What chromium made of a page: the DOM after its script ran, and every console line.
    struct Page {
        let dom: String
        let console: [String]

        /// The text of the element with this id (tags inside it removed).
        func text(ofID id: String) -> String? {
            guard let start = dom.range(of: "id=\"\(id)\"") else { return nil }
            guard let open = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
            var depth = 0
            var text = ""
            var index = dom.index(after: open)
            var inTag = false
            while index < dom.endIndex {
                let character = dom[index]
                if character == "<" {
                    inTag = true
                    let closing = dom[index...].hasPrefix("</")
                    if closing { if depth == 0 { break }; depth -= 1 } else if !dom[index...].hasPrefix("<br") { depth += 1 }
                } else if character == ">" {
                    inTag = false
                } else if !inTag {
                    text.append(character)
                }
                index = dom.index(after: index)
            }
            return text.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
        }
    }

    /// Loads `file` (with `fragment`) in headless chromium and returns the DOM its script left.
    static func open(_ file: String, fragment: String = "") throws -> Page? {
        guard ExternalTool.available("chromium"), let chromium = ExternalTool.find("chromium") else { return nil }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let result = try chromium.run([
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--enable-logging=stderr",
            "--v=0", "--virtual-time-budget=5000", "--dump-dom", URL(fileURLWithPath: file).absoluteString + fragment,
        ])
        #expect(result.status == 0, "chromium: \(result.stderr.suffix(2_000))")
        let console = result.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return Page(dom: result.stdout, console: console)
    }

    /// The counts `eventtree replay --format json` reports, by class.
    static func replayCounts(_ journal: String) throws -> [String: Int] {
        let replay = try Tool.run(["replay", journal, "--format", "json"])
        #expect(replay.status == 0)
        let findings = try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [[String: Any]] ?? []
        var counts: [String: Int] = [:]
        for finding in findings { counts[finding["classification"] as? String ?? "?", default: 0] += 1 }
        return counts
    }

    /// The events of `session` as the library's replay lists them (a finding each).
    static func replayedEvents(_ journal: String, session: SessionID) throws -> [EventID] {
        var ids: [EventID] = []
        try Replayer(journal: journal).replay(session: session) { ids.append($0.event.id) }
        return ids
    }

    @Test func theDemoReportLoadsCleanlyAndAgreesWithReplay() async throws {
        try await withTemporaryDirectory { directory in
            _ = try Tool.run(["demo"], in: directory)
            let journal = directory + "/eventtree-demo.eventtree"
            let written = try Tool.run(["report", "eventtree-demo.eventtree"], in: directory)
            #expect(written.status == 0)
            #expect(written.stdout.hasPrefix("Wrote the report of session 1 (14 events) to eventtree-demo.html ("))
            let html = directory + "/eventtree-demo.html"
            let source = try String(contentsOfFile: html, encoding: .utf8)
            // Self-contained: nothing is fetched.
            #expect(!source.contains("src=\"http"))
            #expect(!source.contains("href=\"http"))
            #expect(!source.contains("<link"))

            // Event 43 (OpenURL) was consumed by settings-router at app/tabs/settings.
            guard let page = try Self.open(html, fragment: "#event=43") else { return }
            #expect(page.console == [])
            let counts = try Self.replayCounts(journal)
            for name in ["delivered", "consumed", "unhandled", "lost", "diverged", "failed"] {
                #expect(page.text(ofID: "count-\(name)") == String(counts[name, default: 0]), "\(name)")
            }
            #expect(page.text(ofID: "count-text") == "14 of 14 events")
            #expect(page.text(ofID: "stopper") == "stopped by settings-router EventTreeCommands/DemoScenario.swift:47 at app/tabs/settings")
            let explain = try Tool.run(["explain", journal, "43", "--format", "json"])
            let explanation = try JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any]
            let summary = (explanation?["event"] as? [String: Any])?["summary"] as? String
            #expect(summary != nil)
            #expect(page.text(ofID: "explanation") == summary)
            // The route drawn on the tree: the stopping node is marked, the ones after it not reached.
            #expect(page.dom.contains("class=\"node on-route reached stopped\" data-path=\"app/tabs/settings\""))
            #expect(page.dom.contains("class=\"node on-route not-reached\" data-path=\"app/tabs\""))
            #expect(page.dom.contains("class=\"node on-route reached origin\" data-path=\"app/tabs/settings/profile\""))
            #expect(page.dom.contains("class=\"node off-route\" data-path=\"app/tabs/feed\""))
        }
    }

    @Test func aBusySessionsReportCountsEveryEventAndHoldsAWindow() async throws {
        try await withTemporaryDirectory { directory in
            let made = try Tool.run(["demo", "--events", "20000", "--journal", "busy.eventtree"], in: directory)
            #expect(made.status == 0)
            let journal = directory + "/busy.eventtree"
            let written = try Tool.run(["report", journal, "--output", directory + "/busy.html"])
            #expect(written.status == 0)
            let size = try FileManager.default.attributesOfItem(atPath: directory + "/busy.html")[.size] as? Int ?? 0
            #expect(size < 2_500_000, "\(size) bytes for a window of 10,000 events")
            let counts = try Self.replayCounts(journal)
            let events = counts.values.reduce(0, +)
            #expect(events > 20_000)
            #expect(counts["lost", default: 0] > 0 && counts["failed", default: 0] > 0 && counts["consumed", default: 0] > 0)
            let reader = try JournalReader(path: journal)
            let session = try #require(reader.sessions().last)
            // The window: the session's last 10,000 events, as replay lists them.
            let ids = try Self.replayedEvents(journal, session: session.id).map(\.rawValue)
            let (first, last) = (ids[ids.count - 10_000], ids[ids.count - 1])
            #expect(written.stdout.hasPrefix(
                "Wrote the report of session \(session.id.rawValue) (\(events) events; the timeline holds 10000 events, \(first) to \(last)) to "))
            let lost = try reader.rows("SELECT max(event_id) FROM event_history WHERE result = 'lost'").first?.first?.int ?? 0
            guard let page = try Self.open(directory + "/busy.html", fragment: "#event=\(lost)") else { return }
            #expect(page.console == [])
            #expect(page.text(ofID: "count-text") == "10000 of 10000 events")
            // The summary still counts every event of the session.
            for name in ["delivered", "consumed", "unhandled", "lost", "diverged", "failed"] {
                #expect(page.text(ofID: "count-\(name)") == String(counts[name, default: 0]), "\(name)")
            }
            #expect(page.text(ofID: "window")?.hasPrefix(
                "The counts below cover every event of the session. The timeline, the routes and the tree through time "
                    + "hold 10000 of its \(events) events: \(first) to \(last).") == true)
            #expect(page.text(ofID: "explanation")?.hasPrefix("lost: released during delivery before it reached app/") == true)
            // Only the rows in view are in the page (virtual scrolling), not 10,000.
            let rows = page.dom.components(separatedBy: "class=\"row").count - 1
            #expect(rows > 10 && rows < 100, "\(rows) rows in the DOM")
        }
    }

    @Test func aWindowAroundAnEventStartsFromTheTreeAsItStood() async throws {
        try await withTemporaryDirectory { directory in
            let made = try Tool.run(["demo", "--events", "6000", "--journal", "busy.eventtree"], in: directory)
            #expect(made.status == 0)
            let journal = directory + "/busy.eventtree"
            let reader = try JournalReader(path: journal)
            let lost = try reader.rows("SELECT min(event_id) FROM event_history WHERE result = 'lost' AND event_id > 3000")
                .first?.first?.int ?? 0
            let report = try SessionReport(journal: journal, window: .around(EventID(rawValue: lost), count: 200))
            // 100 events before the event, and 100 from it, as the full replay orders them.
            let ids = try Self.replayedEvents(journal, session: report.session.id)
            let at = try #require(ids.firstIndex(of: EventID(rawValue: lost)))
            #expect(report.findings.map(\.event.id) == Array(ids[(at - 100)..<(at + 100)]))
            // Near either end of the session, the window takes more from the other side.
            let last = try SessionReport(journal: journal, window: .around(ids[ids.count - 3], count: 200))
            #expect(last.findings.map(\.event.id) == Array(ids.suffix(200)))
            let first = try SessionReport(journal: journal, window: .around(ids[2], count: 200))
            #expect(first.findings.map(\.event.id) == Array(ids.prefix(200)))
            // The first changes rebuild the tree as every change before the window builds it.
            var rebuilt = JournalTree()
            for change in report.changes.prefix(report.startingChanges) { rebuilt.apply(change.change, to: change.node) }
            var expected = JournalTree()
            let before = try reader.treeChanges(of: report.session.id, before: ids[at - 100].rawValue)
            while let change = before.current {
                expected.apply(change.change, to: change.node)
                try before.advance()
            }
            #expect(report.startingChanges > 0)
            let paths = { (tree: JournalTree) in tree.nodes.keys.map { "\($0.rawValue) \(tree.path(of: $0))" }.sorted() }
            #expect(paths(rebuilt) == paths(expected))
            #expect(rebuilt.nodes.mapValues(\.children) == expected.nodes.mapValues(\.children))
            // Then the window's own changes, up to the first event after it.
            #expect(report.changes.dropFirst(report.startingChanges).allSatisfy { $0.seq >= ids[at - 100].rawValue && $0.seq < ids[at + 100].rawValue })

            let written = try Tool.run(["report", journal, "--around", String(lost), "--window", "200", "--output", directory + "/around.html"])
            #expect(written.status == 0)
            #expect(written.stdout.contains("to \(directory)/around.html#event=\(lost) ("))
            // Opened without a fragment, the page selects the event and draws its route on the tree.
            guard let page = try Self.open(directory + "/around.html") else { return }
            #expect(page.console == [])
            #expect(page.text(ofID: "count-text") == "200 of 200 events")
            #expect(page.text(ofID: "explanation")?.hasPrefix("lost: released during delivery before it reached app/") == true)
            #expect(page.dom.contains("class=\"node on-route reached origin\""))

            let elsewhere = runCommand(["report", journal, "--around", "999999999"])
            #expect(elsewhere.status == 1 || elsewhere.status == 2)
            #expect(elsewhere.stderr == "error: the journal has no event 999999999; list them with 'eventtree replay' or 'eventtree query'\n")
        }
    }

    @Test func theReportGoesToStandardOutputAndNeverOverTheJournal() async throws {
        try await withDemoJournal { path in
            let printed = runCommand(["report", path, "--output", "-"])
            #expect(printed.status == 0)
            #expect(printed.stdout.hasPrefix("<!DOCTYPE html>"))
            #expect(printed.stdout.contains("<td id=\"count-consumed\">3</td>"))
            let refused = runCommand(["report", path, "--output", path])
            #expect(refused.status == 2)
            #expect(refused.stderr == "error: \(path) is the journal itself; choose another --output\n")
            let missing = runCommand(["report", path + ".missing"])
            #expect(missing.status == 2)
            #expect(missing.stderr.hasPrefix("error: no journal at "))
        }
    }

    @Test func theReportsDataCannotEndItsScriptElement() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("</script><script>alert(1)</script>", bus: bus)
            app.raise(NamedEvent("<!-- x"))
            try journal.flush()
            let html = try SessionReport(journal: journal.path).html()
            #expect(!html.contains("</script><script>alert(1)"))
            #expect(html.contains("\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"))
            #expect(html.components(separatedBy: "</script>").count == 3)
        }
    }

    @Test(arguments: ["explain-consumed-dot", "topology-dot"])
    func dotOutputRendersWithGraphviz(golden: String) throws {
        guard ExternalTool.available("dot"), let dot = ExternalTool.find("dot") else { return }
        let file = GoldenTests.folder.appendingPathComponent(golden + ".txt")
        let result = try dot.run(["-Tsvg", file.path])
        #expect(result.status == 0, "dot: \(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout.contains("<svg"))
        #expect(result.stdout.contains("settings"))
    }
}
