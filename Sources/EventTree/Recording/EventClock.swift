import Foundation

/// Where a bus reads the times it records: a session's start on the wall clock, raises and
/// handler calls on a monotonic clock (which never jumps when the wall clock is set).
///
/// Tests inject a clock of their own to pin the times a journal holds:
///
/// ```swift
/// let bus = EventBus(recorder: journal, clock: EventClock(wallSeconds: { 1_700_000_000 }, nanoseconds: { 0 }))
/// ```
public struct EventClock: Sendable {
    /// Seconds since 1970, for a session's start.
    public let wallSeconds: @Sendable () -> Double
    /// Nanoseconds on a monotonic clock, for raises and handler calls.
    public let nanoseconds: @Sendable () -> Int
    /// Whether this is ``system``: a delivery then reads the monotonic clock directly rather
    /// than through the closure (once per recorded handler call).
    let isSystem: Bool

    /// A clock made of two readings.
    public init(wallSeconds: @escaping @Sendable () -> Double, nanoseconds: @escaping @Sendable () -> Int) {
        self.init(wallSeconds: wallSeconds, nanoseconds: nanoseconds, isSystem: false)
    }

    private init(wallSeconds: @escaping @Sendable () -> Double, nanoseconds: @escaping @Sendable () -> Int, isSystem: Bool) {
        self.wallSeconds = wallSeconds
        self.nanoseconds = nanoseconds
        self.isSystem = isSystem
    }

    /// The time now on the monotonic clock (``nanoseconds``).
    @inline(__always)
    func now() -> Int {
        isSystem ? monotonicNanoseconds() : nanoseconds()
    }

    /// The system's clocks: `Date()` and `CLOCK_MONOTONIC`.
    public static let system = EventClock(
        wallSeconds: { Date().timeIntervalSince1970 }, nanoseconds: monotonicNanoseconds, isSystem: true)
}
