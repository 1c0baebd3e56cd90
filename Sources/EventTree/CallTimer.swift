/// Times a recorded delivery's handler calls: a call that follows nothing else starts at a
/// reading of the bus's clock, and the calls' ends are counted from there on the processor's
/// cycle counter (see ``CycleCounter``) when the clock is ``EventClock/system`` and the
/// counter's rate is known; otherwise every reading is the clock's.
struct CallTimer {
    /// The counter's rate at the last ``start(_:)``; 0 when the clock is read each time.
    private var rate: UInt64 = 0
    private var anchor = 0
    private var anchorTicks: UInt64 = 0

    /// Reads `clock` itself; later readings are counted from here.
    @inline(__always)
    mutating func start(_ clock: EventClock) -> Int {
        guard clock.isSystem else {
            anchor = clock.nanoseconds()
            return anchor
        }
        // The counter read on both sides of the clock: the reading lies between the two, and
        // when they are close (nothing interrupted the thread in between) it pairs the two.
        let before = CycleCounter.ticks()
        anchor = clock.nanoseconds()
        let after = CycleCounter.ticks()
        let between = after &- before
        anchorTicks = before &+ between / 2
        if between <= CycleCounter.closeReadings { CycleCounter.pair(anchor, anchorTicks) }
        rate = CycleCounter.currentRate
        return anchor
    }

    /// The time now on `clock` (the clock of the last ``start(_:)``), for a call that started
    /// at `started`: counted from that start on the cycle counter (never before `started`:
    /// the thread may have moved to a core whose counter is a little behind), or read.
    @inline(__always)
    func now(_ clock: EventClock, after started: Int) -> Int {
        guard rate != 0 else { return clock.nanoseconds() }
        return max(started, CycleCounter.nanoseconds(at: CycleCounter.ticks(), after: anchorTicks, at: anchor, rate: rate))
    }
}
