import EventTree
import EventTreeTesting
import Testing

/// Errors cannot loop and nested raises cannot overflow the stack (DeliveryRules:
/// "Nesting and conversion loops").
@Suite struct NestingTests {
    struct ShowBanner: Event { var text: String }

    static let loop =
        "error handler 'banner' already converted an error in this cause chain; converting this one into ShowBanner would loop, so it was not converted"

    /// The README's pattern: every error becomes a banner event; the banner's own handler fails.
    @Test func theBannerPatternEndsWhenTheBannerHandlerThrows() {
        let f = Fixture()
        f.app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        f.app.on(ShowBanner.self, label: "show") { _, _ in throw Boom(text: "no window") }
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.recorder.clear()
        let result = f.a.raise(Ping())
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target thrower -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "call app bubble banner -> transformed",
            "raise ShowBanner at app bubble cause Boom",
            "call app target show -> failed (no window)",
            "raise Boom at app bubble cause ShowBanner",
            "call app target banner -> failed (\(Self.loop))",
            "end Boom failed by banner at app target: \(Self.loop)",
            "unhandled error Boom",
            "end ShowBanner failed by show at app target: no window",
            "end Boom consumed by banner at app bubble",
            "end Ping failed by thrower at app/a target: boom",
        ])
        #expect(result.status.name == "failed")
    }

    @Test func theBannerPatternEndsWhenAMainActorHandlerIsReachedOffTheMainActor() async {
        let f = Fixture()
        f.app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        f.app.onMainActor(ShowBanner.self, label: "show") { _, _ in .handled }
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.recorder.clear()
        _ = await Task.detached { f.a.raise(Ping()) }.value
        let isolated =
            "handler 'show' is isolated to the main actor and a synchronous raise reached it off the main actor; use raiseAsync (await) instead"
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target thrower -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "call app bubble banner -> transformed",
            "raise ShowBanner at app bubble cause Boom",
            "call app target show -> failed (\(isolated))",
            "raise DeliveryError at app bubble cause ShowBanner",
            "call app target banner -> failed (\(Self.loop))",
            "end DeliveryError failed by banner at app target: \(Self.loop)",
            "unhandled error DeliveryError",
            "end ShowBanner failed by show at app target: \(isolated)",
            "end Boom consumed by banner at app bubble",
            "end Ping failed by thrower at app/a target: boom",
        ])
    }

    @Test func theBannerPatternEndsOnTheAsyncRaiseToo() async {
        let f = Fixture()
        f.app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        f.app.onMainActor(ShowBanner.self, label: "show") { _, _ in throw Boom(text: "no window") }
        f.a.on(Ping.self, label: "thrower") { _, _ in throw Boom() }
        f.recorder.clear()
        _ = await f.a.raiseAsync(Ping())
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "call app/a target thrower -> failed (boom)",
            "raise Boom at app/a bubble cause Ping",
            "call app bubble banner -> transformed",
            "raise ShowBanner at app bubble cause Boom",
            "call app target show -> failed (no window)",
            "raise Boom at app bubble cause ShowBanner",
            "call app target banner -> failed (\(Self.loop))",
            "end Boom failed by banner at app target: \(Self.loop)",
            "unhandled error Boom",
            "end ShowBanner failed by show at app target: no window",
            "end Boom consumed by banner at app bubble",
            "end Ping failed by thrower at app/a target: boom",
        ])
    }

    @Test func anotherConverterStillConvertsTheErrorTheFirstMayNot() {
        let f = Fixture()
        f.app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        f.app.onError(label: "fallback") { _, _ in .transformed(Pong()) }
        f.app.on(ShowBanner.self, label: "show") { _, _ in throw Boom(text: "no window") }
        f.app.on(Pong.self, label: "pong") { _, _ in .handled }
        f.recorder.clear()
        f.a.report(Boom())
        #expect(f.take() == [
            "raise Boom at app/a bubble",
            "call app bubble banner -> transformed",
            "raise ShowBanner at app bubble cause Boom",
            "call app target show -> failed (no window)",
            "raise Boom at app bubble cause ShowBanner",
            "call app target banner -> failed (\(Self.loop))",
            "call app target fallback -> transformed",
            "raise Pong at app bubble cause Boom",
            "call app target pong -> handled",
            "end Pong delivered",
            "end Boom consumed by fallback at app target",
            "end ShowBanner failed by show at app target: no window",
            "end Boom consumed by banner at app bubble",
        ])
    }

    @Test func aHandlerRaisingItsOwnEventIsRefusedPastTheNestingLimit() {
        let f = Fixture(maximumNestingDepth: 3)
        f.a.on(Ping.self, label: "again") { _, _ in
            f.a.raise(Ping())
            return .handled
        }
        f.recorder.clear()
        let result = f.a.raise(Ping())
        let refusal = DeliveryError.nestingTooDeep(eventType: "Ping", limit: 3, cause: EventID(rawValue: 17))
        #expect(refusal.description
            == "raising Ping was refused: it would nest 4 raises deep on this thread, past the bus's limit of 3; a handler's raise leads back to itself (its cause chain: eventtree explain JOURNAL 17)")
        #expect(f.take() == [
            "raise Ping at app/a bubble",
            "raise Ping at app/a bubble cause Ping",
            "raise Ping at app/a bubble cause Ping",
            "raise Ping at app/a bubble cause Ping",
            "end Ping failed: \(refusal)",
            "call app/a target again -> handled",
            "end Ping delivered",
            "call app/a target again -> handled",
            "end Ping delivered",
            "call app/a target again -> handled",
            "end Ping delivered",
        ])
        #expect(result.status == .delivered)
    }

    @Test func aRefusedRaiseReturnsFailedNamingNoHandler() {
        let f = Fixture(maximumNestingDepth: 1)
        let inner = Box<RaiseResult>()
        f.a.on(Ping.self, label: "again") { _, _ in
            inner.value = f.a.raise(Pong())
            return .handled
        }
        f.a.raise(Ping())
        guard case .failed(let failure)? = inner.value?.status else {
            Issue.record("expected a failed raise, got \(String(describing: inner.value?.status))")
            return
        }
        #expect(failure.site == nil)
        #expect(failure.message.hasPrefix("raising Pong was refused: it would nest 2 raises deep on this thread, past the bus's limit of 1"))
    }

    @Test func twoHandlersRaisingEachOtherAreRefusedPastTheNestingLimit() {
        let f = Fixture(maximumNestingDepth: 4)
        f.a.on(Ping.self, label: "ping-raises-pong") { _, _ in
            f.b.raise(Pong())
            return .handled
        }
        f.b.on(Pong.self, label: "pong-raises-ping") { _, _ in
            f.a.raise(Ping())
            return .handled
        }
        f.recorder.clear()
        f.a.raise(Ping())
        let lines = f.take()
        #expect(lines.map { $0.hasPrefix("end Ping failed: raising Ping was refused") ? "end Ping refused" : $0 } == [
            "raise Ping at app/a bubble",
            "raise Pong at app/b bubble cause Ping",
            "raise Ping at app/a bubble cause Pong",
            "raise Pong at app/b bubble cause Ping",
            "raise Ping at app/a bubble cause Pong",
            "end Ping refused",
            "call app/b target pong-raises-ping -> handled",
            "end Pong delivered",
            "call app/a target ping-raises-pong -> handled",
            "end Ping delivered",
            "call app/b target pong-raises-ping -> handled",
            "end Pong delivered",
            "call app/a target ping-raises-pong -> handled",
            "end Ping delivered",
        ])
    }

    @Test func theDefaultLimitStopsAnUnboundedSelfRaiseWithoutOverflowingTheStack() {
        let f = Fixture()
        let raises = Box<Int>()
        raises.value = 0
        f.a.on(Ping.self, label: "again") { _, _ in
            raises.value! += 1
            f.a.raise(Ping())
            return .handled
        }
        f.a.raise(Ping())
        #expect(raises.value == 64)
    }
}
