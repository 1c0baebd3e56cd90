import Foundation

/// kill -9 of a child journaling from several threads, at a random moment.
///
/// Durable: no acknowledged raise may be missing. Buffered: the acknowledged raises lost
/// are counted (events and milliseconds before the kill) against the documented bound.
/// Every journal must be clean (see ``JournalCheck``).
struct KillTrials {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let mode = arguments.string("mode", default: "durable")
        let trials = arguments.int("trials", default: 20)
        var tally = Tally(name: "kill -9 (\(mode))")
        var lostEvents: [Int] = []
        var lostMilliseconds: [Int] = []
        var acknowledged = 0
        for trial in 1...trials {
            let directory = temporaryDirectory("kill")
            defer { cleanUp(directory) }
            let path = directory + "/kill.eventtree"
            var problems: [String] = []
            do {
                let child = try ChildRun([
                    "--journal", path, "--mode", mode, "--threads", "3", "--seconds", "30",
                    "--checkpoint-pages", "64",
                ])
                guard child.waitFor("ready") != nil else {
                    tally.record("#\(trial)", ["the child did not start: \(child.output.suffix(3))"])
                    continue
                }
                usleep(UInt32.random(in: 10_000...250_000))
                let killedAt = child.kill()
                _ = child.wait()
                let acks = child.acknowledged
                acknowledged += acks.count
                let check = JournalCheck(path: path, acknowledged: acks, requireAcknowledged: mode == "durable")
                problems += check.problems
                if mode == "buffered" {
                    lostEvents.append(check.missing.count)
                    let oldest = check.missing.compactMap { acks[$0] }.min()
                    lostMilliseconds.append(oldest.map { (killedAt - $0) / 1_000_000 } ?? 0)
                }
            } catch {
                problems.append("\(error)")
            }
            tally.record("#\(trial)", problems)
        }
        print("kill -9 (\(mode)): \(acknowledged) acknowledged raises over \(trials) trials")
        if mode == "buffered" {
            print("kill -9 (buffered): acknowledged raises lost per kill p50 \(percentile(lostEvents, 50)), p99 \(percentile(lostEvents, 99)), max \(lostEvents.max() ?? 0); the oldest lost was acknowledged p50 \(percentile(lostMilliseconds, 50)) ms, p99 \(percentile(lostMilliseconds, 99)) ms, max \(lostMilliseconds.max() ?? 0) ms before the kill")
        }
        return tally.finish()
    }
}
