import Foundation

/// Readers beside a writer: `eventtree tail --follow` and a Python `sqlite3` reader run
/// while a buffered child journals from several threads. No reader may see SQLITE_BUSY or
/// half an event, the tail must print every committed row exactly once, and the WAL must
/// stay bounded.
struct ReaderTrials {
    let arguments: Arguments

    init(_ arguments: Arguments) { self.arguments = arguments }

    func run() -> Int32 {
        let seconds = arguments.int("seconds", default: 10)
        let tool = arguments.string("tool", default: "")
        var tally = Tally(name: "readers beside a writer")
        let directory = temporaryDirectory("readers")
        defer { cleanUp(directory) }
        let path = directory + "/readers.eventtree"
        var problems: [String] = []
        do {
            let child = try ChildRun([
                "--journal", path, "--mode", "buffered", "--threads", "3", "--seconds", "\(seconds)", "--filler", "64",
            ])
            guard child.waitFor("ready") != nil else {
                print("readers: the child did not start")
                return 1
            }
            let tail = Process()
            tail.executableURL = URL(fileURLWithPath: tool)
            tail.arguments = ["tail", path, "--follow", "--format", "csv", "--seconds", "\(seconds + 120)"]
            let tailOutput = directory + "/tail.csv"
            _ = FileManager.default.createFile(atPath: tailOutput, contents: nil)
            tail.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: tailOutput))
            try tail.run()
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", Self.pythonReader, path, "\(seconds)"]
            let pythonPipe = Pipe()
            python.standardOutput = pythonPipe
            try python.run()
            var largestWAL = 0
            while child.output.last.map({ !$0.hasPrefix("closed") && !$0.hasPrefix("status closed") }) ?? true,
                monotonicNow() - child.startedAt < (seconds + 30) * 1_000_000_000
            {
                let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
                largestWAL = max(largestWAL, size)
                usleep(20_000)
            }
            _ = child.wait()
            python.waitUntilExit()
            // Let the tail catch up with the last committed row (it may lag, never skip).
            let last = try JournalCheckReader(path: path).count("SELECT max(seq) FROM delivery_history")
            let caughtUp = Date().addingTimeInterval(90)
            while tail.isRunning && Date() < caughtUp {
                let text = (try? String(contentsOfFile: tailOutput, encoding: .utf8)) ?? ""
                if text.contains("\n\(last),") { break }
                usleep(200_000)
            }
            if tail.isRunning { tail.terminate() }
            tail.waitUntilExit()
            let report = String(decoding: pythonPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            print("readers: python \(report.trimmingCharacters(in: .whitespacesAndNewlines))")
            if !report.contains("busy=0 torn=0") { problems.append("python reader: \(report)") }
            let printed = (try String(contentsOfFile: tailOutput, encoding: .utf8)).split(separator: "\n").dropFirst()
                .compactMap { Int($0.prefix { $0 != "," }) }
            let reader = try JournalCheckReader(path: path)
            var committed: [Int] = []
            try reader.reader.forEachRow("SELECT seq FROM delivery_history ORDER BY seq") { committed.append($0.int(0)) }
            let printedSet = Set(printed)
            let skipped = committed.filter { !printedSet.contains($0) }
            let duplicates = printed.count - printedSet.count
            print("readers: tail printed \(printed.count) rows of \(committed.count) committed; \(skipped.count) skipped, \(duplicates) printed twice; largest WAL \(largestWAL / 1024) KiB")
            if !skipped.isEmpty { problems.append("tail skipped \(skipped.count) committed rows (first seq \(skipped[0]))") }
            if duplicates > 0 { problems.append("tail printed \(duplicates) rows twice") }
            let bound = arguments.int("wal-bound-kb", default: 16 * 1024) * 1024
            if largestWAL > bound { problems.append("the WAL grew to \(largestWAL) bytes (bound \(bound))") }
            problems += JournalCheck(path: path, acknowledged: child.acknowledged).problems
        } catch {
            problems.append("\(error)")
        }
        tally.record("\(seconds) s", problems)
        return tally.finish()
    }

    /// Reads the journal in a loop while it is written: counts SQLITE_BUSY errors and torn
    /// events (a Tick without both of its calls, an Echo without its call) among recent events.
    static let pythonReader = """
        import sqlite3, sys, time
        path, seconds = sys.argv[1], float(sys.argv[2])
        busy = torn = reads = 0
        end = time.time() + seconds
        db = sqlite3.connect("file:" + path + "?mode=ro", uri=True, timeout=0, isolation_level=None)
        while time.time() < end:
            try:
                db.execute("BEGIN")  # one snapshot for the three reads
                try:
                    low = db.execute("SELECT coalesce(max(seq), 0) - 4000 FROM event_history").fetchone()[0]
                    events = db.execute("SELECT event_id, event_type FROM event_history WHERE seq > ?", (low,)).fetchall()
                    # By event id, which reaches the calls' index (a condition on the call
                    # views' seq cannot: see the JournalSchema article on how calls are stored).
                    calls = dict(db.execute(
                        "SELECT event_id, count(*) FROM call_history WHERE event_id > ? GROUP BY event_id", (low,)).fetchall())
                finally:
                    db.execute("COMMIT")
                expected = {"Tick": 2, "Echo": 1}
                torn += sum(1 for event, kind in events if calls.get(event, 0) != expected.get(kind, -1))
                reads += 1
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    busy += 1
                else:
                    raise
            time.sleep(0.01)
        print(f"reads={reads} busy={busy} torn={torn}")
        """
}
