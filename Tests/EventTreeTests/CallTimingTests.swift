import EventTree
import EventTreeTesting
import Foundation
import Testing

/// What a journal's call times are held to when a bus reads the system's clocks: each call
/// lies inside the raise as the monotonic clock saw it, lasts at least as long as its
/// handler ran, and starts where the call before it ended.
@Suite struct CallTimingTests {
    @Test func cycleCountsBecomeNanosecondsAtTheirRate() {
        // One tick a nanosecond, and 2.5 GHz (0.4 ns a tick, 32.32 fixed point).
        let nanosecondEach: UInt64 = 1 << 32
        let gigahertz2_5: UInt64 = 1_717_986_918
        #expect(CycleCounter.nanoseconds(at: 1_700, after: 1_000, at: 50, rate: nanosecondEach) == 750)
        #expect(CycleCounter.nanoseconds(at: 2_500_000, after: 0, at: 0, rate: gigahertz2_5) == 999_999)
        // Ten seconds of ticks: the product needs more than 64 bits.
        #expect(CycleCounter.nanoseconds(at: 25_000_000_000, after: 0, at: 7, rate: gigahertz2_5) == 9_999_999_997 + 7)
        // A counter read on another core that seems to go back counts as no time.
        #expect(CycleCounter.nanoseconds(at: 990, after: 1_000, at: 50, rate: nanosecondEach) == 50)
    }

    @Test func aRateIsTheLastSpansAndOneThatJumpsIsDroppedAndMeasuredAfresh() {
        let ms = 1_000_000
        // A 2.5 GHz counter (0.4 ns a tick).
        var estimate = CounterRate()
        estimate.pair(5 * ms, 1_000)
        #expect(estimate.rate == 0)
        #expect(estimate.nextPairing == 15 * ms)
        estimate.pair(15 * ms, 1_000 + 25_000_000)
        #expect(estimate.rate == 1_717_986_918)
        #expect(estimate.nextPairing == 35 * ms)
        // NTP slewing the clock by 0.05 %: believed.
        estimate.pair(35 * ms, 1_000 + 25_000_000 + 49_975_000)
        #expect(estimate.rate == 1_718_846_341)
        #expect(estimate.nextPairing == 75 * ms)
        // A suspend of ten seconds: the counter ran on, the clock did not. Dropped, and a
        // first span measured from here.
        estimate.pair(80 * ms, 1_000 + 25_000_000 + 49_975_000 + 12_500_000 + 25_000_000_000)
        #expect(estimate.rate == 0)
        #expect(estimate.nextPairing == 90 * ms)
        let resumed: UInt64 = 1_000 + 25_000_000 + 49_975_000 + 12_500_000 + 25_000_000_000
        estimate.pair(90 * ms, resumed + 25_000_000)
        #expect(estimate.rate == 1_717_986_918)
        // A counter that went back (another core's, or reset): dropped.
        estimate.pair(110 * ms, resumed)
        #expect(estimate.rate == 0)
        #expect(estimate.nextPairing == 120 * ms)
        // A long quiet spell is one long span, and its rate is believed.
        estimate.pair(120 * ms, resumed + 25_000_000)
        estimate.pair(3_600_120 * ms, resumed + 25_000_000 + 9_000_000_000_000)
        #expect(estimate.rate == 1_717_986_918)
        #expect(estimate.nextPairing == 3_601_120 * ms)
        #expect(CounterRate.rate(from: (10, 100), to: (10, 200)) == nil)
    }

    @Test func theCounterAgreesWithTheMonotonicClockOnceItsRateIsKnown() throws {
        guard CycleCounter.isUsable else { return }
        // The rate from a span of 20 ms, measured here (other tests pair too; any rate
        // they measured is held to the same 0.1 %).
        let start = (monotonicNanoseconds(), CycleCounter.ticks())
        Thread.sleep(forTimeInterval: 0.02)
        let end = (monotonicNanoseconds(), CycleCounter.ticks())
        let rate = try #require(CounterRate.rate(from: start, to: end))
        let anchor = monotonicNanoseconds()
        let anchorTicks = CycleCounter.ticks()
        Thread.sleep(forTimeInterval: 0.01)
        // The clock read on both sides of the counter: the counted time lies between,
        // give or take 1 % of the 10 ms (the rate's error from readings not taken together).
        let before = monotonicNanoseconds()
        let counted = CycleCounter.nanoseconds(at: CycleCounter.ticks(), after: anchorTicks, at: anchor, rate: rate)
        let after = monotonicNanoseconds()
        #expect(counted >= before - 100_000 && counted <= after + 100_000, "counted \(counted - anchor) ns, the clock \(before - anchor)–\(after - anchor) ns")
    }

    @Test func recordedCallsLieInsideTheRaiseAndFollowOneAnother() throws {
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder)
        let node = EventNode("root", bus: bus)
        for _ in 0..<3 {
            node.on(Ping.self) { _, _ in
                Thread.sleep(forTimeInterval: 0.002)
                return .handled
            }
        }
        // Raised a few times 10 ms apart, so that the cycle counter's rate is known by the last.
        var span = (before: 0, after: 0)
        for _ in 0..<3 {
            span.before = monotonicNanoseconds()
            node.raise(Ping())
            span.after = monotonicNanoseconds()
            Thread.sleep(forTimeInterval: 0.011)
        }
        let calls = recorder.records.suffix(5).compactMap { record -> HandlerCall? in
            if case .handlerCalled(let call, _) = record.fact { return call }
            return nil
        }
        try #require(calls.count == 3)
        #expect(calls[0].startedAt >= span.before)
        // Each slept 2 ms (the first call's start is the middle of two counter readings
        // around the clock's: a little slack for a thread interrupted between them).
        for call in calls { #expect(call.nanoseconds >= 2_000_000 - 200_000) }
        for (call, next) in zip(calls, calls.dropFirst()) { #expect(next.startedAt == call.startedAt + call.nanoseconds) }
        let end = calls[2].startedAt + calls[2].nanoseconds
        // The last end counted on the cycle counter: within 1 % of the raise's span.
        #expect(end <= span.after + (span.after - span.before) / 100 + 200_000, "the calls end \(end - span.after) ns after the raise")
    }
}
