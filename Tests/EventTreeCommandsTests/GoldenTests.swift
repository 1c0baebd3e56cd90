import EventTree
import EventTreeCommands
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Captures what a command writes.
final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var out = ""
    private var err = ""
    var terminal: CommandTerminal {
        CommandTerminal(
            write: { text in self.lock.withLock { self.out += text } },
            writeError: { text in self.lock.withLock { self.err += text } },
            isColorful: false, showsProgress: false)
    }
    var stdout: String { lock.withLock { out } }
    var stderr: String { lock.withLock { err } }
}

/// Runs a command in-process on the demo journal.
func runCommand(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
    let capture = Capture()
    let status = EventTreeCommand.run(arguments, terminal: capture.terminal)
    return (status, capture.stdout, capture.stderr)
}

/// Records the demo session into a temporary journal for `body`.
func withDemoJournal(_ body: (String) throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        let path = directory + "/demo.eventtree"
        let journal = try Journal(path: path)
        // A clock that ticks a millisecond a reading: the golden files' times repeat.
        let ticks = Ticks()
        DemoScenario.run(recording: journal, clock: EventClock(wallSeconds: { 1_800_000_000 }, nanoseconds: { ticks.next() }))
        try journal.close()
        try body(path)
    }
}

/// Golden files pin the commands' text output. Re-record them on purpose with
/// `EVENTTREE_RECORD_GOLDEN=1 swift test --filter GoldenTests` (that run fails for each file it
/// changed), then review the diff and run the tests again without it.
@Suite struct GoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static let cases: [(name: String, arguments: [String])] = [
        ("replay", ["replay"]),
        ("replay-only-consumed-lost", ["replay", "--only", "consumed,lost"]),
        ("explain-consumed-node", ["explain", "43", "--node", "app"]),
        ("explain-lost", ["explain", "98", "--node", "app/tabs/home/post-2"]),
        ("explain-what-if", ["explain", "43", "--ignore-consumption"]),
        ("explain-cause-chain", ["explain", "56"]),
        ("explain-caused-by", ["explain", "70", "--verbose"]),
        ("topology-before-move", ["topology", "--at", "80"]),
        ("topology-after-move", ["topology"]),
        ("query-subtree", ["query", "--node", "app/tabs/settings"]),
        ("query-failed", ["query", "--outcome", "failed"]),
        ("tail-last", ["tail", "--last", "3"]),
        ("query-unattended", ["query", "--outcome", "deadLetter"]),
        ("query-event-handler", ["query", "--event", "98", "--handler", "save-draft"]),
        ("query-result-lost", ["query", "--result", "lost"]),
        ("explain-consumed-dot", ["explain", "43", "--format", "dot"]),
        ("explain-cause-chain-mermaid", ["explain", "56", "--format", "mermaid"]),
        ("topology-dot", ["topology", "--format", "dot"]),
        ("topology-mermaid", ["topology", "--at", "80", "--format", "mermaid"]),
    ]

    @Test(arguments: cases.map(\.name))
    func commandOutputMatchesItsGoldenFile(name: String) async throws {
        let arguments = Self.cases.first { $0.name == name }!.arguments
        try await withDemoJournal { path in
            let result = runCommand([arguments[0], path] + arguments.dropFirst())
            #expect(result.status == 0)
            #expect(result.stderr == "")
            let file = Self.folder.appendingPathComponent(name + ".txt")
            if ProcessInfo.processInfo.environment["EVENTTREE_RECORD_GOLDEN"] == "1" {
                let before = try? String(contentsOf: file, encoding: .utf8)
                try result.stdout.write(to: file, atomically: true, encoding: .utf8)
                // A run that re-records proves nothing: it fails, so that a re-recording is
                // reviewed and the suite run again without the variable.
                if before != result.stdout {
                    Issue.record("re-recorded \(name).txt: review its diff, then run the tests without EVENTTREE_RECORD_GOLDEN")
                }
            }
            let golden = try String(contentsOf: file, encoding: .utf8)
            #expect(result.stdout == golden, "re-record with EVENTTREE_RECORD_GOLDEN=1 if the change is intended")
        }
    }

    @Test func sessionsListsTheDemoSession() async throws {
        try await withDemoJournal { path in
            let result = runCommand(["sessions", path, "--format", "csv"])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "session_id,started_at,ended_at,process,events,steps,dropped,host,app_version")
            let fields = try #require(lines.dropFirst().first).split(separator: ",", omittingEmptySubsequences: false)
                .map(String.init)
            #expect(fields.count == 9)
            #expect(fields[0] == "1")
            #expect(fields[1] == "2027-01-15T08:00:00.000Z")
            #expect(fields[3...6] == ["eventtree-demo", "15", "22", "0"])
            #expect(fields[7] == "", "a host name is recorded only when the app opts in")
            #expect(fields[8] == "demo")
        }
    }
}

/// A monotonic clock for the golden files: each reading is a millisecond after the last.
final class Ticks: @unchecked Sendable {
    // Safe: `now` is guarded by `lock`.
    private let lock = NSLock()
    private var now = 0
    func next() -> Int {
        lock.withLock {
            now += 1_000_000
            return now
        }
    }
}
