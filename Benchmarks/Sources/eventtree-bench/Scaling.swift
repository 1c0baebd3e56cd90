import EventTree
import EventTreeJournal
import EventTreeCommands
import EventTreeReplay
import Foundation

/// Journal sizes 10⁴ → 10⁷ steps, each measured in a child process of its own so that its
/// peak memory is its own.
enum Scaling {
    /// In a child: writes a journal of `steps` steps, then prints `key=value` measures.
    static func child(steps: Int) throws {
        let path = freshPath("scale-\(steps).eventtree")
        var options = JournalOptions()
        options.capacity = 1 << 20
        let journal = try Journal(path: path, options: options)
        let node = flatNode(on: EventBus(recorder: journal))
        let writeSeconds = try timed {
            for index in 0..<(steps / 10) { node.raise(Ping(n: index)) }
            try journal.flush()
        }
        try journal.close()
        let bytes = Double(fileSize(path)) / Double(steps)
        let scan = try scanSteps(path)
        let replayer = try Replayer(journal: path)
        let events = try JournalReader(path: path).rows("SELECT event_id FROM j_events ORDER BY event_id").compactMap { $0.first?.int }
        var explain: [Double] = []
        for index in stride(from: 0, to: events.count, by: max(1, events.count / 20)) {
            explain.append(try timed { _ = try replayer.explain(event: EventID(rawValue: events[index]), node: "app") })
        }
        // `eventtree query` itself, on the second half of the journal.
        let silent = CommandTerminal(write: { _ in }, writeError: { _ in }, isColorful: false, showsProgress: false)
        let query = timed {
            _ = EventTreeCommand.run(
                ["query", path, "--type", "Ping", "--since", String(steps / 2), "--limit", "100", "--format", "csv"],
                terminal: silent)
        }
        // Full replay and its peak memory in a process of its own: this one's peak holds
        // the writer's buffer.
        let replay = try runChild(["--replay-child", path])
        print("steps=\(steps) write=\(Double(steps) / writeSeconds) bytes=\(bytes) scan=\(scan) explain=\(median(explain)) query=\(query) \(replay)")
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// In a child: replays the journal at `path` and prints its rate and this process's peak memory.
    static func replayChild(path: String) throws {
        let rate = try fullReplay(path)
        print("replay=\(rate) peak=\(peakMemoryKiB())")
    }

    /// Runs this executable with `arguments` and returns the last line it printed.
    static func runChild(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Runs a child per size and adds the scaling rows and the scaling target.
    static func run(exponents: ClosedRange<Int>, into report: inout Report) throws {
        var results: [Int: [String: Double]] = [:]
        for exponent in exponents {
            let steps = Int(pow(10, Double(exponent)))
            let line = try runChild(["--scaling-child", String(steps)])
            var values: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=")
                if parts.count == 2 { values[String(parts[0])] = Double(parts[1]) }
            }
            results[steps] = values
            report.scaling.append([
                si(Double(steps)), si(values["write"] ?? 0), String(format: "%.1f", values["bytes"] ?? 0),
                si(values["scan"] ?? 0), si(values["replay"] ?? 0), duration(values["explain"] ?? 0),
                duration(values["query"] ?? 0), String(format: "%.0f", (values["peak"] ?? 0) / 1024),
            ])
        }
        let sizes = results.keys.sorted()
        guard let largest = sizes.last, let reference = sizes.first(where: { $0 >= 100_000 }) ?? sizes.first,
            largest != reference, let big = results[largest], let small = results[reference]
        else {
            report.targets.append(.init(
                measure: "writer rows/s at 10⁷ steps vs 10⁵; peak memory", ours: "-", baseline: "-", ratio: "-",
                floor: "≥ 0.85×; ≤ 1.2×", target: "≥ 0.95×; explain ≤ 5 ms", status: "n/a (run with --scale 7)"))
            return
        }
        let speed = (big["write"] ?? 0) / (small["write"] ?? 1)
        let memory = (big["peak"] ?? 0) / max(small["peak"] ?? 1, 1)
        report.targets.append(.init(
            measure: "writer rows/s at \(si(Double(largest))) vs \(si(Double(reference))) steps; replay peak memory",
            ours: si(big["write"] ?? 0) + "; " + String(format: "%.0f MiB", (big["peak"] ?? 0) / 1024),
            baseline: si(small["write"] ?? 0) + "; " + String(format: "%.0f MiB", (small["peak"] ?? 0) / 1024),
            ratio: String(format: "%.2f×; %.2f×", speed, memory), floor: "≥ 0.85×; ≤ 1.2×",
            target: "≥ 0.95×; explain ≤ 5 ms", status: speed >= 0.85 && memory <= 1.2 ? "ok" : "MISS"))
    }
}
