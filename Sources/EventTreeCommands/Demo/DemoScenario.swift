import EventTree

/// The built-in demo: a small app whose session shows every outcome the journal can
/// explain. `eventtree demo` records it; the tests replay it.
///
///     app
///     ├── tabs
///     │   ├── feed
///     │   │   ├── post-1
///     │   │   └── post-2
///     │   └── settings
///     │       └── profile
///     └── analytics
package enum DemoScenario {
    /// Runs the session on a new bus that records into `recorder`, reading times from
    /// `clock` (tests pass a fixed one, so that the times in the journal repeat).
    package static func run(recording recorder: any Recorder, clock: EventClock = .system) {
        let bus = EventBus(recorder: recorder, appVersion: "demo", process: "eventtree-demo", clock: clock)
        let app = EventNode("app", bus: bus)
        let tabs = EventNode("tabs", parent: app)
        let feed = EventNode("feed", parent: tabs)
        let posts = Owner(nodes: [EventNode("post-1", parent: feed), EventNode("post-2", parent: feed)])
        let settings = EventNode("settings", parent: tabs)
        let profile = EventNode("profile", parent: settings)
        let analytics = EventNode("analytics", parent: app)

        app.on((any Trackable).self, label: "analytics") { _, _ in .handled }
        app.on(CurrentUser.self, label: "session") { _, _ in .answered("ada") }
        app.on(OpenURL.self, label: "deep-link-router") { _, _ in .handled }
        app.on(ShowBanner.self, label: "banner") { _, _ in .handled }
        app.onError(SyncFailed.self, label: "sync-error-banner") { error, _ in
            .transformed(ShowBanner(text: "\(error)"))
        }
        app.on(CloseScreen.self, phases: .target, label: "close-post-2") { _, _ in
            posts.release(at: 1)
            return .handled
        }
        feed.on(PostLiked.self, label: "update-like-count") { _, _ in .handled }
        feed.on(ThemeChanged.self, label: "feed-theme") { _, _ in .handled }
        feed.onError(RenderError.self, label: "render-fallback") { _, _ in .handled }
        feed.on(Refresh.self, phases: .propagate, label: "reload-feed") { _, _ in .handled }
        posts.node(0)?.on(ButtonTapped.self, label: "tap-to-like") { event, _ in
            event.button == "like" ? .transformed(PostLiked(post: "post-1")) : .ignored
        }
        posts.node(1)?.on(ThemeChanged.self, label: "post-2-theme") { _, _ in throw RenderError(view: "post-2") }
        posts.node(1)?.on(CloseScreen.self, phases: .propagate, label: "save-draft") { _, _ in .handled }
        settings.on(OpenURL.self, label: "settings-router") { event, _ in
            event.url.hasPrefix("app://settings") ? .consumed : .ignored
        }
        settings.on(ThemeChanged.self, label: "settings-theme") { _, _ in .handled }
        settings.on(Refresh.self, phases: .propagate, label: "reload-settings") { _, _ in .handled }
        profile.on(Refresh.self, phases: .propagate, label: "reload-profile") { _, _ in .handled }

        posts.node(0)?.raise(PostLiked(post: "post-1"))                        // delivered: feed, analytics
        profile.raise(OpenURL(url: "app://settings/privacy"))                  // consumed by settings-router
        _ = profile.request(CurrentUser())                                     // answered by app's session
        _ = feed.request(UnreadCount())                                        // unanswered: a dead letter
        settings.raise(ThemeChanged(theme: "dark"), mode: .broadcast)          // post-2 throws; feed catches
        feed.report(SyncFailed(reason: "offline"))                             // converted into ShowBanner
        posts.node(0)?.raise(ButtonTapped(button: "like"))                     // transformed into PostLiked
        tabs.raise(Refresh(), mode: .descend(.firstHandler))                   // feed and settings only
        try? tabs.attach(profile)                                              // profile moves under tabs
        feed.rename(to: "home")
        tabs.raise(Refresh(), mode: .descend(.firstHandler))                   // home, settings, profile
        app.raise(CloseScreen(), mode: .descend)                               // post-2 released on the way: lost
        analytics.raise(NamedEvent("debug.ping"))                              // nobody listens: a dead letter
        // The sign-in sheet: its event carries a password and a token, which the journal
        // stores as "[redacted]" (its default deny-list).
        profile.on(SignIn.self, label: "sign-in") { _, _ in .consumed }
        profile.raise(SignIn(user: "ada", password: "hunter2", token: "tok-demo-secret")) // consumed; secrets redacted
        bus.end()
    }

    /// Holds the demo's posts the way a screen holds its rows.
    final class Owner: @unchecked Sendable {
        // Safe: `held` and `first` are guarded by `lock`.
        private let lock = Lock()
        private var held: [EventNode?]
        /// The slots before it were let go by ``releaseOldest()`` (and are dropped now and
        /// then, so that a long session's picks and releases cost the same as a short one's).
        private var first = 0

        init(nodes: [EventNode]) { held = nodes }

        /// The node in slot `index`, counted from the oldest not let go by ``releaseOldest()``.
        func node(_ index: Int) -> EventNode? { lock.withLock { held[first + index] } }

        /// How many slots it has after those ``releaseOldest()`` let go (a node let go by
        /// ``release(at:)`` keeps its slot, empty).
        var count: Int { lock.withLock { held.count - first } }

        /// Holds one more.
        func append(_ node: EventNode) { lock.withLock { held.append(node) } }

        /// Lets go of the oldest node it holds.
        func releaseOldest() {
            let node = lock.withLock { () -> EventNode? in
                guard first < held.count else { return nil }
                defer {
                    held[first] = nil
                    first += 1
                    if first >= 64 && 2 * first >= held.count {
                        held.removeFirst(first)
                        first = 0
                    }
                }
                return held[first]
            }
            _ = node
        }

        /// Lets go of a post, as a screen closing it would.
        func release(at index: Int) {
            let node = lock.withLock { () -> EventNode? in
                defer { held[first + index] = nil }
                return held[first + index]
            }
            _ = node
        }
    }
}
