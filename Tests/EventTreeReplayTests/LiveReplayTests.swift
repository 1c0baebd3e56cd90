import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Testing

/// A small app, built the same way in the recording and in the replay; `strictGate`
/// changes its behaviour the way a code change would. Its nodes are owned by the app
/// object, as an app's coordinators own theirs.
final class SmallApp: Sendable {
    let app: EventNode
    let settings: EventNode
    let profile: EventNode

    init(bus: EventBus, strictGate: Bool = false) {
        app = EventNode("app", bus: bus)
        settings = EventNode("settings", parent: app)
        profile = EventNode("profile", parent: settings)
        app.on(Ping.self, label: "log") { _, _ in .handled }
        settings.on(Ping.self, label: "gate") { event, _ in strictGate || event.n > 5 ? .consumed : .handled }
        profile.on(Pong.self, label: "pong-to-ping") { _, _ in .transformed(Ping(n: 1)) }
        app.on(Ask.self, label: "answer") { _, _ in .answered(7) }
    }

    static func record(into journal: Journal) {
        let bus = EventBus(recorder: journal)
        let small = SmallApp(bus: bus)
        small.profile.raise(Ping(n: 1))
        small.profile.raise(Ping(n: 9))
        small.profile.raise(Pong())
        _ = small.profile.request(Ask())
        small.app.raise(Tagged(), mode: .descend)
    }
}

/// A main-actor coordinator whose handlers touch its state: the Swift 6 way.
@MainActor
final class Coordinator {
    let root: EventNode
    let modal: EventNode?
    var opened = 0

    init(bus: EventBus, consumes: Bool = false, withModal: Bool = true) {
        root = EventNode("app", bus: bus)
        modal = withModal ? EventNode("modal", parent: root) : nil
        root.onMainActor(Ping.self, label: "count") { [unowned self] _, _ in
            self.opened += 1
            return consumes ? .consumed : .handled
        }
        modal?.onMainActor(Ping.self, label: "modal-sees") { _, _ in .handled }
    }
}

@Suite struct LiveReplayTests {
    static var types: EventTypes {
        var types = EventTypes()
        types.register(Ping.self)
        types.register(Pong.self)
        types.register(Ask.self)
        return types
    }

