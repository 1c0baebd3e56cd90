import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Foundation
import Testing

struct Theme: Event { var dark = true }
struct CurrentUser: EventRequest { typealias Answer = String }
struct Refresh: Event {}
struct Reload: Event {}
struct Track: Event { var what = "" }
struct LoadFeed: Event {}
struct LoadFailed: Error {}
struct ShowBanner: Event { var text = "" }
struct SyncFinished: Event {}
struct PostsLoaded: Event { var count = 0 }

/// A main-actor coordinator app: tabs → feed → posts, settings → profile. Its handlers
/// release a post during a theme broadcast, answer a request, transform, raise from inside
/// a handler, throw, and convert the error into a banner event; one is called later on the
/// main actor when raised elsewhere. `convertsErrors: false` and `rendersPosts: false` are
/// one-handler changes a commit might make.
@MainActor
final class FeedApp {
    let app: EventNode
    let feed: EventNode
    let profile: EventNode
    let nodes: [EventNode]
    var themes = 0

    init(bus: EventBus, convertsErrors: Bool = true, rendersPosts: Bool = true) {
        app = EventNode("app", bus: bus)
        let tabs = EventNode("tabs", parent: app)
        feed = EventNode("feed", parent: tabs)
        let post1 = EventNode("post-1", parent: feed)
        let post2 = EventNode("post-2", parent: feed)
        let settings = EventNode("settings", parent: app)
        profile = EventNode("profile", parent: settings)
        nodes = [tabs, post1, post2, settings]

        app.onMainActor(Theme.self, label: "app-theme") { [unowned self] _, _ in
            themes += 1
            return .handled
        }
        // Reading a post closes the one after it: released while the broadcast runs.
        post1.onMainActor(Theme.self, label: "post-1-theme") { _, _ in
            post2.release()
            return .handled
        }
        post2.onMainActor(Theme.self, label: "post-2-theme") { _, _ in .handled }
        settings.onMainActor(Theme.self, label: "settings-theme") { _, _ in .handled }
        settings.onMainActor(CurrentUser.self, label: "current-user") { _, _ in .answered("ada") }
        feed.on(Refresh.self, label: "refresh") { _, _ in .transformed(Reload()) }
        app.onMainActor(Reload.self, label: "reload") { _, context in
            context.node?.raise(Track(what: "reload"))
            return .handled
        }
        app.on(Track.self, label: "track") { _, _ in .handled }
        feed.on(LoadFeed.self, label: "load") { _, _ in throw LoadFailed() }
        app.onError(LoadFailed.self, label: "banner") { _, _ in
            convertsErrors ? .transformed(ShowBanner(text: "could not load")) : .handled
        }
        app.onMainActor(ShowBanner.self, label: "show-banner") { _, _ in .handled }
        feed.onMainActor(SyncFinished.self, label: "sync-finished") { _, _ in .handled }
        feed.onMainActor(PostsLoaded.self, label: "render", whenRaisedElsewhere: .enqueue) { _, context in
            guard rendersPosts else { return .ignored }
            context.node?.raise(Track(what: "render"))
            return .handled
        }
    }

    static var types: EventTypes {
        var types = EventTypes()
        types.register(Theme.self)
        types.register(Refresh.self)
        types.register(LoadFeed.self)
        types.register(SyncFinished.self)
        types.register(CurrentUser.self)
        types.register(PostsLoaded.self)
        return types
    }

    /// A session as the app makes it, recorded into `journal`: on the main actor, from a
    /// background thread with synchronous raises (one fails at a main-actor handler, and
    /// warns; one enqueues a main-actor handler's call), and awaited from a task.
    static func record(into journal: Journal) async throws {
        let bus = EventBus(recorder: journal)
        bus.onWarning { _ in }
        let app = FeedApp(bus: bus)
        app.app.raise(Theme(), mode: .broadcast)
        _ = app.profile.request(CurrentUser())
        app.feed.raise(Refresh())
        app.feed.raise(LoadFeed())
        let feed = app.feed
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                feed.raise(SyncFinished())
                feed.raise(PostsLoaded(count: 3))
                done.resume()
            }.start()
        }
        await bus.waitForEnqueuedCalls()
        _ = await Task.detached { await feed.raiseAsync(SyncFinished()) }.value
        withExtendedLifetime(app) {}
        try journal.flush()
    }
}

