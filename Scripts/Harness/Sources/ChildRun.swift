import Foundation

/// A child process of this harness, its output read line by line as it comes.
final class ChildRun: @unchecked Sendable {
    // Safe: the mutable state is guarded by `lock`; `process` is used from the creating thread.
    private let process = Process()
    private let lock = NSCondition()
    private var lines: [String] = []
    private var isFinished = false
    private(set) var startedAt = 0

    /// Starts `eventtree-harness child ARGUMENTS`.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        process.arguments = ["child"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let reader = pipe.fileHandleForReading
        startedAt = monotonicNow()
        try process.run()
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lock.withLock {
                        lines.append(line)
                        lock.broadcast()
                    }
                }
            }
            lock.withLock {
                isFinished = true
                lock.broadcast()
            }
        }
    }

    /// Waits until a line starting with `prefix` arrives (or the output ends, or `seconds` pass).
    @discardableResult
    func waitFor(_ prefix: String, seconds: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        return lock.withLock {
            while true {
                if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
                if isFinished || !lock.wait(until: deadline) { return nil }
            }
        }
    }

    /// Sends SIGKILL; returns the monotonic time of the kill.
    func kill() -> Int {
        let now = monotonicNow()
        Foundation.kill(process.processIdentifier, SIGKILL)
        return now
    }

    /// Waits for the process and for the end of its output; returns its exit status.
    func wait(seconds: Double = 120) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        lock.withLock {
            while !isFinished { lock.wait() }
        }
        return process.terminationStatus
    }

    /// Every line so far.
    var output: [String] { lock.withLock { lines } }

    /// The acknowledged raises: event id → monotonic time of the acknowledgement.
    var acknowledged: [Int: Int] {
        var acks: [Int: Int] = [:]
        for line in output where line.hasPrefix("ack ") {
            let parts = line.split(separator: " ")
            if parts.count == 3, let id = Int(parts[1]), let time = Int(parts[2]) { acks[id] = time }
        }
        return acks
    }
}
