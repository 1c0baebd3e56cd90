import EventTree
import EventTreeJournal
import Foundation

/// Runs `body` with a fresh, empty directory that is removed afterwards, whatever happens.
///
/// - Parameter body: Receives the directory's path.
/// - Returns: What `body` returns.
@discardableResult
package func withTemporaryDirectory<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
) async rethrows -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("eventtree-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.path)
}

/// Runs `body` with a new journal in a temporary directory, closed and removed afterwards.
///
/// ```swift
/// try await withTemporaryJournal { journal in
///     let bus = EventBus(recorder: journal)
///     …
///     try journal.flush()
/// }
/// ```
/// - Parameters:
///   - options: The journal's options.
///   - isolation: The caller's actor (filled in): `body` runs on it, so a `@MainActor`
///     test can use main-actor state in it.
///   - body: Receives the open journal (its file is at `journal.path`).
/// - Returns: What `body` returns.
@discardableResult
public func withTemporaryJournal<T>(
    options: JournalOptions = JournalOptions(), isolation: isolated (any Actor)? = #isolation,
    _ body: (Journal) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory(isolation: isolation) { directory in
        let journal = try Journal(path: directory + "/test.eventtree", options: options)
        defer { try? journal.close() }
        return try await body(journal)
    }
}
