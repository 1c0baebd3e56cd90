import Dispatch
import EventTree
import EventTreeTesting
import Foundation
import Testing

/// The bus never calls its recorder with its lock held: a recorder that waits for another
/// thread which uses the bus does not deadlock it.
@Suite struct RecorderLockTests {
    /// Records like a trace recorder; while a change is handed over, asks the bus for a
    /// node on another thread and waits (up to 10 s) for the answer.
    final class AskingRecorder: Recorder, @unchecked Sendable {
        let trace = TraceRecorder()
        var sequence: SequenceCounter { trace.sequence }
        private let lock = NSLock()
        private var _bus: EventBus?
        private var _answers: [Bool] = []
        var timedOut = 0

        func watch(_ bus: EventBus) { lock.withLock { _bus = bus } }
        var answers: [Bool] { lock.withLock { _answers } }

        func record(_ records: [FactRecord], session: SessionID) -> RecordingStatus {
            trace.record(records, session: session)
        }

        func recordChange(_ records: [FactRecord], session: SessionID) {
            trace.recordChange(records, session: session)
            guard let bus = lock.withLock({ _bus }) else { return }
            let answered = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                // Takes the bus's lock.
                let found = bus.node(atPath: "app") != nil
                self.lock.withLock { self._answers.append(found) }
                answered.signal()
            }
            if answered.wait(timeout: .now() + 10) == .timedOut { lock.withLock { timedOut += 1 } }
        }
    }

    @Test func aRecorderThatWaitsOnAThreadUsingTheBusDoesNotDeadlockIt() {
        let recorder = AskingRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        recorder.watch(bus)
        let settings = EventNode("settings", parent: app)
        settings.on(NamedEvent.self, label: "h") { _, _ in .handled }
        app.raise(NamedEvent("ping"), mode: .broadcast)
        #expect(recorder.timedOut == 0)
        #expect(recorder.trace.lines == [
            "create app", "create settings", "attach app/settings", "add h on app/settings",
            "raise NamedEvent at app broadcast", "call app/settings propagate h -> handled", "end NamedEvent delivered",
        ])
        // Four changes after `watch`: each one's other thread got its answer from the bus
        // while the change was being handed over.
        #expect(recorder.answers == [true, true, true, true])
        withExtendedLifetime(settings) {}
    }

    /// A change made on one thread reaches the recorder before the records of a raise on
    /// another thread that saw it, even while a slow recorder is still taking an earlier change.
    @Test func changesReachTheRecorderBeforeTheRaisesThatSawThem() {
        let recorder = AskingRecorder()
        let bus = EventBus(recorder: recorder)
        let app = EventNode("app", bus: bus)
        recorder.watch(bus)
        let done = DispatchGroup()
        for index in 0..<4 {
            DispatchQueue.global().async(group: done) {
                let node = EventNode("n\(index)", parent: app)
                node.on(NamedEvent.self, label: "h\(index)") { _, _ in .handled }
                node.raise(NamedEvent("ping\(index)"))
                withExtendedLifetime(node) {}
            }
        }
        done.wait()
        let seqs = recorder.trace.records.map(\.seq)
        let handlers = recorder.trace.records.compactMap { record -> (seq: Int, handler: Int)? in
            if case .handlerCalled(let call, _) = record.fact { return (record.seq, call.handler.rawValue) }
            return nil
        }
        // Every handler's registration was recorded before its first call.
        for call in handlers {
            let registered = recorder.trace.records.firstIndex { $0.seq == call.handler }
            let called = recorder.trace.records.firstIndex { $0.seq == call.seq }
            #expect(registered != nil && registered! < called!)
        }
        #expect(Set(seqs).count == seqs.count)
        #expect(recorder.timedOut == 0)
    }
}
