import EventTree
import EventTreeTesting
import Foundation
import Testing

/// What a journal's call times are held to when a bus reads the system's clocks: each call
/// lies inside the raise as the monotonic clock saw it, lasts at least as long as its
/// handler ran, and starts where the call before it ended.
@Suite struct CallTimingTests {
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
        // Each slept 2 ms.
        for call in calls { #expect(call.nanoseconds >= 2_000_000) }
        for (call, next) in zip(calls, calls.dropFirst()) { #expect(next.startedAt == call.startedAt + call.nanoseconds) }
        let end = calls[2].startedAt + calls[2].nanoseconds
        // Every reading is the monotonic clock's: the last end lies inside the raise.
        #expect(end <= span.after, "the calls end \(end - span.after) ns after the raise")
    }
}
