import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

struct Checkout: Event { var items = 1 }

@Suite struct DiffCommandTests {
    /// Records a small app's session: a cart whose `guard` handler either handles or consumes.
    static func record(_ path: String, guardConsumes: Bool) throws {
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal)
        let app = EventNode("app", bus: bus)
        let cart = EventNode("cart", parent: app)
        cart.on(Checkout.self, label: "guard") { _, _ in guardConsumes ? .consumed : .handled }
        app.on(Checkout.self, label: "pay") { _, _ in .handled }
        cart.raise(Checkout(items: 2))
        bus.end()
        try journal.close()
    }

    @Test func aChangedHandlerExitsOneNamingTheEventTypeTheHandlerAndTheStep() async throws {
        try await withTemporaryDirectory { directory in
            try Self.record("\(directory)/main.eventtree", guardConsumes: false)
            try Self.record("\(directory)/same.eventtree", guardConsumes: false)
            try Self.record("\(directory)/branch.eventtree", guardConsumes: true)
            let same = try Tool.run(["diff", "\(directory)/main.eventtree", "\(directory)/same.eventtree"])
            #expect(same.status == 0)
            #expect(same.stdout == "paired 1 raise: 0 changed fate, 0 removed, 0 added\n")
            let changed = try Tool.run(["diff", "\(directory)/main.eventtree", "\(directory)/branch.eventtree"])
            #expect(changed.status == 1)
            let lines = changed.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "paired 1 raise: 1 changed fate, 0 removed, 0 added")
            #expect(lines.dropFirst().first?.hasSuffix("(Checkout at app/cart): delivered -> consumed by guard, from step 1") == true)
            #expect(Array(lines.dropFirst(2)) == [
                "- 1. Checkout at app/cart target: guard -> handled",
                "- 2. Checkout at app bubble: pay -> handled",
                "+ 1. Checkout at app/cart target: guard -> consumed",
            ])
        }
    }

    @Test func diffExitsZeroForTheSameProgramOneForAChangeAndTwoForBadInput() async throws {
        try await withTemporaryDirectory { directory in
            for name in ["a", "b"] {
                let made = try Tool.run(["demo", "--journal", "\(directory)/\(name).eventtree"], in: directory)
                #expect(made.status == 0)
            }
            let same = try Tool.run(["diff", "\(directory)/a.eventtree", "\(directory)/b.eventtree"])
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stdout.hasPrefix("paired "))
            #expect(same.stdout.contains(": 0 changed fate, 0 removed, 0 added\n"))
            // One event of the second recording ended otherwise (as a changed handler would make it).
            try JournalTampering.execute("UPDATE j_events SET result = 1 WHERE event_id = (SELECT min(event_id) FROM j_events WHERE result = 0)", on: "\(directory)/b.eventtree")
            let changed = try Tool.run(["diff", "\(directory)/a.eventtree", "\(directory)/b.eventtree", "--format", "json"])
            #expect(changed.status == 1)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(changed.stdout.utf8)) as? [String: Any])
            #expect(json["same"] as? Bool == false)
            #expect((json["changed"] as? [Any])?.count == 1)
            // Only its result changed: the same steps, each an object numbered as explain numbers it.
            let change = try #require((json["changed"] as? [[String: Any]])?.first)
            #expect(change["first_differing_step"] is NSNull)
            let steps = try #require(change["old_steps"] as? [[String: Any]])
            #expect(!steps.isEmpty)
            #expect(steps.allSatisfy { Set($0.keys) == ["step", "event_type", "node_path", "phase", "handler_label", "outcome"] && $0["step"] is Int })
            #expect((change["new_steps"] as? [[String: Any]])?.count == steps.count)
            let missing = try Tool.run(["diff", "\(directory)/a.eventtree", "\(directory)/nowhere.eventtree"])
            #expect(missing.status == 2)
            #expect(missing.stderr.hasPrefix("error: "))
        }
    }
}