    @Test func theSameCodeReplaysWithoutDifferenceWhenBuildReturnsTheAppObject() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            // The app object is what keeps the nodes: build returns it, the replay keeps it.
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in SmallApp(bus: bus) }
            #expect(report.differences.isEmpty, "\(report)")
            #expect(report.replayed == 4)
            #expect(report.skipped.map(\.eventType) == ["Tagged"])
            #expect(report.description == "replayed 4 raises, skipped 1: no difference")
        }
    }

    /// A sign-in whose password and token the journal redacted replays as recorded: its
    /// handlers see "[redacted]" and do not branch on it.
    @Test func redactedEventsReplayWithoutDifference() async throws {
        struct SignIn: Event {
            var user: String
            var password: String
            var token: String
        }
        func build(_ bus: EventBus) -> [EventNode] {
            let app = EventNode("app", bus: bus)
            let form = EventNode("form", parent: app)
            app.on(SignIn.self, label: "audit") { event, _ in event.user == "ada" ? .handled : .ignored }
            form.on(SignIn.self, label: "check") { event, _ in event.password.isEmpty ? .consumed : .handled }
            return [app, form]
        }
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let nodes = build(bus)
            nodes[1].raise(SignIn(user: "ada", password: "hunter2", token: "tok"))
            nodes[1].raise(SignIn(user: "bob", password: "", token: ""))
            try journal.flush()
            let stored = try JournalReader(path: journal.path).rows("SELECT payload, event_id FROM event_history ORDER BY event_id")
            #expect(stored.map(\.[0]) == [
                .text(#"{"password":"[redacted]","token":"[redacted]","user":"ada"}"#),
                .text(#"{"password":"[redacted]","token":"[redacted]","user":"bob"}"#),
            ])
            var types = EventTypes()
            types.register(SignIn.self)
            let report = try LiveReplay(journal: journal.path, types: types).run { bus in build(bus) }
            // The second raise was consumed by "check" (an empty password); replayed, the
            // handler sees "[redacted]": it branches on a redacted field, and so differs.
            #expect(report.replayed == 2)
            #expect(report.differing == 1)
            #expect(report.differences.map(\.event.rawValue) == [stored[1][1].int])
        }
    }

    @Test func changedCodeIsReportedAtEveryDifferingRaiseWithNumberedSteps() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in
                SmallApp(bus: bus, strictGate: true)
            }
            #expect(report.differing == 2)
            let difference = try #require(report.difference)
            #expect(difference.eventType == "Ping")
            #expect(difference.stepIndex == 0)
            // Numbered as explain numbers Ping's route: step 1 is the profile, with no handler.
            #expect(difference.firstDifferingStep == "step 2")
            #expect(difference.diff == """
                - 2. Ping at app/settings bubble: gate -> handled
                - 3. Ping at app bubble: log -> handled
                + 2. Ping at app/settings bubble: gate -> consumed
                """)
            // The transform's Ping is stopped too: the new run ends a step early.
            #expect(report.differences[1].debugDescription.hasSuffix("differs at step 2 of Ping"))
            #expect(report.differences[1].diff == """
                  1. Pong at app/settings/profile target: pong-to-ping -> transformed
                - 2. Ping at app/settings bubble: gate -> handled
                - 3. Ping at app bubble: log -> handled
                + 2. Ping at app/settings bubble: gate -> consumed
                """)
            let limited = try LiveReplay(journal: journal.path, types: Self.types).run(limit: 1) { bus in
                SmallApp(bus: bus, strictGate: true)
            }
            #expect(limited.differences.count == 1)
            #expect(limited.description.hasPrefix("replayed 4 raises, skipped 1; 2 differ (the first 1 shown)\n"))
        }
    }

    @Test func aMissingNodeSaysWhyItMayBeMissing() async throws {
        try await withTemporaryJournal { journal in
            SmallApp.record(into: journal)
            try journal.flush()
            // The pattern that drops the app object: its nodes are released at once.
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in
                _ = SmallApp(bus: bus)
                return ()
            }
            let difference = try #require(report.difference)
            #expect(difference.actual.isEmpty)
            #expect(difference.diff.hasSuffix("""
                + (not raised: no node at app/settings/profile in the new tree. It was never built, or it was released because nothing kept it alive: return the objects that own your nodes from build, which keeps them for the whole replay)
                """))
        }
    }

    @Test @MainActor func aMainActorCoordinatorReplaysAndAChangedHandlerShowsAReadableDiff() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            var coordinator: Coordinator? = Coordinator(bus: bus)
            await coordinator!.root.raiseAsync(Ping(n: 1), mode: .descend)
            // The modal is dismissed by the app's own code, between two raises.
            coordinator = Coordinator(bus: bus, withModal: false)
            _ = coordinator
            try journal.flush()
            let same = try await LiveReplay(journal: journal.path, types: Self.types).runAsync { bus in Coordinator(bus: bus) }
            #expect(same.differences.isEmpty, "\(same)")
            let changed = try await LiveReplay(journal: journal.path, types: Self.types).runAsync { bus in
                Coordinator(bus: bus, consumes: true)
            }
            let difference = try #require(changed.difference)
            #expect(difference.diff == """
                - 1. Ping at app target: count -> handled
                - 2. Ping at app/modal propagate: modal-sees -> handled
                + 1. Ping at app target: count -> consumed
                """)
        }
    }

    @Test func treeChangesMadeOutsideRaisesAreReplayedIntoTheLiveTree() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let small = SmallApp(bus: bus)
            small.profile.raise(Ping(n: 1))
            small.profile.rename(to: "account")
            small.settings.release()
            small.app.raise(Ping(n: 2))
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: Self.types).run { bus in SmallApp(bus: bus) }
            #expect(report.differences.isEmpty, "\(report)")
            // The release of settings detaches its child first, as the journal records it.
            #expect(report.treeChanges.map { $0.drop { $0 != ":" } } == [
                ": renamed app/settings/profile to account", ": detached app/settings/account", ": released app/settings",
            ])
        }
    }
}

/// An app whose theme broadcast closes a post while it is delivered: the post's remaining
/// steps are undelivered, each naming the handler whose call it lost.
final class ClosingApp: @unchecked Sendable {
    let app: EventNode
    let feed: EventNode
    var post: EventNode?

    init(bus: EventBus) {
        app = EventNode("app", bus: bus)
        feed = EventNode("feed", parent: app)
        let post = EventNode("post", parent: feed)
        self.post = post
        feed.on(Ping.self, phases: .propagate, label: "close-post") { [unowned self] _, _ in
            self.post = nil
            return .handled
        }
        post.on(Ping.self, phases: .propagate, label: "post-theme") { _, _ in .handled }
        post.on(Ping.self, phases: .propagate, label: "post-layout") { _, _ in .handled }
    }
}

@Suite struct LiveReplayReleaseTests {
    @Test func aNodeReleasedDuringDeliveryReplaysWithoutDifference() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let recorded = ClosingApp(bus: bus)
            recorded.app.raise(Ping(), mode: .broadcast)
            try journal.flush()
            let history = try JournalReader(path: journal.path).rows(
                "SELECT node_path, handler_label, outcome FROM delivery_history WHERE outcome = 'undelivered' ORDER BY seq")
            #expect(history.map { $0.map(\.description) } == [
                ["app/feed/post", "post-theme", "undelivered"], ["app/feed/post", "post-layout", "undelivered"],
            ])
            var types = EventTypes()
            types.register(Ping.self)
            let report = try LiveReplay(journal: journal.path, types: types).run { bus in ClosingApp(bus: bus) }
            #expect(report.replayed == 1)
            #expect(report.differences.isEmpty, "\(report)")
            withExtendedLifetime(recorded) {}
        }
    }
}

/// Three handlers on a bubble route; `quietMiddle` makes the middle one ignore the event.
final class ThreeSteps: Sendable {
    let app: EventNode
    let settings: EventNode
    let profile: EventNode

    init(bus: EventBus, quietMiddle: Bool = false) {
        app = EventNode("app", bus: bus)
        settings = EventNode("settings", parent: app)
        profile = EventNode("profile", parent: settings)
        profile.on(Ping.self, label: "profile") { _, _ in .handled }
        settings.on(Ping.self, label: "settings") { _, _ in quietMiddle ? .ignored : .handled }
        app.on(Ping.self, label: "app") { _, _ in .handled }
    }
}

@Suite struct LiveReplayDiffTests {
    @Test func onlyTheStepsThatDifferAreMarkedAndTheReportReadsFirst() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let recorded = ThreeSteps(bus: bus)
            recorded.profile.raise(Ping(n: 1))
            try journal.flush()
            var types = EventTypes()
            types.register(Ping.self)
            let report = try LiveReplay(journal: journal.path, types: types).run { bus in ThreeSteps(bus: bus, quietMiddle: true) }
            let difference = try #require(report.difference)
            #expect(difference.diff == """
                  1. Ping at app/settings/profile target: profile -> handled
                - 2. Ping at app/settings bubble: settings -> handled
                + 2. Ping at app/settings bubble: settings -> ignored
                  3. Ping at app bubble: app -> handled
                """)
            // What a failing `#expect(report.differences.isEmpty)` prints for each difference.
            #expect("\(difference)" == "event \(difference.event.rawValue) (Ping) differs at step 2:\n" + difference.diff)
            // In an array (as a failed `#expect(report.differences.isEmpty)` shows it): one line each.
            #expect(String(describing: [difference]) == "[event \(difference.event.rawValue) (Ping) differs at step 2]")
            #expect(report.description == "replayed 1 raise; 1 differ\n\(difference)")
            withExtendedLifetime(recorded) {}
        }
    }
}
