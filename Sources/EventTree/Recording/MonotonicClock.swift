internal import CEventTreeThread

/// Nanoseconds on the monotonic clock: for timing handler calls and for deadlines that
/// must not move when the wall clock is set.
@inline(__always)
package func monotonicNanoseconds() -> Int {
    Int(eventtree_monotonic_nanoseconds())
}
