import CBenchSupport
import Foundation

/// One line saying what this ran on.
func machineLine() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    let swift = (try? runCommand("/usr/bin/env", ["swift", "--version"]))?
        .split(separator: "\n").first.map(String.init) ?? "Swift ?"
    return "machine: \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores; SQLite \(String(cString: bench_sqlite_version())); \(swift)"
}

private func runCommand(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = Pipe()
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
