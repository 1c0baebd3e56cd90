import EventTreeJournal
import Foundation
import Testing

/// Runs the built `eventtree` executable, as a user would.
struct Tool {
    /// The executable built next to the test bundle.
    static var builtExecutable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("eventtree")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` with `arguments` in `directory`; kills it after `timeout` seconds
    /// (a hang is a failure: status 137).
    static func run(
        _ arguments: [String], in directory: String? = nil, executable: URL = builtExecutable, timeout: Double = 60,
        environment: [String: String] = [:]
    ) throws -> Result {
        let (process, out, err) = try launch(executable, arguments, in: directory, environment: environment)
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        // Both pipes at once: a program that fills one while this waits on the other would
        // never finish.
        let errors = ErrorOutput()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { errors.data = err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        let stderr = errors.data
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Starts `executable`. A program file that was just written (a copied binary) can be
    /// refused with "Text file busy" for a moment: another test's process started in the
    /// meantime inherited the copy's open descriptor until its own exec. That start is tried
    /// again (with new pipes), for up to two seconds; any other failure is thrown at once.
    private static func launch(
        _ executable: URL, _ arguments: [String], in directory: String?, environment: [String: String]
    ) throws -> (Process, output: Pipe, errors: Pipe) {
        var attempts = 0
        while true {
            let output = Pipe()
            let errors = Pipe()
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardOutput = output
            process.standardError = errors
            do {
                try process.run()
                return (process, output, errors)
            } catch let error as NSError {
                let cause = error.userInfo[NSUnderlyingErrorKey] as? NSError
                guard cause?.domain == NSPOSIXErrorDomain, cause?.code == Int(ETXTBSY), attempts < 100 else {
                    throw error
                }
                attempts += 1
                usleep(20_000)
            }
        }
    }
}

/// What a program wrote to standard error, read on another thread (the group's wait orders
/// the write before the read).
private final class ErrorOutput: @unchecked Sendable {
    var data = Data()
}

/// A program of the machine's (chromium, dot) that some tests drive. Missing, such a test
/// is skipped, unless `EVENTTREE_REQUIRE_TOOLS=1` (as CI sets it), where it fails.
struct ExternalTool {
    let url: URL

    /// The program `name` on the `PATH`, or `nil`.
    static func find(_ name: String) -> ExternalTool? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return ExternalTool(url: candidate) }
        }
        return nil
    }

    /// Whether a test without the program fails (CI) rather than being skipped.
    static var areRequired: Bool { ProcessInfo.processInfo.environment["EVENTTREE_REQUIRE_TOOLS"] == "1" }

    /// Whether `name` can be used; records an issue when it is missing and required.
    static func available(_ name: String) -> Bool {
        if find(name) != nil { return true }
        if areRequired { Issue.record("\(name) is not installed, and EVENTTREE_REQUIRE_TOOLS=1 requires it") }
        return false
    }

    /// Runs the program (see `Tool.run`).
    func run(_ arguments: [String], timeout: Double = 120) throws -> Tool.Result {
        try Tool.run(arguments, executable: url, timeout: timeout)
    }
}

import CEventTreeSQLite

/// Runs SQL on a file through the plain C API, as another program would; a statement that
/// fails is an issue of the test (an alteration that did not happen proves nothing).
func sqliteExecute(_ path: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try JournalTampering.execute(sql, on: path)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
    }
}
