import EventTree
import EventTreeJournal
import EventTreeReplay

extension SessionReport {
    /// The report as one self-contained HTML page (inline CSS and script, nothing fetched):
    /// the summary reads without JavaScript; the tree through time, the filterable event
    /// timeline and each event's route on the tree need it. `#event=ID` in the page's
    /// address selects an event.
    public func html() -> String {
        Template(named: "report.html").filled([
            "title": HTML.escaped("EventTree report: session \(session.id.rawValue) of \(journalName)"),
            "summary": summaryHTML,
            "data": dataJSON.textForScript,
        ])
    }

    /// The classes in the order the report lists them.
    static let classOrder: [Classification] = [.delivered, .consumed, .unhandled, .lost, .diverged, .failed]

    // MARK: Summary (no script needed)

    var summaryHTML: String {
        var html = "<h1>Session \(session.id.rawValue) <small>of \(HTML.escaped(journalName))</small></h1>\n"
        var facts: [(String, String)] = [
            ("process", session.process), ("host", session.host), ("started", session.startedAt),
            ("ended", session.endedAt ?? "not ended (the recording stops here)"),
        ]
        if let version = session.appVersion { facts.insert(("app version", version), at: 1) }
        if let activeMicroseconds { facts.append(("first to last raise", Self.duration(activeMicroseconds))) }
        facts.append(("events", "\(events) (\(raises) raises)"))
        html += "<dl class=\"facts\">" + facts.map { "<dt>\($0.0)</dt><dd>\(HTML.escaped($0.1))</dd>" }.joined() + "</dl>\n"
        if !holdsEveryEvent, let first = findings.first?.event.id, let last = findings.last?.event.id {
            html += "<p class=\"window\" id=\"window\">The counts below cover every event of the session. The timeline, "
                + "the routes and the tree through time hold \(findings.count) of its \(events) events: "
                + "\(first.rawValue) to \(last.rawValue). For others: <code>eventtree report \(HTML.escaped(journalName)) "
                + "--around EVENT</code> (or <code>--window N</code>).</p>\n"
        }

        html += "<h2>What happened to the events</h2>\n<table class=\"counts\"><tr>"
        html += Self.classOrder.map { "<th class=\"c-\($0)\">\($0)</th>" }.joined() + "</tr><tr>"
        html += Self.classOrder.map { "<td id=\"count-\($0)\">\(counts[$0, default: 0])</td>" }.joined() + "</tr></table>\n"

        html += "<h2>Top consumers</h2>\n"
        if consumers.isEmpty {
            html += "<p class=\"none\">No handler consumed an event.</p>\n"
        } else {
            html += "<table class=\"consumers\"><tr><th>handler</th><th>registered at</th><th>events consumed</th></tr>"
            for consumer in consumers.prefix(10) {
                html += "<tr><td>\(HTML.escaped(consumer.label))</td><td><code>\(HTML.escaped(consumer.location))</code></td><td>\(consumer.count)</td></tr>"
            }
            html += "</table>\n"
            if consumers.count > 10 { html += "<p class=\"more\">and \(consumers.count - 10) more handlers</p>\n" }
        }

        html += "<h2>Dead letters</h2>\n"
        if deadLetterCount == 0 {
            html += "<p class=\"none\">Every event reached a handler that acted.</p>\n"
        } else if deadLetters.isEmpty {
            html += "<p class=\"none\">None among the timeline's events; \(deadLetterCount) before or after them.</p>\n"
        } else {
            html += "<table class=\"dead\"><tr><th>event</th><th>type</th><th>raised at</th><th>what happened</th></tr>"
            for letter in deadLetters {
                let id = letter.event.id.rawValue
                html += "<tr><td><a href=\"#event=\(id)\">\(id)</a></td>"
                html += "<td>\(HTML.escaped(letter.event.typeName))</td><td>\(HTML.escaped(letter.originPath))</td>"
                html += "<td>\(HTML.escaped(letter.summary))</td></tr>"
            }
            html += "</table>\n"
            if deadLetterCount > deadLetters.count {
                let inWindow = findings.lazy.filter { $0.classification == .unhandled }.count
                let rest = inWindow > deadLetters.count
                    ? "\(inWindow - deadLetters.count) more in the timeline (filter it by unhandled)" : ""
                let outside = deadLetterCount - inWindow > 0 ? "\(deadLetterCount - inWindow) before or after its events" : ""
                html += "<p class=\"more\">and " + [rest, outside].filter { !$0.isEmpty }.joined(separator: ", and ") + "</p>\n"
            }
        }
        return html
    }

    /// `12.3 ms`, `4.56 s`.
    static func duration(_ microseconds: Int) -> String {
        if microseconds < 1_000 { return "\(microseconds) µs" }
        if microseconds < 1_000_000 { return String(format: "%.1f ms", Double(microseconds) / 1_000) }
        return String(format: "%.2f s", Double(microseconds) / 1_000_000)
    }

    // MARK: Data for the script

