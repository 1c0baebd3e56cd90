import Foundation

/// SQLITE_FULL and SQLITE_IOERR_WRITE injected from each write and each sync of a short
/// durable run on (every operation from there on fails), healed 100 ms later. The error must reach the app (a `failing` status),
/// the run must end with a clean close, nothing acknowledged may be missing, and the gap
/// must be journaled (a `write-failed` row in journal_trouble).
struct FaultTrials {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let threads = arguments.int("threads", default: 1)
        let raises = arguments.int("raises", default: 12)
        let workload = [
            "--mode", "durable", "--threads", "\(threads)", "--max-raises", "\(raises)", "--seconds", "20",
            "--checkpoint-pages", "4",
        ]
        // A run without faults counts the operations; then a fault starts at each of them.
        let operations = calibrate(workload)
        guard operations > 0 else {
            print("faults: the calibration run failed")
            return 1
        }
        var tally = Tally(name: "faults")
        var injectedTotal = 0
        for code in ["full", "ioerr"] {
            for kinds in [3] {
                for operation in 1...operations {
                    let directory = temporaryDirectory("faults")
                    defer { cleanUp(directory) }
                    let path = directory + "/faults.eventtree"
                    var problems: [String] = []
                    do {
                        let child = try ChildRun(["--journal", path] + workload + [
                            "--fail-at", "\(operation)", "--code", code, "--kinds", "\(kinds)", "--heal-after-ms", "100",
                        ])
                        let status = child.wait()
                        let output = child.output
                        let injected = output.first { $0.hasPrefix("healed after ") }
                            .flatMap { Int($0.split(separator: " ")[2]) } ?? 0
                        injectedTotal += injected
                        if status != 0 { problems.append("the child exited with \(status): \(output.suffix(2))") }
                        if !output.contains("closed ok") {
                            problems.append("close did not succeed: \(output.last { $0.hasPrefix("closed") } ?? "no close")")
                        }
                        if injected > 0 {
                            if !output.contains("status failing") { problems.append("the failure never reached the app") }
                            if output.last(where: { $0.hasPrefix("status") }) != "status closed 0" {
                                problems.append("the last status was \(output.last { $0.hasPrefix("status") } ?? "none")")
                            }
                        }
                        let check = JournalCheck(path: path, acknowledged: child.acknowledged)
                        problems += check.problems
                        if injected > 0 && check.isClean {
                            let reader = try JournalCheckReader(path: path)
                            if try reader.count("SELECT count(*) FROM journal_trouble WHERE kind = 'write-failed'") < 1 {
                                problems.append("the gap was not journaled")
                            }
                        }
                    } catch {
                        problems.append("\(error)")
                    }
                    tally.record("\(code) from operation \(operation) of \(operations)", problems)
                }
            }
        }
        print("faults: a fault started at each of the \(operations) writes and syncs of the run, twice (SQLITE_FULL, SQLITE_IOERR_WRITE); \(injectedTotal) injected failures in all")
        return tally.finish()
    }

    /// The number of counted operations in a run of `workload` without faults.
    private func calibrate(_ workload: [String]) -> Int {
        let directory = temporaryDirectory("faults")
        defer { cleanUp(directory) }
        guard let child = try? ChildRun(["--journal", directory + "/calibrate.eventtree"] + workload + ["--fail-at", "1000000000"]) else {
            return 0
        }
        _ = child.wait()
        return child.output.first { $0.hasPrefix("operations ") }.flatMap { Int($0.dropFirst(11)) } ?? 0
    }
}
