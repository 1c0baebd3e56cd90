import EventTree
import Testing

/// A synchronous raise reuses its thread's emptied box of the event's type: what handlers
/// see, and how long a raised value lives, must not show it.
@Suite struct EventBoxReuseTests {
    struct Numbered: Event { let n: Int }
    struct Named: Event { let name: String }
    struct Carrying: Event { let payload: Payload }
    final class Payload: Codable, Sendable { init() {} }

    @Test func aRaiseFromAHandlerCarriesItsOwnValueAndTheOuterOneKeepsItsValue() {
        let bus = EventBus()
        let root = EventNode("root", bus: bus)
        let seen = Box<[String]>()
        seen.value = []
        root.on(Numbered.self, label: "nest") { event, context in
            seen.value?.append("before \(event.n)")
            if event.n == 1 { context.node?.raise(Numbered(n: 2)) }
            seen.value?.append("after \(event.n)")
            return .handled
        }
        root.on(Named.self, label: "named") { event, _ in
            seen.value?.append(event.name)
            return .handled
        }
        for n in [1, 3] {
            root.raise(Numbered(n: n))
            root.raise(Named(name: "named \(n)"))
        }
        #expect(seen.value == [
            "before 1", "before 2", "after 2", "after 1", "named 1",
            "before 3", "after 3", "named 3",
        ])
    }

    @Test func aRaisedValueIsReleasedWhenItsRaiseReturns() {
        let bus = EventBus()
        let root = EventNode("root", bus: bus)
        let calls = Box<Int>()
        calls.value = 0
        root.on(Carrying.self, label: "count") { _, _ in
            calls.value = (calls.value ?? 0) + 1
            return .handled
        }
        // The first raise of a type leaves its box with the bus (as the type's sample); the
        // later ones go back to the thread's spares, emptied.
        weak var first: Payload?
        weak var second: Payload?
        weak var third: Payload?
        do {
            let payload = Payload()
            first = payload
            root.raise(Carrying(payload: payload))
        }
        for _ in 0..<2 {
            do {
                let payload = Payload()
                if second == nil { second = payload } else { third = payload }
                root.raise(Carrying(payload: payload))
            }
        }
        #expect(calls.value == 3)
        #expect(second == nil)
        #expect(third == nil)
        _ = first
    }
}
