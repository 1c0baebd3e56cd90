import Foundation
import Testing

@Suite struct TailTests {
    /// Dead letters and unhandled errors are rows of the delivery history: `--last N`
    /// counts them like calls and undelivered steps.
    @Test func lastPrintsExactlyThatManyRowsOfTheDeliveryHistory() async throws {
        try await withDemoJournal { path in
            let all = try Tool.run(["query", path, "--format", "csv"]).stdout.split(separator: "\n").dropFirst()
            for count in [1, 2, 3, 10] {
                let result = try Tool.run(["tail", path, "--last", "\(count)", "--format", "csv"])
                #expect(result.status == 0)
                #expect(Array(result.stdout.split(separator: "\n").dropFirst()) == Array(all.suffix(count)), "--last \(count)")
            }
        }
    }
}
