import EventTreeCommands
import EventTreeJournal
import Foundation

/// The `eventtree` tool's commands on the busy demo's journals of 10⁵ raises and up, each
/// run in a process of its own (so that its peak memory is its own), warm cache: the table
/// the README's "answers at any size" figures come from.
enum CommandScaling {
    /// One command as the table shows it, with its arguments for a journal.
    struct Command: Sendable {
        let name: String
        let arguments: @Sendable (_ journal: String, _ event: Int, _ middle: Int) -> [String]
    }

    static let commands: [Command] = [
        Command(name: "explain EVENT") { journal, event, _ in ["explain", journal, String(event)] },
        Command(name: "topology --at SEQ") { journal, _, middle in
            ["topology", journal, "--at", String(middle)]
        },
        Command(name: "query --limit 10") { journal, _, _ in ["query", journal, "--limit", "10"] },
        Command(name: "query --type OpenURL --limit 10") { journal, _, _ in
            ["query", journal, "--type", "OpenURL", "--limit", "10"]
        },
        // Filters that match few rows, or none (the busy demo registers no capture handler):
        // the journal's keys say where their rows can lie.
        Command(name: "query --phase capture --limit 10") { journal, _, _ in
            ["query", journal, "--phase", "capture", "--limit", "10"]
        },
        Command(name: "query --event EVENT") { journal, event, _ in ["query", journal, "--event", String(event)] },
        Command(name: "tail --last 5") { journal, _, _ in ["tail", journal, "--last", "5"] },
        Command(name: "sessions") { journal, _, _ in ["sessions", journal] },
        Command(name: "verify") { journal, _, _ in ["verify", journal] },
        Command(name: "replay") { journal, _, _ in ["replay", journal] },
        Command(name: "export --format jsonl -o FILE") { journal, _, _ in
            ["export", journal, "--format", "jsonl", "-o", freshPath("scaling-records.jsonl")]
        },
        Command(name: "report -o FILE") { journal, _, _ in
            ["report", journal, "-o", freshPath("scaling-report.html")]
        },
        Command(name: "export --format chrome-trace") { journal, _, _ in
            ["export", journal, "--format", "chrome-trace", "-o", freshPath("scaling-trace.json")]
        },
    ]

    /// In a child: runs the tool with `arguments`, output discarded, and prints its time and
    /// this process's peak memory.
    static func child(_ arguments: [String]) {
        let silent = CommandTerminal(write: { _ in }, writeError: { _ in }, isColorful: false, showsProgress: false)
        var status: Int32 = 0
        let seconds = timed { status = EventTreeCommand.run(arguments, terminal: silent) }
        print("seconds=\(seconds) peak=\(peakMemoryKiB()) status=\(status)")
    }

    /// Writes a demo journal per size, runs every command on it three times (the median of
    /// the last two: the first warms the cache), and prints the table with each command's
    /// growth from the smallest size to the largest.
    static func run(exponents: ClosedRange<Int>) throws {
        var columns: [String] = []
        var rows = commands.map { [$0.name] }
        var first: [Double?] = Array(repeating: nil, count: commands.count)
        var last: [Double?] = Array(repeating: nil, count: commands.count)
        var demoRow = ["demo --events N (writing it)"]
        for exponent in exponents {
            let events = Int(pow(10, Double(exponent)))
            columns.append("10^\(exponent)")
            let journal = freshPath("scaling-demo-\(events).eventtree")
            let demo = try measure(["demo", "--events", String(events), "--journal", journal], rounds: 1)
            demoRow.append(cell(demo))
            let reader = try JournalReader(path: journal)
            let middle = try reader.rows("SELECT max(event_id) / 2 FROM j_events").first?.first?.int ?? 1
            let event = try reader.rows("SELECT max(event_id) FROM j_events WHERE event_id <= ?", [.integer(middle)])
                .first?.first?.int ?? 1
            for (index, command) in commands.enumerated() {
                let result = try measure(command.arguments(journal, event, middle), rounds: 3)
                rows[index].append(cell(result))
                if first[index] == nil { first[index] = result.seconds }
                last[index] = result.seconds
            }
            for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: journal + suffix) }
        }
        for index in rows.indices {
            if let first = first[index], let last = last[index], first > 0 {
                rows[index].append(String(format: "%.1f×", last / first))
            } else {
                rows[index].append("-")
            }
        }
        demoRow.append("-")
        let header = ["command (seconds, peak MiB)"] + columns + ["growth"]
        let all = [header, demoRow] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        print("\nThe tool on the busy demo's journals (N raises; release build, warm cache)")
        for row in all {
            print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
    }

    /// The median time and the largest peak of `rounds` runs in child processes (of the
    /// runs after the first, when there are more than one).
    private static func measure(_ arguments: [String], rounds: Int) throws -> (seconds: Double, peakKiB: Double) {
        var seconds: [Double] = []
        var peak = 0.0
        for round in 0..<rounds {
            let line = try Scaling.runChild(["--command-child"] + arguments)
            var values: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=")
                if parts.count == 2 { values[String(parts[0])] = Double(parts[1]) }
            }
            // 0, or 1 for a verdict (verify, replay); 2 is bad input.
            guard let status = values["status"], status < 2 else {
                throw CommandFailed(arguments: arguments, line: line)
            }
            if round > 0 || rounds == 1 {
                seconds.append(values["seconds"] ?? 0)
                peak = max(peak, values["peak"] ?? 0)
            }
        }
        return (median(seconds), peak)
    }

    private static func cell(_ result: (seconds: Double, peakKiB: Double)) -> String {
        String(format: "%.2f s, %.0f", result.seconds, result.peakKiB / 1024)
    }

    /// A command of the table exited with a failure.
    struct CommandFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let line: String
        var description: String { "eventtree \(arguments.joined(separator: " ")) failed: \(line)" }
    }
}
