import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Dispatch
import Foundation
import Testing

@Suite struct ReplayOrderTests {
    @Test func findingsComeInRaiseOrderEvenWhenAnOuterRaiseEndsAfterAThousandNestedOnes() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(Pong.self, label: "fan-out") { _, context in
                for index in 0..<1_000 { context.node?.raise(Ping(n: index)) }
                return .handled
            }
            app.on(Ping.self, label: "count") { _, _ in .handled }
            let outer = app.raise(Pong())
            let after = app.raise(Ping(n: -1))
            try journal.flush()
            let ids = try findings(journal.path).map(\.event.id)
            #expect(ids.count == 1_002)
            #expect(ids.first == outer.eventID)
            #expect(ids.last == after.eventID)
            let outOfOrder = zip(ids, ids.dropFirst()).first { $0 >= $1 }
            #expect(outOfOrder == nil, "event \(outOfOrder.map { "\($0.1) after \($0.0)" } ?? "")")
        }
    }
}

@Suite struct SharedStateOrderTests {
    /// What another thread's raise depends on (a type's first meeting with its handlers, a
    /// node released in a handler) reaches the journal before that raise, even while the
    /// delivery that made the change is still running: a crash at that moment must leave a
    /// journal whose committed raises replay exactly.
    @Test func aRaiseCommittedWhileAnotherDeliveryIsRunningReplaysWithoutIt() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            let owners = Owners()
            owners["doomed"] = EventNode("doomed", parent: app)
            owners["doomed"]!.on(Ping.self, phases: .propagate, label: "doomed") { _, _ in .handled }
            app.on((any Marked).self, label: "marked") { _, _ in .handled }
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            app.on(Pong.self, label: "slow") { _, context in
                context.node?.raise(Tagged())
                owners.letGo("doomed")
                entered.signal()
                release.wait()
                return .handled
            }
            // Thread 1: meets Tagged first (in a nested raise), releases `doomed`, then waits.
            let slow = BackgroundThread { app.raise(Pong()) }
            entered.wait()
            // Thread 2: raises the same type and a broadcast that no longer reaches `doomed`.
            app.raise(Tagged())
            app.raise(Ping(), mode: .broadcast)
            try journal.flush()
            // As if the process died now: copy what is committed and replay it.
            let copy = journal.path + "-copy"
            try FileManager.default.copyItem(atPath: journal.path, toPath: copy)
            try? FileManager.default.copyItem(atPath: journal.path + "-wal", toPath: copy + "-wal")
            let diverged = try findings(copy).filter { $0.classification == .diverged }
            #expect(diverged.isEmpty, "\(diverged.map(\.summary))")
            release.signal()
            _ = slow.result()
        }
    }
}
