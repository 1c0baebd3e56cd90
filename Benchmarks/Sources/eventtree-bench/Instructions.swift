import EventTree
import EventTreeJournal
import Foundation

/// Marginal instruction counts per raise or per call, measured with callgrind: each case
/// runs in a child process at two iteration counts, and the difference of the two totals
/// divided by the extra iterations is what one more iteration costs. Instruction counts
/// repeat to 0.01 % from run to run (unlike wall time on a shared machine), so CI checks
/// them against floors.
enum Instructions {
    /// One measured case: what it runs, how its marginal count is divided, and its floor.
    struct Case {
        let name: String
        let profile: String
        /// Handler calls (or route nodes) per iteration, to turn per-raise into per-call.
        let divisor: Int
        /// Count the raising (main) thread only, rather than the whole process.
        let raisingThreadOnly: Bool
        let floor: Double
        let target: Double
        /// What CI holds the count to until the floor is reached: the last measured count
        /// plus 15 %, so that the hot path can only get cheaper; once the floor is met, the
        /// floor itself.
        let guardLimit: Double

        /// The two iteration counts whose difference is measured. A journal's are well past
        /// its warm-up: until the batches in flight while raises outpace the writer (two
        /// backlogs' worth, 2,731 of them here) have all been made once, a raise may have to
        /// make its batch, and when the writer's thread fell furthest behind is up to how
        /// callgrind schedules the two threads. Measured at 8,000 and 18,000 raises, the
        /// raising thread's count moved by up to 13 instructions a call from run to run; at
        /// 20,000 and 40,000 it moves less (see ``repeats``).
        var iterations: (few: Int, many: Int) { profile.hasPrefix("journal") ? (20_000, 40_000) : (2_000, 12_000) }

        /// How many times the case is measured; the median is reported. A journaled raise
        /// is measured three times: its one allocation (the `RaisedEvent`) is freed on the
        /// writer's thread, so how often malloc finds a freed block ready depends on how
        /// callgrind interleaved the two threads (one build measured its raising thread at
        /// 387, 394 and 400 in three runs), and where the writer's batches end moves the
        /// whole process's count by up to about 15 a call. (The other counts repeat to 0.01 %.)
        var repeats: Int { profile.hasPrefix("journal") ? 3 : 1 }
    }

    static let cases: [Case] = [
        Case(name: "per handler call, one node x 10 handlers, no recorder", profile: "delivery", divisor: 10,
             raisingThreadOnly: false, floor: 250, target: 125, guardLimit: 250),
        Case(name: "per raise, one node x 1 handler, no recorder", profile: "delivery1", divisor: 1,
             raisingThreadOnly: false, floor: 1_500, target: 700, guardLimit: 1_500),
        Case(name: "per node on the route without a matching handler", profile: "chain", divisor: 32,
             raisingThreadOnly: false, floor: 40, target: 15, guardLimit: 40),
        Case(name: "per handler call, 10 handlers, journal on, raising thread", profile: "journal", divisor: 10,
             raisingThreadOnly: true, floor: 400, target: 200, guardLimit: 400),
        Case(name: "per handler call, 10 handlers, journal on, whole process", profile: "journal", divisor: 10,
             raisingThreadOnly: false, floor: 3_000, target: 1_700, guardLimit: 3_000),
        // The same journal with `chainsRecords = false`: the difference to the case above is
        // what the hash chain costs under callgrind (whose CPU has no SHA instructions, so
        // SHA-256 runs its vector code), and the floor holds for everything else.
        Case(name: "per handler call, 10 handlers, journal without hash chain, whole process", profile: "journal-unchained",
             divisor: 10, raisingThreadOnly: false, floor: 3_000, target: 1_700, guardLimit: 3_000),
    ]

