/// How two runs' steps differ, as both `LiveReplay` (a recording against live code) and
/// ``RecordingDiff`` (two recordings) show it: the one comparison rule of the package.
public struct StepDiff: Sendable, Hashable {
    /// The first run's steps (the recording).
    public let old: [String]
    /// The second run's steps.
    public let new: [String]

    /// Compares `old` with `new`.
    public init(old: [String], new: [String]) {
        self.old = old
        self.new = new
    }

    /// Whether the two runs took the same steps.
    public var isSame: Bool { old == new }

    /// The index of the first step that differs (0-based), or `nil` when none does.
    public var firstDifference: Int? {
        guard !isSame else { return nil }
        return zip(old, new).prefix { $0 == $1 }.count
    }

    /// A −/+ diff of the steps, numbered from 1: steps both runs share with two spaces,
    /// steps only the first run took with `-`, steps only the second took with `+` (each
    /// numbered in its own run). Before the first difference the shared steps are listed;
    /// after it, only the steps that differ are marked, along the two runs' longest common
    /// sequence of steps.
    public var text: String {
        let start = firstDifference ?? old.count
        var lines = old.prefix(start).enumerated().map { "  \($0.offset + 1). \($0.element)" }
        let oldRest = Array(old.dropFirst(start))
        let newRest = Array(new.dropFirst(start))
        for (edit, index) in editScript(from: oldRest, to: newRest, same: ==) {
            switch edit {
            case .shared: lines.append("  \(start + index.old + 1). \(oldRest[index.old])")
            case .removed: lines.append("- \(start + index.old + 1). \(oldRest[index.old])")
            case .added: lines.append("+ \(start + index.new + 1). \(newRest[index.new])")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// What one line of an edit script does: kept by both sides, only in the old, only in the new.
enum Edit { case shared, removed, added }

/// The edits from `old` to `new` along their longest common subsequence, by `same` (removals
/// before additions at each point), with the index of each line in its side: how steps are
/// diffed and how two recordings' raises are paired.
func editScript<Element>(
    from old: [Element], to new: [Element], same: (Element, Element) -> Bool
) -> [(Edit, (old: Int, new: Int))] {
    // lengths[i][j]: the longest common subsequence of old[i...] and new[j...].
    var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
        for j in stride(from: new.count - 1, through: 0, by: -1) {
            lengths[i][j] = same(old[i], new[j]) ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
        }
    }
    var edits: [(Edit, (old: Int, new: Int))] = []
    var (i, j) = (0, 0)
    while i < old.count || j < new.count {
        if i < old.count, j < new.count, same(old[i], new[j]) {
            edits.append((.shared, (i, j)))
            i += 1
            j += 1
        } else if i < old.count, j == new.count || lengths[i + 1][j] >= lengths[i][j + 1] {
            edits.append((.removed, (i, j)))
            i += 1
        } else {
            edits.append((.added, (i, j)))
            j += 1
        }
    }
    return edits
}
