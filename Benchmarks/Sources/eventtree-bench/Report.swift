import Foundation

/// The printed report: target rows with ok/MISS, workload rows, scaling rows.
struct Report {
    /// A marginal instruction count with its floor (CI fails above it) and target.
    struct Instruction {
        let name: String
        let value: Double
        let floor: Double
        let target: Double
        let guardLimit: Double

        var status: String {
            value <= target ? "ok (target met)" : value <= floor ? "ok" : value <= guardLimit ? "MISS (within guard)" : "MISS (above guard)"
        }
    }

    struct Target {
        let measure: String
        let ours: String
        let baseline: String
        let ratio: String
        let floor: String
        let target: String
        /// `ok`, `MISS`, or `n/a`.
        let status: String
    }

    var targets: [Target] = []
    /// Marginal instruction counts (callgrind), checked against their floors.
    var instructions: [Instruction] = []
    var workloads: [[String]] = []
    /// Instructions per raise of every workload (`--instructions --workloads`), with a
    /// saved run's beside them when compared.
    var workloadInstructions: [[String]] = []
    var comparesWorkloadInstructions = false
    var scaling: [[String]] = []
    var counts: [[String]] = []
    /// Deterministic checks that failed (CI fails on these, never on time).
    var countFailures: [String] = []

    /// Adds a target row from a comparison; `lowerIsBetter` when the ratio is a cost.
    mutating func target(
        _ measure: String, _ comparison: Comparison, ours: (Double) -> String, baseline: (Double) -> String,
        floor: Double?, target: Double, lowerIsBetter: Bool
    ) {
        let ratios = comparison.ratios
        let middle = median(ratios)
        let sign = lowerIsBetter ? "≤" : "≥"
        // A row without a floor is context (its target says what we aim for), not a check.
        let status = floor.map { (lowerIsBetter ? middle <= $0 : middle >= $0) ? "ok" : "MISS" } ?? "-"
        targets.append(Target(
            measure: measure, ours: ours(median(comparison.ours)), baseline: baseline(median(comparison.baseline)),
            ratio: String(format: "%.2f× (%.2f–%.2f)", middle, ratios.min() ?? 0, ratios.max() ?? 0),
            floor: floor.map { String(format: "%@ %.2f×", sign, $0) } ?? "-", target: String(format: "%@ %.2f×", sign, target),
            status: status))
    }

    mutating func check(_ name: String, value: Double, atMost limit: Double) {
        let holds = value <= limit
        counts.append([name, String(format: "%.3f", value), String(format: "≤ %.3f", limit), holds ? "ok" : "MISS"])
        if !holds { countFailures.append("\(name) = \(value), above \(limit)") }
    }

    mutating func check(_ name: String, value: Int, equals expected: Int) {
        let holds = value == expected
        counts.append([name, String(value), "= \(expected)", holds ? "ok" : "MISS"])
        if !holds { countFailures.append("\(name) = \(value), expected \(expected)") }
    }

    func printed() -> String {
        var text = "\nTargets (ratios of medians taken pair by pair within this run; ok/MISS against the floor)\n"
        text += table(
            ["measure", "ours", "baseline", "ratio (min–max)", "floor", "target", ""],
            targets.map { [$0.measure, $0.ours, $0.baseline, $0.ratio, $0.floor, $0.target, $0.status] })
        if !instructions.isEmpty {
            text += "\nInstructions (callgrind, marginal per unit; deterministic, checked in CI)\n"
            text += table(
                ["measure", "instructions", "floor", "target", "CI guard", ""],
                instructions.map {
                    [$0.name, String(format: "%.0f", $0.value), String(format: "≤ %.0f", $0.floor), String(format: "≤ %.0f", $0.target),
                     String(format: "≤ %.0f", $0.guardLimit), $0.status]
                })
        }
        if !workloadInstructions.isEmpty {
            text += "\nWorkloads (callgrind, marginal instructions per raise, whole process)\n"
            text += table(
                ["workload", "recorder", "calls/raise", "per raise", "per call"]
                    + (comparesWorkloadInstructions ? ["before, per raise", "after/before", ""] : []),
                workloadInstructions)
        }
        if !counts.isEmpty {
            text += "\nDeterministic counts (checked in CI)\n" + table(["count", "value", "limit", ""], counts)
        }
        if !workloads.isEmpty {
            text += "\nWorkloads (median time per raise and per handler call)\n"
            text += table(["workload", "recorder", "calls/raise", "per raise", "per call"], workloads)
        }
        if !scaling.isEmpty {
            text += "\nScaling (journal of N steps)\n"
            text += table(["steps", "writer steps/s", "bytes/step", "scan rows/s", "replay rows/s", "explain", "query", "replay peak MiB"], scaling)
        }
        return text
    }

    private func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }
}