    /// Runs the profile `name` `count` times (in the child process).
    static func runProfile(_ name: String, count: Int) throws {
        switch name {
        case "delivery":
            let node = flatNode(on: EventBus())
            for index in 0..<count { node.raise(Ping(n: index)) }
        case "delivery1":
            let node = flatNode(on: EventBus(), handlers: 1)
            for index in 0..<count { node.raise(Ping(n: index)) }
        case "chain", "chain-short":
            // A chain of 33 nodes (or 1) with a handler at the root only, raised at the leaf:
            // the difference between the two is 32 nodes without a matching handler.
            let bus = EventBus()
            let root = EventNode("root", bus: bus)
            root.on(Ping.self, label: "root") { _, _ in .handled }
            var leaf = root
            var nodes = [root]
            for index in 0..<(name == "chain" ? 32 : 0) {
                leaf = EventNode("n\(index)", parent: leaf)
                nodes.append(leaf)
            }
            for index in 0..<count { leaf.raise(Ping(n: index)) }
            withExtendedLifetime(nodes) {}
        case "journal", "journal1", "journal-unchained":
            var options = JournalOptions()
            options.chainsRecords = name != "journal-unchained"
            // Batches closed by count, not by the 50 ms delay: under callgrind wall time runs
            // some fifty times slower, and batches closed by time varied in size from run to
            // run, moving the whole process's count (commits, checkpoints) by up to 30 a call.
            options.maxDelay = .seconds(3_600)
            let journal = try Journal(path: freshPath("instructions.eventtree"), options: options)
            let node = flatNode(on: EventBus(recorder: journal), handlers: name == "journal1" ? 1 : 10)
            for index in 0..<count { node.raise(Ping(n: index)) }
            // The writer thread writes what is still pending: closing at once would have this
            // (the raising) thread write it, by an amount that varies from run to run.
            try journal.flush()
            try journal.close()
        default:
            if try !WorkloadInstructions.runProfile(name, count: count) { print("unknown profile \(name)") }
        }
    }

    /// Measures every case under callgrind and adds the results to `report`.
    static func measure(into report: inout Report) throws {
        let stripped = try strippedExecutable()
        for item in cases {
            let (small, large) = item.iterations
            // The chain case subtracts a one-node chain, so that only the 32 extra nodes count.
            let baseline = item.profile == "chain" ? "chain-short" : item.profile
            let few = try count(stripped, item.profile, small, item.raisingThreadOnly)
            let many = try count(stripped, item.profile == "chain" ? baseline : item.profile, large, item.raisingThreadOnly)
            let marginal: Double
            if item.profile == "chain" {
                let long = try count(stripped, "chain", large, false)
                marginal = Double(long - many) / Double(large) / Double(item.divisor)
                _ = few
            } else {
                var marginals = [Double(many - few) / Double(large - small) / Double(item.divisor)]
                for _ in 1..<item.repeats {
                    let few = try count(stripped, item.profile, small, item.raisingThreadOnly)
                    let many = try count(stripped, item.profile, large, item.raisingThreadOnly)
                    marginals.append(Double(many - few) / Double(large - small) / Double(item.divisor))
                }
                marginal = marginals.sorted()[marginals.count / 2]
            }
            report.instructions.append(.init(
                name: item.name, value: marginal, floor: item.floor, target: item.target, guardLimit: item.guardLimit))
        }
    }

    /// A copy of this executable without debug information, for callgrind: valgrind 3.19
    /// cannot read the DWARF 5 the toolchain writes.
    static func strippedExecutable() throws -> String {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let stripped = freshPath("eventtree-bench-stripped")
        try? FileManager.default.removeItem(atPath: stripped)
        try FileManager.default.copyItem(atPath: executable, toPath: stripped)
        _ = run("/usr/bin/strip", ["--strip-debug", stripped])
        return stripped
    }

    /// Total instructions of one run (the main thread's alone when asked).
    static func count(_ executable: String, _ profile: String, _ iterations: Int, _ mainThreadOnly: Bool) throws -> Int {
        let output = freshPath("callgrind-\(profile)-\(iterations).out")
        let status = run("/usr/bin/valgrind", [
            "--tool=callgrind", "--separate-threads=yes", "--callgrind-out-file=\(output)",
            executable, "--instructions-child", profile, "--count", "\(iterations)",
        ])
        guard status == 0 else { throw BenchError.failed("valgrind exited with \(status) for \(profile)") }
        let directory = (output as NSString).deletingLastPathComponent
        let base = (output as NSString).lastPathComponent
        var total = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasPrefix(base) {
            // With --separate-threads, thread 1 (the main thread) is the file ending in -01.
            if mainThreadOnly && !file.hasSuffix("-01") { continue }
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }) {
                total += Int(line.split(separator: " ").last ?? "0") ?? 0
            }
            try? FileManager.default.removeItem(atPath: directory + "/" + file)
        }
        return total
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

enum BenchError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let message): message
        }
    }
}
