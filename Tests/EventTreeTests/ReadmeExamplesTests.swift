import EventTree
import EventTreeTesting
import Testing

// The README's API tour, compiled and run. Keep the two in step.

private struct LoggedIn: Event { var user: String }
private struct CurrentUser: EventRequest { typealias Answer = String }
private struct Refresh: Event {}
private struct ButtonTapped: Event {}
private struct Liked: Event {}
private struct ShowBanner: Event { var text: String }

@Suite struct ReadmeExamplesTests {
    @Test func theTourRunsAsTheReadmeSays() {
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        let settings = EventNode("settings", parent: app)
        let profile = EventNode("profile", parent: settings)

        app.on(LoggedIn.self, label: "session") { event, context in
            print("\(event.user) logged in at \(context.origin)")
            return .handled
        }
        let gateLine = #line + 1
        settings.on(LoggedIn.self, label: "gate") { _, _ in .consumed }
        app.on(CurrentUser.self, label: "session-user") { _, _ in .answered("ada") }

        let result = profile.raise(LoggedIn(user: "ada"))
        guard case .consumed(let site) = result.status else {
            Issue.record("expected consumed, got \(result.status)")
            return
        }
        #expect(site.label == "gate")
        #expect(site.location == "EventTreeTests/ReadmeExamplesTests.swift:\(gateLine)")
        let user = profile.request(CurrentUser()).answer
        #expect(user == "ada")
    }

    @Test func theMoreSectionRuns() async {
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        let settings = EventNode("settings", parent: app)
        let profile = EventNode("profile", parent: settings)
        let letters = Collector()

        app.raise(NamedEvent("didSave", ["document": "notes.txt"]), mode: .broadcast)
        app.raise(Refresh(), mode: .descend(.firstHandler))
        settings.on(ButtonTapped.self, label: "tap-to-like") { _, _ in .transformed(Liked()) }
        app.onError(label: "banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        bus.onDeadLetter { raised in letters.append("nobody handled \(raised.typeName)") }
        bus.onUnhandledError { raised in letters.append("uncaught: \(raised.payload)") }
        app.onMainActor(LoggedIn.self, label: "ui") { _, _ in .handled }
        let rendered = Collector()
        app.onMainActor(LoggedIn.self, label: "render", whenRaisedElsewhere: .enqueue) { event, _ in
            rendered.append(event.user)
            return .handled
        }
        let result = await profile.raiseAsync(LoggedIn(user: "ada"))

        #expect(result.status == .delivered)
        profile.raise(ButtonTapped())
        profile.report(Boom())
        // A transform is acting, so Liked is no dead letter; the converted error's banner is.
        #expect(letters.values == ["nobody handled ShowBanner"])
        // Raised off the main actor, "ui" fails (its error becomes a banner too) and "render"
        // runs later on the main actor.
        let background = await Task.detached { profile.raise(LoggedIn(user: "grace")) }.value
        await bus.waitForEnqueuedCalls()
        #expect(background.status.name == "failed")
        #expect(rendered.values == ["ada", "grace"])
        #expect(letters.values.count == 2)
    }
}
