import Foundation

/// Seconds on a monotonic clock.
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body` and returns how long it took, in seconds.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// The median of `values` (which must not be empty).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The `fraction` percentile of `values`.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// Measurements of ours and a baseline taken in alternation (A B A B …) within one run.
struct Comparison {
    var ours: [Double] = []
    var baseline: [Double] = []

    /// Measures `rounds` times, baseline first in each round.
    static func alternate(rounds: Int, baseline: () throws -> Double, ours: () throws -> Double) rethrows -> Comparison {
        var comparison = Comparison()
        for _ in 0..<rounds {
            comparison.baseline.append(try baseline())
            comparison.ours.append(try ours())
        }
        return comparison
    }

    /// Ratios ours / baseline, pair by pair within a round.
    var ratios: [Double] { zip(ours, baseline).map { $0 / $1 } }
}

/// A temporary directory for the run's database files.
let scratch: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("eventtree-bench-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// A fresh path in the scratch directory (removed first, with its -wal/-shm/.lock).
func freshPath(_ name: String) -> String {
    let path = scratch + "/" + name
    for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return path
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// Peak resident memory of this process so far, in KiB (VmHWM).
func peakMemoryKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "0") ?? 0
    }
    return 0
}

/// Formats a number with an SI suffix.
func si(_ value: Double) -> String {
    switch abs(value) {
    case 1e9...: String(format: "%.2fG", value / 1e9)
    case 1e6...: String(format: "%.2fM", value / 1e6)
    case 1e3...: String(format: "%.1fk", value / 1e3)
    default: String(format: "%.1f", value)
    }
}

/// Formats seconds as ns/µs/ms.
func duration(_ seconds: Double) -> String {
    switch seconds {
    case ..<1e-6: String(format: "%.1f ns", seconds * 1e9)
    case ..<1e-3: String(format: "%.2f µs", seconds * 1e6)
    case ..<1: String(format: "%.2f ms", seconds * 1e3)
    default: String(format: "%.2f s", seconds)
    }
}
