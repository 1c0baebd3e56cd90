import Dispatch
import EventTree
import EventTreeTesting
import Testing

struct Numbered: Event { var thread: Int; var index: Int }

@Suite struct ConcurrencyTests {
    @Test func threadsRaisingThousandsOfEventsGetEachDeliveredOncePerThreadOrderKept() throws {
        let threads = 4
        let perThread = 2_000
        let recorder = TraceRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        let mids = (0..<threads).map { EventNode("mid\($0)", parent: app) }
        let leaves = mids.map { EventNode("leaf", parent: $0) }
        let seen = (0..<threads).map { _ in Collector() }
        app.on(Numbered.self, label: "root") { event, _ in
            seen[event.thread].append("\(event.index)")
            return .handled
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                leaves[thread].raise(Numbered(thread: thread, index: index))
            }
        }
        for thread in 0..<threads {
            let values = seen[thread].values
            #expect(values.count == perThread && values == (0..<perThread).map(String.init), "thread \(thread) saw \(values.count)")
        }
        let records = recorder.records
        let seqs = records.map(\.seq)
        #expect(Set(seqs).count == seqs.count, "sequence numbers are unique")
        let raises = records.compactMap { record -> RaisedEvent? in
            if case .raised(let raised) = record.fact { return raised }
            return nil
        }
        #expect(raises.count == threads * perThread)
        for thread in 0..<threads {
            let indices = raises.filter { $0.origin == leaves[thread].id }.compactMap { raised -> Int? in
                if case .event(let event as Numbered) = raised.payload { return event.index }
                return nil
            }
            #expect(indices.count == perThread && indices == Array(0..<perThread), "raise order of thread \(thread) follows the sequence")
        }
        let calls = records.filter { if case .handlerCalled = $0.fact { return true } else { return false } }
        #expect(calls.count == threads * perThread)
    }

    @Test func treeAndHandlerChangesRaceSafelyWithDelivery() {
        let bus = EventBus(recorder: TraceRecorder())
        let app = EventNode("app", bus: bus)
        let counter = Collector()
        app.on(Ping.self, phases: .all, label: "count") { _, _ in
            counter.append("x")
            return .handled
        }
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for round in 0..<300 {
                switch worker {
                case 0:
                    app.raise(Ping(), mode: .broadcast)
                case 1:
                    let node = EventNode("churn\(round)", parent: app)
                    let token = node.on(Ping.self) { _, _ in .handled }
                    node.raise(Ping(), mode: .dispatch)
                    token.remove()
                    node.detach()
                default:
                    let token = app.on(Ping.self, label: "temporary") { _, _ in .ignored }
                    token.remove()
                    app.rename(to: round % 2 == 0 ? "app" : "root")
                }
            }
        }
        // Worker 0 broadcasts 300 times (target + propagate at app), worker 1 dispatches
        // 300 times through app (capture + bubble).
        #expect(counter.values.count == 300 * 2 + 300 * 2)
    }
}
