import EventTree
import EventTreeTesting
import Foundation
import Testing

@Suite struct MainActorTests {
    @Test func anAsyncRaiseAwaitsMainActorHandlersInRouteOrder() async {
        let f = Fixture()
        f.a1.on(Ping.self, label: "leaf") { _, _ in .handled }
        f.a.onMainActor(Ping.self, label: "ui") { _, _ in
            MainActor.assertIsolated()
            return .consumed
        }
        f.app.on(Ping.self, label: "never") { _, _ in .handled }
        f.recorder.clear()
        let result = await f.a1.raiseAsync(Ping())
        #expect(result.status.site?.label == "ui")
        #expect(f.recorder.calls == ["app/a/a1 target leaf -> handled", "app/a bubble ui -> consumed"])
    }

    @Test func aSynchronousRaiseOffTheMainActorRecordsAFailedCallInsteadOfBlocking() async {
        let f = Fixture()
        f.a.onMainActor(Ping.self, label: "ui") { _, _ in .handled }
        f.recorder.clear()
        let result = await Task.detached { f.a.raise(Ping()) }.value
        guard case .failed(let failure) = result.status else {
            Issue.record("expected failed, got \(result.status)")
            return
        }
        #expect(failure.message == "handler 'ui' is isolated to the main actor and a synchronous raise reached it off the main actor; use raiseAsync (await) instead")
        #expect(f.recorder.calls == ["app/a target ui -> failed (\(failure.message))"])
    }

    @Test func aSynchronousRaiseOffTheMainActorWarnsOncePerHandlerWithTheFix() async {
        let f = Fixture()
        let warnings = Collector()
        f.bus.onWarning { warnings.append($0) }
        f.a.onMainActor(Ping.self, label: "ui") { _, _ in .handled }
        f.app.onMainActor(Ping.self, label: "root-ui") { _, _ in .handled }
        for _ in 0..<3 { _ = await Task.detached { f.a.raise(Ping()) }.value }
        let fix = "so its call failed; raise on the main actor, or from elsewhere use `await node.raiseAsync(…)` (in a Task when the caller is not async), or register it with `whenRaisedElsewhere: .enqueue` to have it called later on the main actor"
        #expect(warnings.values == [
            "handler 'ui' (EventTreeTests/MainActorTests.swift:38) is isolated to the main actor and a synchronous raise reached it off the main actor, \(fix)",
            "handler 'root-ui' (EventTreeTests/MainActorTests.swift:39) is isolated to the main actor and a synchronous raise reached it off the main actor, \(fix)",
        ])
        #expect(f.recorder.calls.filter { $0.contains("failed") }.count == 6)
    }

    @MainActor
    @Test func aSynchronousRaiseOnTheMainActorCallsMainActorHandlersDirectly() {
        let f = Fixture()
        f.a.onMainActor(Ping.self, label: "ui") { _, _ in .handled }
        #expect(f.a.raise(Ping()).status == .delivered)
    }

    @Test func nestedRaisesInsideAwaitedHandlersKeepTheirCause() async throws {
        let f = Fixture()
        f.a.onMainActor(Ping.self, label: "ui") { _, _ in
            f.b.raise(Pong())
            return .handled
        }
        f.app.on(Pong.self, label: "pong") { _, _ in .handled }
        let outer = await f.a.raiseAsync(Ping())
        let raises = f.recorder.records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        try #require(raises.count == 2)
        #expect(raises[1].cause == outer.eventID)
    }

    @Test func anAsyncRequestReturnsTheMainActorsAnswer() async {
        let f = Fixture()
        f.app.onMainActor(UserName.self, label: "ui") { _, _ in .answered("ada") }
        let result = await f.a1.requestAsync(UserName())
        #expect(result.answer == "ada")
    }
}
