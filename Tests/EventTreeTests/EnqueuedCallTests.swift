import EventTree
import EventTreeTesting
import Foundation
import Testing

/// A main-actor handler registered with `whenRaisedElsewhere: .enqueue`, reached by a
/// synchronous raise off the main actor.
@Suite struct EnqueuedCallTests {
    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    @Test func theCallIsEnqueuedOnTheMainActorAndRecordedTwice() async {
        let f = Fixture()
        let warnings = Collector()
        f.bus.onWarning { warnings.append($0) }
        f.a.onMainActor(Ping.self, label: "ui", whenRaisedElsewhere: .enqueue) { _, _ in
            MainActor.assertIsolated()
            f.b.raise(Pong())
            return .consumed
        }
        f.app.on(Ping.self, label: "after") { _, _ in .handled }
        f.b.on(Pong.self, label: "pong") { _, _ in .handled }
        f.recorder.clear()
        let result = await Task.detached { f.a1.raise(Ping()) }.value
        // The route went on past the enqueued call, as after a handled one.
        #expect(result.status == .delivered)
        await f.bus.waitForEnqueuedCalls()
        #expect(f.recorder.lines == [
            "raise Ping at app/a/a1 bubble",
            "call app/a bubble ui -> enqueued",
            "call app bubble after -> handled",
            "end Ping delivered",
            // Later, on the main actor. The call's record takes the first number of the
            // records it makes, before the raise made inside it (caused by Ping).
            "call app/a bubble ui -> consumed",
            "raise Pong at app/b bubble cause Ping",
            "call app/b target pong -> handled",
            "end Pong delivered",
        ])
        #expect(warnings.values.isEmpty)
    }

    @Test func aFailingEnqueuedCallRaisesItsErrorFromItsNode() async {
        let f = Fixture()
        f.a.onMainActor(Ping.self, label: "ui", whenRaisedElsewhere: .enqueue) { _, _ in throw Boom() }
        f.app.onError(Boom.self, label: "catch") { _, _ in .handled }
        f.recorder.clear()
        let result = await Task.detached { f.a.raise(Ping()) }.value
        #expect(result.status == .delivered)
        await f.bus.waitForEnqueuedCalls()
        #expect(f.recorder.lines == [
            "raise Ping at app/a bubble",
            "call app/a target ui -> enqueued",
            "end Ping delivered",
            "call app/a target ui -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "call app bubble catch -> handled",
            "end Boom delivered",
        ])
    }

    @Test func aCallWhoseHandlerWasRemovedBeforeItRanIsUndelivered() async {
        let f = Fixture()
        let token = f.a.onMainActor(Ping.self, label: "ui", whenRaisedElsewhere: .enqueue) { _, _ in .handled }
        f.recorder.clear()
        // Held on the main actor until the handler is gone.
        await MainActor.run {
            let semaphore = DispatchSemaphore(value: 0)
            Thread {
                f.a.raise(Ping())
                semaphore.signal()
            }.start()
            semaphore.wait()
            token.remove()
        }
        await f.bus.waitForEnqueuedCalls()
        #expect(f.recorder.lines.suffix(3) == [
            "end Ping delivered",
            "remove ui on app/a",
            "undelivered app/a target (1 lost)",
        ])
    }

    @MainActor
    @Test func aRaiseOnTheMainActorCallsTheHandlerAtOnce() {
        let f = Fixture()
        f.a.onMainActor(Ping.self, label: "ui", whenRaisedElsewhere: .enqueue) { _, _ in .consumed }
        f.recorder.clear()
        #expect(f.a.raise(Ping()).status.name == "consumed")
        #expect(f.recorder.calls == ["app/a target ui -> consumed"])
    }
}
