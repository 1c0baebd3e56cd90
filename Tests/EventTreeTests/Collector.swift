import Foundation

/// A tiny lock for test collectors.
final class NSLockLike: @unchecked Sendable {
    private let lock = NSLock()
    func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// Collects strings from handlers, thread-safely.
final class Collector: @unchecked Sendable {
    private let lock = NSLockLike()
    private var stored: [String] = []
    func append(_ value: String) { lock.run { stored.append(value) } }
    var values: [String] { lock.run { stored } }
}
