/// How two runs' steps differ, as both `LiveReplay` (a recording against live code) and
/// ``RecordingDiff`` (two recordings) show it: the one comparison rule of the package.
/// Steps are compared whole: event type, node path, phase, handler label, outcome and
/// their number on the route.
public struct StepDiff: Sendable, Hashable {
    /// The first run's steps (the recording).
    public let old: [TraceStep]
    /// The second run's steps.
    public let new: [TraceStep]

    /// Compares `old` with `new`.
    public init(old: [TraceStep], new: [TraceStep]) {
        self.old = old
        self.new = new
    }

    /// Whether the two runs took the same steps.
    public var isSame: Bool { old == new }

    /// The position in the lists (0-based) of the first step that differs, or `nil` when
    /// none does.
    public var firstDifference: Int? {
        guard !isSame else { return nil }
        return zip(old, new).prefix { $0 == $1 }.count
    }

    /// The first differing step (the first run's, or the second's when the first run has
    /// no more steps), or `nil` when none differs.
    public var firstDifferingStep: TraceStep? {
        guard let index = firstDifference else { return nil }
        return index < old.count ? old[index] : new[index]
    }

    /// Names the first differing step as `explain` numbers it, for a raise of type
    /// `raiseType`: `step 2`, or `step 3 of LoadFailed` when the step belongs to another
    /// event the raise led to; `nil` when no step differs.
    public func firstDifferingStepName(raiseType: String) -> String? {
        guard let step = firstDifferingStep else { return nil }
        let number = step.number.map { "step \($0)" } ?? "an unplaced step"
        return step.eventType == raiseType ? number : "\(number) of \(step.eventType)"
    }

    /// A −/+ diff of the steps, each numbered as `explain` numbers its event's route: steps
    /// both runs share with two spaces, steps only the first run took with `-`, steps only
    /// the second took with `+`. Before the first difference the shared steps are listed;
    /// after it, only the steps that differ are marked, along the two runs' longest common
    /// sequence of steps.
    public var text: String {
        let start = firstDifference ?? old.count
        var lines = old.prefix(start).map { "  \($0)" }
        let oldRest = Array(old.dropFirst(start))
        let newRest = Array(new.dropFirst(start))
        for (edit, index) in editScript(from: oldRest, to: newRest, same: ==) {
            switch edit {
            case .shared: lines.append("  \(oldRest[index.old])")
            case .removed: lines.append("- \(oldRest[index.old])")
            case .added: lines.append("+ \(newRest[index.new])")
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
