import Foundation

/// Every workload with every recorder, counted in instructions instead of timed: the
/// marginal instructions of one raise (the whole process, the journal's writer thread
/// included), from two runs under callgrind. Unlike the workload times, the counts repeat
/// from run to run and from machine to machine, so two builds (before and after a change)
/// compare row by row: `--save` keeps a run's counts, `--compare` prints them beside this
/// run's and flags every row that got more than 10 % more expensive.
///
/// The journal rows repeat less exactly than the others (to about a percent): how many
/// transactions and checkpoints the writer makes depends on how the threads ran.
enum WorkloadInstructions {
    /// One workload with one recorder.
    struct Row {
        let workload: String
        let recorder: String
        let calls: Int
        /// Marginal instructions per raise.
        let perRaise: Double
    }

    /// The rows more expensive than their counterpart in a saved run by more than this.
    static let tolerance = 1.10

    /// The profile name of a workload and recorder, for `--instructions-child`.
    static func profile(workload: Int, recorder: Int, calls: Int) -> String {
        "workload:\(workload):\(recorder):\(calls)"
    }

    /// Runs a workload profile (`workload:W:R:C`) `count` times, in the child process.
    /// - Returns: Whether `name` is such a profile.
    static func runProfile(_ name: String, count: Int) throws -> Bool {
        let parts = name.split(separator: ":")
        guard parts.count == 4, parts[0] == "workload", let index = Int(parts[1]), let recorder = Int(parts[2]),
            let calls = Int(parts[3]), Workload.all.indices.contains(index), Workload.recorders.indices.contains(recorder)
        else { return false }
        let (bus, journal) = try Workload.bus(recording: Workload.recorders[recorder], raises: count, calls: calls)
        let (raise, keep) = Workload.all[index].build(bus)
        for index in 0..<count { raise(index) }
        try journal?.close()
        withExtendedLifetime(keep) {}
        return true
    }

    /// Counts every workload with every recorder, two callgrind runs at a time (one per
    /// core), at about 4,000 and 12,000 handler calls (at least 4 and 12 raises).
    static func measure(executable: String) throws -> [Row] {
        struct Job {
            let workload: Int
            let recorder: Int
            let calls: Int
        }
        let jobs = Workload.all.enumerated().flatMap { index, workload in
            let calls = workload.callsPerRaise()
            return Workload.recorders.indices.map { Job(workload: index, recorder: $0, calls: calls) }
        }
        let results = Results(count: jobs.count)
        let next = Results.Counter()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while let position = next.take(below: jobs.count) {
                let job = jobs[position]
                let profile = profile(workload: job.workload, recorder: job.recorder, calls: job.calls)
                let few = max(4, 4_000 / job.calls)
                let value = Result {
                    let small = try Instructions.count(executable, profile, few, false)
                    let large = try Instructions.count(executable, profile, 3 * few, false)
                    return Double(large - small) / Double(2 * few)
                }
                results.set(position, value)
            }
        }
        return try jobs.enumerated().map { position, job in
            Row(workload: Workload.all[job.workload].name, recorder: Workload.recorders[job.recorder], calls: job.calls,
                perRaise: try results.value(at: position).get())
        }
    }

    /// The rows as tab-separated lines (workload, recorder, calls, instructions per raise).
    static func saved(_ rows: [Row]) -> String {
        rows.map { "\($0.workload)\t\($0.recorder)\t\($0.calls)\t\(String(format: "%.1f", $0.perRaise))\n" }.joined()
    }

    /// Instructions per raise of a saved run, by workload and recorder.
    static func load(_ path: String) throws -> [String: Double] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError.failed("cannot read \(path): give a file that --save wrote")
        }
        var counts: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, let value = Double(fields[3]) else {
                throw BenchError.failed("\(path) is not a file --save wrote: bad line '\(line)'")
            }
            counts[fields[0] + "\t" + fields[1]] = value
        }
        return counts
    }

    /// The report rows: each count, and beside it the saved run's when there is one.
    static func reportRows(_ rows: [Row], before: [String: Double]?) -> [[String]] {
        rows.map { row in
            var fields = [
                row.workload, row.recorder, String(row.calls), String(format: "%.0f", row.perRaise),
                String(format: "%.0f", row.perRaise / Double(row.calls)),
            ]
            if let before {
                if let old = before[row.workload + "\t" + row.recorder], old > 0 {
                    let ratio = row.perRaise / old
                    fields += [
                        String(format: "%.0f", old), String(format: "%.2f×", ratio),
                        ratio > tolerance ? "more than 10 % more" : "ok",
                    ]
                } else {
                    fields += ["-", "-", "new"]
                }
            }
            return fields
        }
    }
}

/// Results filled in by concurrent jobs, each at its own position.
private final class Results: @unchecked Sendable {
    // Safe: `values` is guarded by `lock`.
    private let lock = NSLock()
    private var values: [Result<Double, any Error>?]

    init(count: Int) {
        values = Array(repeating: nil, count: count)
    }

    func set(_ position: Int, _ value: Result<Double, any Error>) {
        lock.withLock { values[position] = value }
    }

    func value(at position: Int) -> Result<Double, any Error> {
        lock.withLock { values[position] } ?? .failure(BenchError.failed("job \(position) did not run"))
    }

    /// Hands out positions 0, 1, 2… to concurrent jobs.
    final class Counter: @unchecked Sendable {
        // Safe: `next` is guarded by `lock`.
        private let lock = NSLock()
        private var next = 0

        /// The next position, or `nil` once `limit` are handed out.
        func take(below limit: Int) -> Int? {
            lock.withLock {
                guard next < limit else { return nil }
                defer { next += 1 }
                return next
            }
        }
    }
}
