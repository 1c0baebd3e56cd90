import Foundation

/// Power cuts: the child's fault VFS undoes every unsynced write at a random I/O operation
/// and ends the process. Durable: nothing acknowledged may be missing; both modes: the
/// journal must be clean.
struct PowerTrials {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let mode = arguments.string("mode", default: "durable")
        let trials = arguments.int("trials", default: 20)
        let maxOperation = arguments.int("max-operation", default: 1_500)
        var tally = Tally(name: "power loss (\(mode))")
        var cuts = 0
        var acknowledged = 0
        var missing = 0
        for trial in 1...trials {
            let directory = temporaryDirectory("power")
            defer { cleanUp(directory) }
            let path = directory + "/power.eventtree"
            let operation = Int.random(in: 1...maxOperation)
            var problems: [String] = []
            do {
                // Small checkpoints, so that cuts also fall during and after WAL checkpoints.
                let child = try ChildRun([
                    "--journal", path, "--mode", mode, "--threads", "3", "--seconds-ms", "1500",
                    "--cut-at", "\(operation)", "--checkpoint-pages", "8", "--filler", "200",
                ])
                let status = child.wait()
                if status == 99 { cuts += 1 }
                let acks = child.acknowledged
                acknowledged += acks.count
                if !FileManager.default.fileExists(atPath: path) {
                    // Cut before the journal file existed: nothing was acknowledged.
                    if !acks.isEmpty { problems.append("no journal, but \(acks.count) acknowledged") }
                } else {
                    let check = JournalCheck(path: path, acknowledged: acks, requireAcknowledged: mode == "durable")
                    missing += check.missing.count
                    problems += check.problems
                }
                if status != 99 && status != 0 { problems.append("the child exited with \(status): \(child.output.suffix(2))") }
            } catch {
                problems.append("\(error)")
            }
            if !problems.isEmpty, arguments.has("keep") {
                // Keep the failing journal for a closer look.
                let kept = arguments.string("keep", default: "/tmp") + "/power-\(trial)"
                try? FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                    try? FileManager.default.copyItem(atPath: directory + "/" + file, toPath: kept + "/" + file)
                }
            }
            tally.record("#\(trial) (cut at operation \(operation))", problems)
        }
        print("power loss (\(mode)): \(cuts) of \(trials) trials cut, \(acknowledged) acknowledged raises, \(missing) of them missing afterwards")
        return tally.finish()
    }
}
