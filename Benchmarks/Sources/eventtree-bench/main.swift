// eventtree-bench: EventTree side by side with what users would use instead, in one run.
//
//   swift run -c release --package-path Benchmarks eventtree-bench            full run (~10 min)
//   swift run -c release --package-path Benchmarks eventtree-bench --quick    smoke pass (CI)
//   … --filter writer       only the measures whose name contains "writer"
//   … --scale 7             scaling up to 10⁷ steps (by hand: takes minutes and ~1 GB of disk)
//   … --commands [--scale 7] the tool's commands on demo journals of 10⁵ raises and up (by hand)
//   … --shapes              tree shapes that must stay linear, at two sizes (by hand)
//   … --instructions        marginal instruction counts under callgrind, checked against floors
//   … --instructions --workloads [--save FILE] [--compare FILE]
//                           and every workload's, kept in FILE or compared with a kept run (~10 min)
import CBenchSupport
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

if let path = option("--replay-child") {
    try Scaling.replayChild(path: path)
    exit(0)
}
if let steps = option("--scaling-child").flatMap(Int.init) {
    try Scaling.child(steps: steps)
    exit(0)
}

if let index = arguments.firstIndex(of: "--command-child") {
    CommandScaling.child(Array(arguments[(index + 1)...]))
    exit(0)
}
if arguments.contains("--commands") {
    print(machineLine())
    try CommandScaling.run(exponents: 5...max(5, option("--scale").flatMap(Int.init) ?? 6))
    try? FileManager.default.removeItem(atPath: scratch)
    exit(0)
}

if arguments.contains("--shapes") {
    try Shapes.run()
    try? FileManager.default.removeItem(atPath: scratch)
    exit(0)
}

if let profile = option("--instructions-child") {
    try Instructions.runProfile(profile, count: option("--count").flatMap(Int.init) ?? 1_000)
    exit(0)
}
if arguments.contains("--instructions") {
    // The saved run is read first: a bad file is reported before minutes of counting.
    let before: [String: Double]?
    do {
        before = try option("--compare").map(WorkloadInstructions.load)
    } catch {
        print("error: \(error)")
        exit(1)
    }
    var report = Report()
    try Instructions.measure(into: &report)
    if arguments.contains("--workloads") {
        let rows = try WorkloadInstructions.measure(executable: try Instructions.strippedExecutable())
        report.workloadInstructions = WorkloadInstructions.reportRows(rows, before: before)
        report.comparesWorkloadInstructions = before != nil
        if let path = option("--save") { try WorkloadInstructions.saved(rows).write(toFile: path, atomically: true, encoding: .utf8) }
    }
    print(report.printed())
    // CI fails when a count rises above its guard (the hot path got more expensive);
    // counts between the floor and the guard are reported as MISS, not failed.
    let failures = report.instructions.filter { $0.value > $0.guardLimit }
    if !failures.isEmpty {
        print("instruction counts above their CI guard:\n" + failures.map { "  \($0.name): \(Int($0.value)) > \(Int($0.guardLimit))" }.joined(separator: "\n"))
        exit(1)
    }
    exit(0)
}

// Profiling hooks: one workload in a loop, for valgrind --tool=callgrind.
if let what = option("--profile") {
    let count = option("--count").flatMap(Int.init) ?? 100_000
    switch what {
    case "recorded":
        let node = flatNode(on: EventBus(recorder: BatchRecorder()))
        for index in 0..<count { node.raise(Ping(n: index)) }
    case "memory":
        let node = flatNode(on: EventBus(recorder: TraceRecorder()))
        for index in 0..<count { node.raise(Ping(n: index)) }
    case "writer", "writer-unchained":
        // (Unchained: what the hash chain costs the writer is the difference.)
        var options = JournalOptions()
        options.chainsRecords = what == "writer"
        let batches = recordedBatches(steps: count * 10)
        _ = try writeBatches(batches, to: freshPath("profile.eventtree"), options: options)
    case "raw":
        _ = bench_raw_insert(freshPath("raw-profile.sqlite"), Int64(count * 10), 10_000, 0, nil)
    case "replay":
        let path = freshPath("profile-replay.eventtree")
        _ = try writeBatches(recordedBatches(steps: count * 10), to: path)
        _ = try fullReplay(path)
    default:
        // The cases the instruction counts measure (delivery, delivery1, chain, journal), and
        // journal1 (the journaled raise with one handler: with journal, a raise's fixed cost
        // and a call's).
        try Instructions.runProfile(what, count: count)
    }
    exit(0)
}

let quick = arguments.contains("--quick")
let filter = option("--filter")
let maxExponent = option("--scale").flatMap(Int.init) ?? (quick ? 4 : 6)
print(machineLine())
print(quick ? "mode: --quick (smoke pass: few rounds, small sizes; ratios are indicative only)" : "mode: full")

var targets = Targets(rounds: quick ? 2 : 5, steps: quick ? 20_000 : 200_000, report: Report())
try targets.runAll(filter: filter)
var report = targets.report

if filter == nil || "workloads".localizedCaseInsensitiveContains(filter!) {
    for workload in Workload.all where !quick || workload.name.hasPrefix("flat") || workload.name.hasPrefix("chain 8 ") {
        try workload.measure(budget: quick ? 2_000 : 100_000, rounds: quick ? 1 : 3, into: &report)
    }
}
if filter == nil || "scaling".localizedCaseInsensitiveContains(filter!) {
    try Scaling.run(exponents: (quick ? 3 : 4)...maxExponent, into: &report)
}

print(report.printed())
try? FileManager.default.removeItem(atPath: scratch)
if !report.countFailures.isEmpty {
    print("deterministic counts out of bounds:\n" + report.countFailures.map { "  " + $0 }.joined(separator: "\n"))
    exit(1)
}
