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

/// A main-actor coordinator app: tabs → feed → posts, settings → profile. Its handlers
/// release a post during a theme broadcast, answer a request, transform, raise from inside
/// a handler, throw, and convert the error into a banner event; `convertsErrors: false`
/// is the one-handler change a commit might make.
@MainActor
final class FeedApp {
    let app: EventNode
    let feed: EventNode
    let profile: EventNode
    let nodes: [EventNode]
    var themes = 0

    init(bus: EventBus, convertsErrors: Bool = true) {
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
    }

    static var types: EventTypes {
        var types = EventTypes()
        types.register(Theme.self)
        types.register(Refresh.self)
        types.register(LoadFeed.self)
        types.register(SyncFinished.self)
        types.register(CurrentUser.self)
        return types
    }

    /// A session as the app makes it, recorded into `journal`: on the main actor, from a
    /// background thread with a synchronous raise (which fails at the main-actor handler, and
    /// warns), and awaited from a task.
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
                done.resume()
            }.start()
        }
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
            #expect(rows.map(\.[0]) == ["Theme", "CurrentUser", "Refresh", "LoadFeed", "SyncFinished", "SyncFinished"].map { JournalValue.text($0) })
            let threads = rows.map { row in if case .text(let name) = row[1] { name } else { "" } }
            #expect(Array(threads.prefix(4)) == ["main actor", "main actor", "main actor", "main actor"])
            #expect(threads[4].hasPrefix("thread ") || !["main actor", "awaited", "main", ""].contains(threads[4]))
            #expect(threads[5] == "awaited")

            let report = try await LiveReplay(journal: journal.path, types: FeedApp.types).runAsync { bus in
                FeedApp(bus: bus)
            }
            #expect(report.differences.isEmpty, "\(report)")
            #expect(report.replayed == 6)
            // The synchronous raise off the main actor warns again, as it did when recorded.
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.hasPrefix("handler 'sync-finished'") == true)
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
