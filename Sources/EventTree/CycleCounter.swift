internal import CEventTreeThread
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The processor's cycle counter, as nanoseconds of the monotonic clock: how a recorded
/// raise times its handler calls between two real readings of the clock.
///
/// A call's end is read from the counter (a few instructions) rather than from
/// `clock_gettime` (a call into the vDSO, a seqlock and a conversion: a tenth of a
/// journaled raise's cost on its thread). The counter's rate is measured against the
/// monotonic clock as the process runs (``CounterRate``), from *pairings*: readings of the
/// clock with the counter read close on both sides. Each delivery starts its calls from a
/// real reading of the clock, so an error in the rate only shows within one delivery's
/// calls, in proportion to how long they have run.
///
/// Used only where the counter is the monotonic clock's own source: on Linux, when the
/// kernel's clock source is `tsc` (x86-64) or `arch_sys_counter` (arm64). Elsewhere, and
/// until a first span has been measured, every reading is `clock_gettime`'s.
package enum CycleCounter {
    /// The counter's rate, nanoseconds per tick as a 32.32 fixed-point number; 0 while unknown.
    private static let rate = Atomic<UInt64>(0)
    /// When (monotonic nanoseconds) the next pairing restates the rate; `Int.max` once the
    /// first pairing found the counter unusable. (A constant initial value: the global is
    /// laid out statically, so a raise reads it with no lazy-initialisation check.)
    private static let nextPairing = Atomic<Int>(0)
    /// The measurement the two atomics publish. Guarded by `pairing`.
    nonisolated(unsafe) private static var estimate = CounterRate()
    private static let pairing = Lock()

    /// The most ticks between the two counter readings around a clock reading for the pair
    /// to count: 1.6 µs at 2.5 GHz (an interrupt or a preemption in between would make the
    /// pair, and a rate measured over 10 ms from it, wrong).
    package static let closeReadings: UInt64 = 4_096

    /// Whether the counter is the monotonic clock's source, so that the two run together.
    package static let isUsable: Bool = {
        #if os(Linux)
        let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
        guard let file = fopen(path, "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return false }
        let source = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #if arch(x86_64)
        return source == "tsc\n"
        #elseif arch(arm64)
        return source == "arch_sys_counter\n"
        #else
        return false
        #endif
        #else
        return false
        #endif
    }()

    /// The counter now.
    @inline(__always)
    package static func ticks() -> UInt64 {
        eventtree_cycle_counter()
    }

    /// The rate to convert with: 0 while it is unknown (read the clock instead).
    @inline(__always)
    package static var currentRate: UInt64 {
        rate.load(ordering: .relaxed)
    }

    /// Notes a reading of the monotonic clock taken with the counter at `ticks` (read close
    /// around it): the first one starts a span, and one a span later restates the rate (see
    /// ``CounterRate``).
    @inline(__always)
    package static func pair(_ nanoseconds: Int, _ ticks: UInt64) {
        if nanoseconds >= nextPairing.load(ordering: .relaxed) { restateRate(nanoseconds, ticks) }
    }

    @inline(never)
    private static func restateRate(_ nanoseconds: Int, _ ticks: UInt64) {
        pairing.withLock {
            // Another thread may have restated it since this one looked.
            guard nanoseconds >= nextPairing.load(ordering: .relaxed) else { return }
            guard isUsable else {
                nextPairing.store(Int.max, ordering: .relaxed)
                return
            }
            estimate.pair(nanoseconds, ticks)
            rate.store(estimate.rate, ordering: .relaxed)
            nextPairing.store(estimate.nextPairing, ordering: .relaxed)
        }
    }

    /// Nanoseconds `ticks` after the counter read `anchorTicks` at `anchor` nanoseconds, at
    /// `rate` (a counter read on another core that seems to go back counts as no time).
    @inline(__always)
    package static func nanoseconds(at ticks: UInt64, after anchorTicks: UInt64, at anchor: Int, rate: UInt64) -> Int {
        let elapsed = ticks &- anchorTicks
        guard Int64(bitPattern: elapsed) > 0 else { return anchor }
        let (high, low) = elapsed.multipliedFullWidth(by: rate)
        return anchor &+ Int(truncatingIfNeeded: (high << 32) | (low >> 32))
    }
}