    /// Everything the page's script draws, as compact JSON: nodes, handlers and events are
    /// referred to by their index in their lists (see `Templates/report.html` for the layout).
    var dataJSON: ReportJSON {
        var nodeIndex: [NodeID: Int] = [:]
        for (index, node) in nodes.enumerated() { nodeIndex[node.id] = index }
        var handlerIndex: [HandlerID: Int] = [:]
        for (index, handler) in handlers.enumerated() { handlerIndex[handler.id] = index }
        // Transform-produced events and nested raises point at the finding they belong to.
        var rowOfEvent: [EventID: Int] = [:]
        for (row, finding) in findings.enumerated() {
            rowOfEvent[finding.event.id] = row
            for produced in finding.transforms { rowOfEvent[produced] = row }
        }
        var types: [String] = []
        var typeIndex: [String: Int] = [:]
        var strings: [String] = []
        var stringIndex: [String: Int] = [:]
        func intern(_ text: String, _ list: inout [String], _ index: inout [String: Int]) -> Int {
            if let known = index[text] { return known }
            list.append(text)
            index[text] = list.count - 1
            return list.count - 1
        }
        let phases = Phase.allCases
        let outcomes = Outcome.Kind.allCases
        var depth = [Int](repeating: 0, count: findings.count)

        var json = ReportJSON()
        json.object { json in
            json.field("journal") { $0.string(journalName) }
            json.field("session") { $0.integer(session.id.rawValue) }
            json.field("classes") { json in json.array { for name in Self.classOrder { $0.string(name.rawValue) } } }
            json.field("phases") { json in json.array { for phase in phases { $0.string(phase.description) } } }
            json.field("outcomes") { json in json.array { for outcome in outcomes { $0.string(outcome.rawValue) } } }
            // The first `start` changes rebuild the tree as it stood at the timeline's first event.
            json.field("start") { $0.integer(startingChanges) }
            json.field("startsLater") { $0.integer(startsLater ? 1 : 0) }
            // The event a window around an event selects when the address names none.
            json.field("select") { json in
                if case .around(let event, _) = window { json.integer(event.rawValue) } else { json.null() }
            }
            json.field("nodes") { json in
                json.array { json in for node in nodes { json.string(node.name) } }
            }
            // [seq, change, node, parent or -1, position or -1, name or null]
            json.field("changes") { json in
                json.array { json in
                    for change in changes {
                        json.array { json in
                            json.integer(change.seq)
                            json.string(change.change.name)
                            json.integer(nodeIndex[change.node] ?? -1)
                            switch change.change {
                            case .attached(let parent, let index), .moved(let parent, let index):
                                json.integer(nodeIndex[parent] ?? -1)
                                json.integer(index)
                                json.null()
                            case .created(let name), .renamed(let name):
                                json.integer(-1)
                                json.integer(-1)
                                json.string(name)
                            case .detached, .released:
                                json.integer(-1)
                                json.integer(-1)
                                json.null()
                            }
                        }
                    }
                }
            }
            // [node, label, location, type or null, channel, phases, registered seq, removed seq or null, calls, stops]
            json.field("handlers") { json in
                json.array { json in
                    for handler in handlers {
                        json.array { json in
                            json.integer(nodeIndex[handler.node] ?? -1)
                            json.string(handler.label)
                            json.string(handler.location)
                            json.string(handler.eventType)
                            json.string(handler.channel == .errors ? "errors" : "events")
                            json.string(phases.filter { handler.phases.contains($0) }.map(\.description).joined(separator: " "))
                            json.integer(handler.id.rawValue)
                            json.integer(handler.removedSeq)
                            let counts = callCounts[handler.id]
                            json.integer(counts?.calls ?? 0)
                            json.integer(counts?.stops ?? 0)
                        }
                    }
                }
            }
            // [id, type, kind, mode, origin, class, parent row or -1, depth, raised µs or null,
            //  summary, [transform ids], stop handler or -1, stop step or -1,
            //  [node, phase, reach (0 reached, 1 not reached, 2 undelivered), calls, (handler, outcome or -1)…]…]
            json.field("events") { json in
                json.array { json in
                    for (row, finding) in findings.enumerated() {
                        let event = finding.event
                        let parent = (event.cause ?? event.transformedFrom).flatMap { rowOfEvent[$0] } ?? -1
                        if parent >= 0 && parent < row { depth[row] = depth[parent] + 1 }
                        let route = finding.route ?? []
                        let stopHandler = finding.stoppedBy.flatMap { handlerIndex[$0.handler] } ?? -1
                        let stopStep = finding.stoppedBy.flatMap { stopper in
                            route.firstIndex { visit in visit.phase == stopper.phase && visit.calls.contains { $0.handler == stopper.handler } }
                        } ?? -1
                        json.array { json in
                            json.integer(event.id.rawValue)
                            json.integer(intern(event.typeName, &types, &typeIndex))
                            json.string(event.kind.description)
                            json.string(event.mode.description)
                            json.integer(nodeIndex[event.origin] ?? -1)
                            json.integer(Self.classOrder.firstIndex(of: finding.classification) ?? 0)
                            json.integer(parent)
                            json.integer(depth[row])
                            json.integer(event.raisedMicroseconds)
                            json.integer(intern(finding.summary, &strings, &stringIndex))
                            json.array { json in for produced in finding.transforms { json.integer(produced.rawValue) } }
                            json.integer(stopHandler)
                            json.integer(stopStep)
                            json.array { json in
                                for visit in route {
                                    json.integer(nodeIndex[visit.node] ?? -1)
                                    json.integer(phases.firstIndex(of: visit.phase) ?? 0)
                                    switch visit.reach {
                                    case .reached: json.integer(0)
                                    case .notReached: json.integer(1)
                                    case .undelivered: json.integer(2)
                                    }
                                    json.integer(visit.calls.count)
                                    for call in visit.calls {
                                        json.integer(handlerIndex[call.handler] ?? -1)
                                        json.integer(call.outcome.flatMap { outcomes.firstIndex(of: $0) } ?? -1)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            json.field("types") { json in json.array { for type in types { $0.string(type) } } }
            json.field("strings") { json in json.array { for text in strings { $0.string(text) } } }
        }
        return json
    }
}
