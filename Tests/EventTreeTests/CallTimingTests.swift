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

    @Test func theCounterAgreesWithTheMonotonicClockOnceItsRateIsKnown() throws {
        guard CycleCounter.isUsable else {
            // Not the clock's source here: never paired, so every reading is the clock's.
            CycleCounter.pair(monotonicNanoseconds(), CycleCounter.ticks())
            #expect(CycleCounter.currentRate == 0)
            return
        }
        CycleCounter.pair(monotonicNanoseconds(), CycleCounter.ticks())
        Thread.sleep(forTimeInterval: 0.02)
        CycleCounter.pair(monotonicNanoseconds(), CycleCounter.ticks())
        let rate = CycleCounter.currentRate
        #expect(rate != 0)
        let anchor = monotonicNanoseconds()
        let anchorTicks = CycleCounter.ticks()
        Thread.sleep(forTimeInterval: 0.01)
        let counted = CycleCounter.nanoseconds(at: CycleCounter.ticks(), after: anchorTicks, at: anchor, rate: rate)
        let read = monotonicNanoseconds()
        // Within 1 % of the 10 ms (the rate is measured over at least 10 ms) and the
        // microseconds between the two readings.
        #expect(abs(counted - read) < 100_000 + 20_000, "counted \(counted - anchor) ns, the clock \(read - anchor) ns")
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
        for call in calls { #expect(call.nanoseconds >= 2_000_000) }
        for (call, next) in zip(calls, calls.dropFirst()) { #expect(next.startedAt == call.startedAt + call.nanoseconds) }
        let end = calls[2].startedAt + calls[2].nanoseconds
        // The last end counted on the cycle counter: within 1 % of the raise's span.
        #expect(end <= span.after + (span.after - span.before) / 100, "the calls end \(end - span.after) ns after the raise")
    }
}
