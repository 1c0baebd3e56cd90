import EventTree
import EventTreeReplay

/// Graph pictures of a tree, and of one event's route on it and its cause chain, as
/// Graphviz DOT (`dot -Tsvg`) or Mermaid (GitHub and most Markdown viewers draw it).
///
/// ```swift
/// let replayer = try Replayer(journal: "app.eventtree")
/// let tree = try replayer.topology()
/// print(Diagram(tree: tree).rendered(as: .dot))
/// ```
public struct Diagram: Sendable {
    /// The diagram languages.
    public enum Format: String, Sendable, CaseIterable {
        /// Graphviz DOT.
        case dot
        /// A Mermaid flowchart.
        case mermaid
    }

    /// The tree drawn.
    public let tree: TreeSnapshot
    /// The event whose route (and cause chain) is drawn on the tree, if any.
    public let explanation: Explanation?

    /// A diagram of `tree`, with `explanation`'s event drawn on it when given (pass the
    /// tree as it stood when the event was raised: `topology(session:at:)` at its id − 1).
    public init(tree: TreeSnapshot, explanation: Explanation? = nil) {
        self.tree = tree
        self.explanation = explanation
    }

    /// How a node took part in the event's route.
    struct Mark {
        var steps: [String] = []
        var state = State.notReached
        var stoppedBy: String?
        var threw: String?
        var isOrigin = false

        enum State: String {
            case reached, notReached, undelivered
        }
    }

    /// Each node's part in the route, by path.
    var marks: [String: Mark] {
        guard let explanation else { return [:] }
        var marks: [String: Mark] = [:]
        for step in explanation.steps {
            var mark = marks[step.nodePath] ?? Mark()
            mark.steps.append("\(step.number) \(step.phase)")
            switch step.reach {
            case .reached: mark.state = .reached
            case .undelivered where mark.state != .reached: mark.state = .undelivered
            default: break
            }
            marks[step.nodePath] = mark
        }
        let finding = explanation.finding
        if let stopper = finding.stoppedBy {
            marks[stopper.nodePath, default: Mark()].stoppedBy = "\(stopper.label) (\(stopper.location)) in \(stopper.phase): \(finding.classification)"
        }
        if let failure = finding.failure {
            marks[failure.site.nodePath, default: Mark()].threw = "\(failure.site.label) (\(failure.site.location)) threw: \(failure.message)"
        }
        marks[finding.originPath, default: Mark()].isOrigin = true
        return marks
    }

    /// The diagram's text.
    public func rendered(as format: Format) -> String {
        switch format {
        case .dot: dot
        case .mermaid: mermaid
        }
    }

    // MARK: Pieces both languages draw

    /// A node's label lines: its name, handlers, and its part in the route.
    private func lines(of node: TreeSnapshot.Entry, _ mark: Mark?) -> [String] {
        var lines = [node.name + (mark?.isOrigin == true ? " (origin)" : "")]
        if !node.handlers.isEmpty { lines.append(node.handlers.joined(separator: ", ")) }
        if let mark {
            if !mark.steps.isEmpty { lines.append((mark.steps.count == 1 ? "step " : "steps ") + mark.steps.joined(separator: ", ") + ": " + Self.words(mark.state)) }
            if let stoppedBy = mark.stoppedBy { lines.append("stopped by " + stoppedBy) }
            if let threw = mark.threw { lines.append(threw) }
        }
        return lines
    }

    private static func words(_ state: Mark.State) -> String {
        switch state {
        case .reached: "reached"
        case .notReached: "not reached"
        case .undelivered: "undelivered (released)"
        }
    }

    /// The route's moves from node to node: (from, to, step number of `to`).
    private var moves: [(from: String, to: String, step: Int)] {
        guard let steps = explanation?.steps else { return [] }
        var moves: [(String, String, Int)] = []
        for (previous, step) in zip(steps, steps.dropFirst()) where previous.nodePath != step.nodePath {
            moves.append((previous.nodePath, step.nodePath, step.number))
        }
        return moves
    }

    /// The cause chain's links, outermost first, then what the event caused.
    private var causeLinks: [CauseLink] {
        guard let explanation else { return [] }
        let links = explanation.causes + explanation.consequences
        // The event alone is no chain.
        return links.count > 1 ? links : []
    }

