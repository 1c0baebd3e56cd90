/// The name a mistyped one most likely meant, for "did you mean" hints.
enum CommandSuggestion {
    /// The name in `names` nearest to `typed`: the one it begins (`rep` for `replay`), or
    /// the one at the fewest edits from it, if that is at most a third of its length (at
    /// least one); `nil` when no name is that near, or two are equally near.
    static func nearest(to typed: String, among names: [String]) -> String? {
        let lowered = typed.lowercased()
        let begun = names.filter { $0.hasPrefix(lowered) }
        if begun.count == 1 { return begun[0] }
        let scored = names.map { (name: $0, edits: edits(from: Array(lowered), to: Array($0))) }.sorted { $0.edits < $1.edits }
        guard let best = scored.first, best.edits <= max(1, typed.count / 3) else { return nil }
        return scored.dropFirst().first?.edits == best.edits ? nil : best.name
    }

    /// The Damerau–Levenshtein distance (insertions, deletions, substitutions and swaps of
    /// two neighbours, each one edit) from `a` to `b`.
    static func edits(from a: [Character], to b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
