#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the monotonic clock: for timing handler calls and for deadlines that
/// must not move when the wall clock is set.
@inline(__always)
package func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    // Wrapping arithmetic: a monotonic clock is centuries from overflowing, and every
    // recorded call reads it twice.
    return Int(now.tv_sec) &* 1_000_000_000 &+ Int(now.tv_nsec)
}