    private func causeLabel(_ link: CauseLink) -> [String] {
        ["\(link.event.rawValue) \(link.typeName) (\(link.kind))", "\(link.result)"]
    }

    private static func relationWords(_ relation: CauseLink.Relation) -> String {
        switch relation {
        case .raisedByApp: "raised by the app"
        case .raisedInHandler: "raised in a handler"
        case .errorFromHandler: "thrown by a handler"
        case .convertedFromError: "converted from the error"
        case .transformed: "transformed"
        }
    }

    private func identifier(_ path: String) -> String? {
        tree.nodes.first { $0.path == path }.map { "n\($0.id.rawValue)" }
    }

    // MARK: DOT

    private var dot: String {
        let marks = self.marks
        var text = "digraph eventtree {\n"
        text += "  graph [rankdir=TB, fontname=\"Helvetica\", label=\(Self.dotQuoted([title])), labelloc=t];\n"
        text += "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=11];\n"
        text += "  edge [fontname=\"Helvetica\", fontsize=10];\n"
        var parents: [Int] = []
        for node in tree.nodes {
            let mark = marks[node.path]
            var attributes = ["label=" + Self.dotQuoted(lines(of: node, mark))]
            if explanation != nil {
                let stopped = mark?.stoppedBy != nil
                switch mark?.state {
                case .reached?: attributes.append("fillcolor=\"#e8f5e9\", color=\"\(stopped ? "#1565c0" : "#2e7d32")\"")
                case .undelivered?: attributes.append("fillcolor=\"#fff3e0\", color=\"#e65100\"")
                case .notReached? where !(mark?.steps.isEmpty ?? true): attributes.append("fillcolor=\"#f1f1f1\", style=\"rounded,filled,dashed\", fontcolor=\"#6b7280\"")
                default: attributes.append("color=\"#c0c4ca\", fontcolor=\"#9aa0a6\"")
                }
                if stopped { attributes.append("penwidth=3") }
                if mark?.threw != nil { attributes.append("penwidth=3, color=\"#c62828\"") }
            }
            text += "  n\(node.id.rawValue) [\(attributes.joined(separator: ", "))];\n"
            parents.removeLast(max(0, parents.count - node.depth))
            if let parent = parents.last { text += "  n\(parent) -> n\(node.id.rawValue) [arrowhead=none, color=\"#9aa0a6\"];\n" }
            parents.append(node.id.rawValue)
        }
        for move in moves {
            guard let from = identifier(move.from), let to = identifier(move.to) else { continue }
            text += "  \(from) -> \(to) [color=\"#1565c0\", penwidth=2, constraint=false, label=\"\(move.step)\"];\n"
        }
        let links = causeLinks
        if !links.isEmpty {
            text += "  subgraph cluster_causes {\n    label=\"cause chain\"; style=dashed; color=\"#9aa0a6\";\n"
            for link in links {
                let highlighted = link.event == explanation?.finding.event.id ? ", penwidth=2, color=\"#1565c0\"" : ""
                text += "    e\(link.event.rawValue) [shape=note, label=\(Self.dotQuoted(causeLabel(link)))\(highlighted)];\n"
            }
            for link in links {
                guard let from = link.from else { continue }
                text += "    e\(from.rawValue) -> e\(link.event.rawValue) [label=\(Self.dotQuoted([Self.relationWords(link.relation)]))];\n"
            }
            text += "  }\n"
        }
        return text + "}\n"
    }

    private var title: String {
        guard let finding = explanation?.finding else { return "session \(tree.session.rawValue) at seq \(tree.seq)" }
        return "event \(finding.event.id.rawValue) \(finding.event.typeName) (\(finding.event.mode)): \(finding.summary)"
    }

    /// A DOT string of `lines` (each shown as ``VisibleText`` shows it: a line break or
    /// control character in recorded text is an escape, never a break), so that no text
    /// ends the string or adds a statement; the lines are joined with DOT's `\n`.
    static func dotQuoted(_ lines: [String]) -> String {
        "\"" + lines.map { backslashEscaped(VisibleText.shown($0)) }.joined(separator: "\\n") + "\""
    }

    /// `text` with `"` and `\` escaped by a backslash, as both a DOT string and a YAML
    /// double-quoted string need (DOT's `\n`, `\l` and `\N` in a label then stay text).
    private static func backslashEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    // MARK: Mermaid

    private var mermaid: String {
        let marks = self.marks
        var text = "---\ntitle: \(Self.yamlQuoted(title))\n---\nflowchart TD\n"
        var parents: [Int] = []
        var classes: [String: [String]] = [:]
        for node in tree.nodes {
            let mark = marks[node.path]
            text += "  n\(node.id.rawValue)[\"\(lines(of: node, mark).map(Self.mermaidText).joined(separator: "<br/>"))\"]\n"
            parents.removeLast(max(0, parents.count - node.depth))
            if let parent = parents.last { text += "  n\(parent) --- n\(node.id.rawValue)\n" }
            parents.append(node.id.rawValue)
            guard explanation != nil else { continue }
            let style = switch mark?.state {
            case .reached?: "reached"
            case .undelivered?: "undelivered"
            case .notReached? where !(mark?.steps.isEmpty ?? true): "notReached"
            default: "offRoute"
            }
            classes[style, default: []].append("n\(node.id.rawValue)")
            if mark?.stoppedBy != nil { classes["stopped", default: []].append("n\(node.id.rawValue)") }
            if mark?.threw != nil { classes["threw", default: []].append("n\(node.id.rawValue)") }
        }
        for move in moves {
            guard let from = identifier(move.from), let to = identifier(move.to) else { continue }
            text += "  \(from) ==>|\(move.step)| \(to)\n"
        }
        let links = causeLinks
        if !links.isEmpty {
            text += "  subgraph causes [cause chain]\n"
            for link in links {
                text += "    e\(link.event.rawValue)[\"\(causeLabel(link).map(Self.mermaidText).joined(separator: "<br/>"))\"]\n"
            }
            for link in links {
                guard let from = link.from else { continue }
                text += "    e\(from.rawValue) -->|\(Self.mermaidText(Self.relationWords(link.relation)))| e\(link.event.rawValue)\n"
            }
            text += "  end\n"
        }
        if explanation != nil {
            text += """
                  classDef reached fill:#e8f5e9,stroke:#2e7d32
                  classDef undelivered fill:#fff3e0,stroke:#e65100
                  classDef notReached fill:#f1f1f1,stroke:#6b7280,stroke-dasharray:4 3,color:#6b7280
                  classDef offRoute fill:#fff,stroke:#c0c4ca,color:#9aa0a6
                  classDef stopped stroke:#1565c0,stroke-width:3px
                  classDef threw stroke:#c62828,stroke-width:3px

                """
            for (style, nodes) in classes.sorted(by: { $0.key < $1.key }) {
                text += "  class \(nodes.joined(separator: ",")) \(style)\n"
            }
        }
        return text
    }

    /// Text safe inside a quoted Mermaid label or an edge's `|label|`: shown as
    /// ``VisibleText`` shows it (no line breaks), with quotes, markup characters, `|`, a
    /// backtick (which would start a Markdown string) and `%` (of a `%%{init: …}%%`
    /// directive, which Mermaid looks for anywhere in the text) as entities.
    static func mermaidText(_ text: String) -> String {
        var result = ""
        for scalar in VisibleText.shown(text).unicodeScalars {
            switch scalar {
            case "\"": result += "#quot;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "#": result += "#35;"
            case "|": result += "#124;"
            case "`": result += "#96;"
            case "%": result += "#37;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A YAML double-quoted string for the front matter's `title:`: shown as ``VisibleText``
    /// shows it (no line break can start another key, such as `config:`), with quotes and
    /// backslashes escaped (`:` and `#` in it are then text, not YAML), and `%` written
    /// `\x25`, so that the file holds no `%%{…}%%` for a Mermaid that looks for directives
    /// before it takes the front matter off.
    static func yamlQuoted(_ text: String) -> String {
        "\"" + backslashEscaped(VisibleText.shown(text)).replacingOccurrences(of: "%", with: "\\x25") + "\""
    }
}
