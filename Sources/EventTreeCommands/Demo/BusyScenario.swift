import EventTree

/// A busy version of the demo app, for trying the commands and the report at scale
/// (`eventtree demo --events N`): 4 tabs of 3 sections of 3 rows (53 nodes), the demo's
/// kinds of handlers on them, and a mix of raises that gives every verdict; rows come and
/// go as the session runs, and now and then one is released while an event is on its way.
package enum BusyScenario {
    /// Records about `events` raises (transforms, nested raises and errors included) into
    /// `recorder`, the same ones every run.
    package static func run(recording recorder: any Recorder, events: Int, clock: EventClock = .system) {
        let bus = EventBus(recorder: recorder, appVersion: "demo", process: "eventtree-demo", clock: clock)
        let app = EventNode("app", bus: bus)
        let analytics = EventNode("analytics", parent: app)
        app.on((any Trackable).self, label: "analytics") { _, _ in .handled }
        app.on(CurrentUser.self, label: "session") { _, _ in .answered("ada") }
        app.on(ShowBanner.self, label: "banner") { _, _ in .handled }
        app.on(OpenURL.self, label: "deep-link-router") { _, _ in .handled }
        app.onError(SyncFailed.self, label: "sync-error-banner") { error, _ in .transformed(ShowBanner(text: "\(error)")) }
        let rows = DemoScenario.Owner(nodes: [])
        var tabs: [EventNode] = []
        var sections: [EventNode] = []
        for tabName in ["feed", "search", "inbox", "settings"] {
            let tab = EventNode(tabName, parent: app)
            tab.on(OpenURL.self, label: "\(tabName)-router") { event, _ in
                event.url.hasPrefix("app://\(tabName)") ? .consumed : .ignored
            }
            tab.onError(RenderError.self, label: "\(tabName)-render-fallback") { _, _ in .handled }
            tabs.append(tab)
            for sectionIndex in 1...3 {
                let section = EventNode("section-\(sectionIndex)", parent: tab)
                section.on(PostLiked.self, label: "\(tabName)-\(sectionIndex)-likes") { _, _ in .handled }
                section.on(Refresh.self, phases: .propagate, label: "\(tabName)-\(sectionIndex)-reload") { _, _ in .handled }
                sections.append(section)
            }
        }
        var rowCount = 0
        func addRow(to section: EventNode) {
            rowCount += 1
            let row = EventNode("row-\(rowCount)", parent: section)
            let name = row.name
            row.on(ButtonTapped.self, label: "\(name)-tap") { event, context in
                switch event.button {
                case "like": return .transformed(PostLiked(post: name))
                case "share":
                    // A nested raise: the share sheet announces itself.
                    context.node?.raise(ShowBanner(text: "shared \(name)"))
                    return .handled
                default: return .ignored
                }
            }
            if rowCount % 5 == 0 {
                row.on(ThemeChanged.self, label: "\(name)-theme") { _, _ in throw RenderError(view: name) }
            }
            row.on(CloseScreen.self, phases: .propagate, label: "\(name)-save-draft") { _, _ in .handled }
            rows.append(row)
        }
        for section in sections {
            for _ in 1...3 { addRow(to: section) }
        }
        // The screen that closes a row while CloseScreen descends (its rows lose the event).
        app.on(CloseScreen.self, phases: .target, label: "close-oldest-row") { _, _ in
            rows.releaseOldest()
            return .handled
        }

        var random = UInt64(0x5EED)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        var raised = 0
        while raised < events {
            let tab = tabs[next(tabs.count)]
            let section = sections[next(sections.count)]
            guard let row = rows.node(next(rows.count)) else { continue }
            switch raised % 20 {
            case 0, 1, 2, 3: row.raise(PostLiked(post: row.name))
            case 4, 5: row.raise(OpenURL(url: "app://\(tabs[next(tabs.count)].name)/item"))
            case 6: _ = row.request(CurrentUser())
            case 7: _ = section.request(UnreadCount())
            case 8, 9: row.raise(ButtonTapped(button: "like"))
            case 10: row.raise(ButtonTapped(button: "share"))
            case 11: row.raise(ButtonTapped(button: "hold"))
            case 12, 13: tab.raise(Refresh(), mode: .descend(.firstHandler))
            case 14: section.report(SyncFailed(reason: "offline"))
            case 15: analytics.raise(NamedEvent("debug.ping"))
            case 16 where raised % 400 == 16: tab.raise(ThemeChanged(theme: "dark"), mode: .broadcast)
            case 17 where raised % 500 == 17:
                app.raise(CloseScreen(), mode: .descend)
                addRow(to: sections[next(sections.count)])
            case 18 where raised % 100 == 18:
                // A row moves to another section.
                try? sections[next(sections.count)].attach(row)
            default: row.raise(PostLiked(post: row.name))
            }
            raised += 1
        }
        bus.end()
    }
}
