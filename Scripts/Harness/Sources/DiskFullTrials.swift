import Foundation

/// A real full filesystem: `--dir` must be a small filesystem of its own (the script mounts
/// a tmpfs). A ballast file leaves a little room; a durable child writes until the disk is
/// full, then either is killed (`kill`: nothing reported durable may be missing) or the
/// ballast is deleted and the child closes cleanly (`free`: nothing acknowledged may be
/// missing, and the gap is journaled).
struct DiskFullTrials {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let directory = arguments.string("dir", default: "")
        let trials = arguments.int("trials", default: 3)
        var tally = Tally(name: "disk full")
        guard !directory.isEmpty, FileManager.default.fileExists(atPath: directory) else {
            print("disk full: --dir must name a small filesystem")
            return 2
        }
        for variant in ["kill", "free"] {
            for trial in 1...trials {
                for item in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                    try? FileManager.default.removeItem(atPath: directory + "/" + item)
                }
                var problems: [String] = []
                let path = directory + "/full.eventtree"
                let release = directory + "/release"
                do {
                    try fillLeaving(bytes: arguments.int("headroom-kb", default: 200) * 1024, in: directory)
                    let child = try ChildRun([
                        "--journal", path, "--mode", "durable", "--threads", "2", "--seconds", "60",
                        "--filler", "2000", "--wait-for", release, "--durable-timeout-ms", "200",
                    ])
                    if child.waitFor("status failing", seconds: 30) == nil {
                        problems.append("the disk never filled: \(child.output.suffix(2))")
                        _ = child.kill()
                    } else {
                        usleep(500_000)
                        if variant == "kill" {
                            _ = child.kill()
                        } else {
                            try FileManager.default.removeItem(atPath: directory + "/ballast")
                            _ = FileManager.default.createFile(atPath: release, contents: Data())
                        }
                    }
                    let status = child.wait()
                    let acks = child.acknowledged
                    // The app's next start finds room again: the check reopens the journal to
                    // chain the tail the killed writer could not (a full disk leaves it unproven).
                    if variant == "kill" { try? FileManager.default.removeItem(atPath: directory + "/ballast") }
                    if variant == "free" {
                        if status != 0 || !child.output.contains("closed ok") {
                            problems.append("no clean close after freeing space: \(child.output.suffix(2))")
                        }
                    }
                    let check = JournalCheck(path: path, acknowledged: acks)
                    problems += check.problems
                    if variant == "free" && check.isClean {
                        let reader = try JournalCheckReader(path: path)
                        if try reader.count("SELECT count(*) FROM journal_trouble WHERE kind = 'write-failed'") < 1 {
                            problems.append("the gap was not journaled")
                        }
                    }
                    let notDurable = child.output.count { $0.hasPrefix("status failing") }
                    print("disk full (\(variant)) #\(trial): \(acks.count) raises reported durable, \(check.missing.count) missing, failing \(notDurable)x")
                } catch {
                    problems.append("\(error)")
                }
                tally.record("\(variant) #\(trial)", problems)
            }
        }
        return tally.finish()
    }

    /// Writes `directory/ballast` until only `bytes` remain free.
    private func fillLeaving(bytes: Int, in directory: String) throws {
        let attributes = try FileManager.default.attributesOfFileSystem(forPath: directory)
        let free = (attributes[.systemFreeSize] as? NSNumber)?.intValue ?? 0
        let size = max(0, free - bytes)
        _ = FileManager.default.createFile(atPath: directory + "/ballast", contents: Data(count: size))
    }
}
