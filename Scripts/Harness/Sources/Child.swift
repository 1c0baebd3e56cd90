import CEventTreeFaultVFS
import EventTree
import EventTreeJournal
import Foundation

struct Tick: Event {
    var thread: Int
    var n: Int
    var filler: String
}

struct Echo: Event {
    var n: Int
}

/// A process that journals from several threads with nested raises and tree changes, and
/// prints `ack ID NANOS` for every raise it may count on: in durable mode only raises whose
/// result is durable, in buffered mode every raise that returned.
///
/// Options: `--journal PATH --mode durable|buffered --threads N --seconds S --filler BYTES`
/// `--cut-at OP` (power cut at the OP-th I/O), `--fail-at OP --code full|ioerr --kinds 1|2|3`
/// `--heal-after-ms MS` (faults), `--max-raises N`, `--checkpoint-pages N`,
/// `--wait-for FILE` (after the writers stop, wait until FILE exists, then close).
struct Child {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let output = Output()
        if arguments.has("cut-at") || arguments.has("fail-at") {
            guard eventtree_faultvfs_install() == 0 else {
                output.line("error: cannot install the fault VFS")
                return 2
            }
            if arguments.has("cut-at") { eventtree_faultvfs_cut_power_at(Int64(arguments.int("cut-at", default: 1))) }
        }
        var options = JournalOptions()
        options.durability = arguments.string("mode", default: "durable") == "durable" ? .durable : .buffered
        options.checkpointPages = arguments.int("checkpoint-pages", default: 1_000)
        options.retryDelay = .milliseconds(20)
        options.durableTimeout = .milliseconds(arguments.int("durable-timeout-ms", default: 500))
        options.closeTimeout = .seconds(arguments.int("close-timeout", default: 10))
        options.onStatusChange = { status in
            switch status {
            case .healthy: output.line("status healthy")
            case .failing: output.line("status failing")
            case .closed(let unrecorded): output.line("status closed \(unrecorded)")
            }
        }
        let journal: Journal
        do {
            journal = try Journal(path: arguments.string("journal", default: "harness.eventtree"), options: options)
        } catch {
            output.line("error: \(error)")
            return 2
        }
        let operationsAtOpen = eventtree_faultvfs_operations()
        let bus = EventBus(recorder: journal, appVersion: "harness")
        let app = EventNode("app", bus: bus)
        app.on(Tick.self, label: "root") { _, _ in .handled }
        app.on(Echo.self, label: "echo") { _, _ in .handled }
        let threads = arguments.int("threads", default: 3)
        let branches = (0..<threads).map { index -> (EventNode, EventNode) in
            let branch = EventNode("t\(index)", parent: app)
            branch.on(Tick.self, label: "branch") { tick, context in
                // Every third tick raises a nested event: its records join this raise's.
                if tick.n % 3 == 0 { context.node?.raise(Echo(n: tick.n)) }
                return .handled
            }
            return (branch, EventNode("leaf", parent: branch))
        }
        let filler = String(repeating: "f", count: arguments.int("filler", default: 64))
        let deadline = Date().addingTimeInterval(Double(arguments.int("seconds-ms", default: arguments.int("seconds", default: 2) * 1000)) / 1000)
        let maxRaises = arguments.int("max-raises", default: Int.max)
        if arguments.has("fail-at") {
            let code: Int32 = arguments.string("code", default: "full") == "full" ? 13 : 10 | (3 << 8)  // SQLITE_FULL, SQLITE_IOERR_WRITE
            // Counted from the first operation after the journal opened.
            let first = operationsAtOpen + Int64(arguments.int("fail-at", default: 1))
            eventtree_faultvfs_fail_from(first, code, Int32(arguments.int("kinds", default: 3)))
            let heal = arguments.int("heal-after-ms", default: 200)
            Thread.detachNewThread {
                while eventtree_faultvfs_injected() == 0 && Date() < deadline { usleep(1_000) }
                usleep(UInt32(heal * 1000))
                eventtree_faultvfs_heal()
                output.line("healed after \(eventtree_faultvfs_injected()) injected faults")
            }
        }
        let isDurable = options.durability == .durable
        output.line("ready")
        let stopFile = arguments.has("wait-for") ? arguments.string("wait-for", default: "") : nil
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            let (branch, leaf) = branches[index]
            var n = 0
            while Date() < deadline && n < maxRaises {
                if let stopFile, n % 16 == 0, FileManager.default.fileExists(atPath: stopFile) { break }
                if n % 40 == 39 {
                    // A tree change: a node created, renamed and released.
                    let temporary = EventNode("tmp\(n)", parent: branch)
                    temporary.rename(to: "gone\(n)")
                    temporary.release()
                }
                let result = leaf.raise(Tick(thread: index, n: n, filler: filler))
                if !isDurable || result.isDurable {
                    output.line("ack \(result.eventID.rawValue) \(monotonicNow())")
                }
                n += 1
            }
        }
        if arguments.has("wait-for") {
            let file = arguments.string("wait-for", default: "")
            output.line("waiting")
            while !FileManager.default.fileExists(atPath: file) { usleep(10_000) }
        }
        bus.end()
        do {
            try journal.close()
            output.line("closed ok")
            if arguments.has("fail-at") { output.line("operations \(eventtree_faultvfs_operations() - operationsAtOpen)") }
        } catch {
            output.line("closed error: \(error)")
        }
        return 0
    }
}

/// Lines to standard output, whole and in order across threads, never buffered (a kill
/// must not lose a line that was "printed").
final class Output: @unchecked Sendable {
    // Safe: `write` is serialized by `lock`.
    private let lock = NSLock()

    func line(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        lock.withLock {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Foundation.write(1, $0.baseAddress, $0.count) }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the machine.
func monotonicNow() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
}
