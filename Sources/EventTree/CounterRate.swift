/// The cycle counter's rate as measured from pairings of the monotonic clock and the counter
/// (see ``CycleCounter``), and when the next pairing is due.
///
/// The rate is the last span's: 10 ms after a first pairing, then spans doubling up to a
/// second (or however long went by without a pairing). A span whose rate differs from the one
/// in use by more than 0.1 % is not believed (twice what NTP may slew the clock by; after a
/// suspend the counter has run on and the clock has not), nor one over which the clock or the
/// counter did not move forward: the rate is dropped, and measured afresh from that pairing.
package struct CounterRate: Sendable {
    /// Nanoseconds per tick, 32.32 fixed point; 0 while unknown.
    package private(set) var rate: UInt64 = 0
    /// When (monotonic nanoseconds) a pairing next restates the rate.
    package private(set) var nextPairing = 0
    private var last: (nanoseconds: Int, ticks: UInt64)?

    /// The first span measured, in nanoseconds.
    package static let firstSpan = 10_000_000
    /// The longest span waited for before the rate is restated.
    package static let longestSpan = 1_000_000_000

    package init() {}

    /// Takes the pairing of the clock at `nanoseconds` with the counter at `ticks`.
    package mutating func pair(_ nanoseconds: Int, _ ticks: UInt64) {
        defer { last = (nanoseconds, ticks) }
        guard let last, let measured = Self.rate(from: last, to: (nanoseconds, ticks)) else {
            return startOver(at: nanoseconds)
        }
        let difference = measured > rate ? measured - rate : rate - measured
        if rate != 0 && difference > rate / 1_000 { return startOver(at: nanoseconds) }
        rate = measured
        nextPairing = nanoseconds &+ min((nanoseconds - last.nanoseconds) &* 2, Self.longestSpan)
    }

    /// Drops the rate and measures a first span from the pairing at `nanoseconds`.
    private mutating func startOver(at nanoseconds: Int) {
        rate = 0
        nextPairing = nanoseconds &+ Self.firstSpan
    }

    /// The rate between two pairings, 32.32 fixed point, or `nil` when the clock or the
    /// counter did not move forward (a pairing from a thread that read the clock earlier, a
    /// counter that went back).
    package static func rate(
        from earlier: (nanoseconds: Int, ticks: UInt64), to later: (nanoseconds: Int, ticks: UInt64)
    ) -> UInt64? {
        guard later.nanoseconds > earlier.nanoseconds, later.ticks > earlier.ticks else { return nil }
        let span = UInt64(later.nanoseconds - earlier.nanoseconds)
        let ticked = later.ticks - earlier.ticks
        // span / ticked in 32.32 fixed point, from a 96-bit dividend (a span of over four
        // seconds shifted left by 32 no longer fits 64 bits); a counter slower than the
        // clock by 2^32 does not exist.
        guard span >> 32 < ticked else { return nil }
        return ticked.dividingFullWidth((high: span >> 32, low: span << 32)).quotient
    }
}
