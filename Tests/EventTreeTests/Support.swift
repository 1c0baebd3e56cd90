import EventTree
import EventTreeTesting

struct Ping: Event, Equatable {}
struct Pong: Event, Equatable {}
struct Greeting: Event, Equatable { var text: String = "hi" }

protocol Audited: Event {}
struct Login: Audited, Equatable { var user: String = "ada" }
struct Logout: Audited, Equatable {}

struct UserName: EventRequest { typealias Answer = String }
struct Count: EventRequest { typealias Answer = Int }

struct Boom: Error, Equatable, CustomStringConvertible {
    var text = "boom"
    var description: String { text }
}
struct OtherError: Error, Equatable {}

/// A bus with a trace recorder and a small tree:
///
///     app
///     ├── a
///     │   ├── a1
///     │   └── a2
///     └── b
///         └── b1
struct Fixture {
    let recorder = TraceRecorder()
    let bus: EventBus
    let app: EventNode
    let a: EventNode
    let a1: EventNode
    let a2: EventNode
    let b: EventNode
    let b1: EventNode

    init(maximumNestingDepth: Int = 64) {
        bus = EventBus(recorder: recorder, maximumNestingDepth: maximumNestingDepth)
        app = EventNode("app", bus: bus)
        a = EventNode("a", parent: app)
        a1 = EventNode("a1", parent: a)
        a2 = EventNode("a2", parent: a)
        b = EventNode("b", parent: app)
        b1 = EventNode("b1", parent: b)
    }

    var nodes: [EventNode] { [app, a, a1, a2, b, b1] }

    /// Registers a handler returning `outcome` on every node, labelled with the node's name.
    func everywhere(phases: Phases = .all, _ outcome: Outcome = .handled) {
        for node in nodes {
            node.on(Ping.self, phases: phases, label: node.name) { _, _ in outcome }
        }
    }

    /// Lines since the last clear; then clears.
    func take() -> [String] {
        defer { recorder.clear() }
        return recorder.lines
    }
}