@Suite struct CoordinatorReplayTests {
    @Test @MainActor func aCoordinatorAppsSessionReplaysUnchangedWithoutDifferenceAndEachRaiseOnItsThreadKind() async throws {
        try await withTemporaryJournal { journal in
            try await FeedApp.record(into: journal)

            // Where each raise was made, as the journal says.
            let reader = try JournalReader(path: journal.path)
            let rows = try reader.rows("""
                SELECT event_type, thread FROM event_history WHERE cause_event_id IS NULL AND transformed_from_event_id IS NULL
                AND kind != 'error' ORDER BY event_id
                """)
            #expect(rows.map(\.[0]) == ["Theme", "CurrentUser", "Refresh", "LoadFeed", "SyncFinished", "PostsLoaded", "SyncFinished"].map { JournalValue.text($0) })
            let threads = rows.map { row in if case .text(let name) = row[1] { name } else { "" } }
            #expect(Array(threads.prefix(4)) == ["main actor", "main actor", "main actor", "main actor"])
            #expect(threads[4].hasPrefix("thread ") || !["main actor", "awaited", "main", ""].contains(threads[4]))
            #expect(threads[5] == threads[4])
            #expect(threads[6] == "awaited")

            let report = try await LiveReplay(journal: journal.path, types: FeedApp.types).runAsync { bus in
                FeedApp(bus: bus)
            }
            #expect(report.differences.isEmpty, "\(report)")
            #expect(report.replayed == 7)
            // The synchronous raise off the main actor warns again, as it did when recorded.
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.hasPrefix("handler 'sync-finished'") == true)
        }
    }

    @Test @MainActor func anEnqueuedCallIsJournaledTwiceAndReplayedOnTheMainActor() async throws {
        try await withTemporaryJournal { journal in
            try await FeedApp.record(into: journal)
            let reader = try JournalReader(path: journal.path)
            let posts = try reader.rows("""
                SELECT handler_label, outcome, thread FROM delivery_history h JOIN event_history e USING (event_id)
                WHERE h.event_type = 'PostsLoaded' ORDER BY h.seq
                """)
            #expect(posts.map { $0.prefix(2) } == [
                [.text("render"), .text("enqueued")], [.text("render"), .text("handled")],
            ])
            let replayer = try Replayer(journal: journal.path)
            let raises = try replayer.appRaises()
            let loaded = try #require(raises.first { $0.typeName == "PostsLoaded" })
            // Explained as the raise went: the call enqueued, the route on to its end.
            let explained = try replayer.explain(event: loaded.id)
            #expect(explained.finding.classification == .delivered)
            #expect(explained.steps.map { "\($0.number) \($0.calls.map { "\($0.handler.label)=\($0.outcomeDescription)" })" } == [
                "1 [\"render=enqueued\"]", "2 []", "3 []",
            ])
            #expect(try JournalVerifier(journal: journal.path).verify().isIntact)
            #expect(loaded.fate == "delivered")
            #expect(loaded.steps.map(\.description) == [
                "1. PostsLoaded at app/tabs/feed target: render -> enqueued",
                "1. PostsLoaded at app/tabs/feed target: render -> handled",
                // Raised inside the later call: caused by PostsLoaded, so one of its steps.
                "3. Track at app bubble: track -> handled",
            ])

            // Unchanged, above; with the enqueued handler changed, exactly that raise differs.
            let report = try await LiveReplay(journal: journal.path, types: FeedApp.types).runAsync { bus in
                FeedApp(bus: bus, rendersPosts: false)
            }
            #expect(report.differing == 1)
            let difference = try #require(report.difference)
            #expect(difference.eventType == "PostsLoaded")
            #expect(difference.diff == """
                  1. PostsLoaded at app/tabs/feed target: render -> enqueued
                - 1. PostsLoaded at app/tabs/feed target: render -> handled
                - 3. Track at app bubble: track -> handled
                + 1. PostsLoaded at app/tabs/feed target: render -> ignored
                """)
            #expect(difference.debugDescription.hasSuffix("differs at step 1"))
        }
    }

    @Test @MainActor func aChangedErrorHandlerDiffersAtExactlyTheRaiseWhoseErrorItConverted() async throws {
        try await withTemporaryJournal { journal in
            try await FeedApp.record(into: journal)
            let report = try await LiveReplay(journal: journal.path, types: FeedApp.types).runAsync { bus in
                FeedApp(bus: bus, convertsErrors: false)
            }
            #expect(report.differing == 1)
            let difference = try #require(report.difference)
            #expect(difference.eventType == "LoadFeed")
            #expect(difference.stepIndex == 1)
            // As `explain` numbers the error's route: feed (target), tabs, app (bubble).
            #expect(difference.firstDifferingStep == "step 3 of LoadFailed")
            #expect(difference.diff == """
                  1. LoadFeed at app/tabs/feed target: load -> failed
                - 3. LoadFailed at app bubble: banner -> transformed
                - 1. ShowBanner at app target: show-banner -> handled
                + 3. LoadFailed at app bubble: banner -> handled
                """)
        }
    }

    /// `run` raises with its caller's isolation: from the main actor, main-actor handlers are
    /// called (a nonisolated raise inside it would fail them all, and differ at every step).
    @Test @MainActor func theSynchronousRunOnTheMainActorCallsMainActorHandlers() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = FeedApp(bus: bus)
            app.app.raise(Theme(), mode: .broadcast)
            _ = app.profile.request(CurrentUser())
            try journal.flush()
            let report = try LiveReplay(journal: journal.path, types: FeedApp.types).run { bus in FeedApp(bus: bus) }
            #expect(report.replayed == 2)
            #expect(report.differences.isEmpty, "\(report)")
            #expect(report.warnings.isEmpty)
        }
    }
}
