import EventTree
import EventTreeJournal
import EventTreeTesting
import EventTreeTracing
import Foundation

/// The workload matrix: shapes of trees and handlers, each with the journal off, the
/// in-memory recorder, the tracing recorder with no tracer bootstrapped, and the default
/// journal.
struct Workload: Sendable {
    let name: String
    /// Builds the tree on `bus` and returns one raise (and what to keep alive).
    let build: @Sendable (EventBus) -> (raise: (Int) -> Void, keep: [EventNode])

    static func chain(_ depth: Int, everyNode: Bool, mode: DeliveryMode) -> Workload {
        Workload(name: "chain \(depth) \(mode), handler at \(everyNode ? "every node" : "root only")") { bus in
            var nodes = [EventNode("n0", bus: bus)]
            for index in 1..<depth { nodes.append(EventNode("n\(index)", parent: nodes[index - 1])) }
            for (index, node) in nodes.enumerated() where everyNode || index == 0 {
                node.on(Ping.self, phases: .all, label: "h") { _, _ in .handled }
            }
            let leaf = nodes[depth - 1]
            return ({ leaf.raise(Ping(n: $0), mode: mode) }, nodes)
        }
    }

    static func wide(_ width: Int, mode: DeliveryMode) -> Workload {
        Workload(name: "wide \(width) \(mode)") { bus in
            let root = EventNode("root", bus: bus)
            var nodes = [root]
            for index in 0..<width {
                let child = EventNode("c\(index)", parent: root)
                child.on(Ping.self, label: "h") { _, _ in .handled }
                nodes.append(child)
            }
            return ({ root.raise(Ping(n: $0), mode: mode) }, nodes)
        }
    }

    static func protocolTyped(_ count: Int) -> Workload {
        Workload(name: "\(count) protocol-typed handlers") { bus in
            let node = EventNode("app", bus: bus)
            for _ in 0..<count { node.on((any Marked).self, label: "m") { _, _ in .handled } }
            return ({ node.raise(Tagged(n: $0)) }, [node])
        }
    }

    static func transforms(_ length: Int) -> Workload {
        Workload(name: "transform chain \(length)") { bus in
            var nodes = [EventNode("n0", bus: bus)]
            for index in 1...length { nodes.append(EventNode("n\(index)", parent: nodes[index - 1])) }
            for node in nodes.dropFirst() {
                node.on(Stage.self, label: "t") { stage, _ in .transformed(Stage(index: stage.index + 1)) }
            }
            nodes[0].on(Stage.self, label: "end") { _, _ in .handled }
            let leaf = nodes[length]
            return ({ _ in leaf.raise(Stage()) }, nodes)
        }
    }

    static let all: [Workload] = [
        Workload(name: "flat, 10 handlers") { bus in
            let node = flatNode(on: bus)
            return ({ node.raise(Ping(n: $0)) }, [node])
        },
        Workload(name: "flat, consumed by the first of 10") { bus in
            let node = EventNode("app", bus: bus)
            node.on(Ping.self, label: "stop") { _, _ in .consumedImmediately }
            for _ in 0..<9 { node.on(Ping.self, label: "h") { _, _ in .handled } }
            return ({ node.raise(Ping(n: $0)) }, [node])
        },
    ]
        + [8, 32, 128].flatMap { depth in
            [DeliveryMode.bubble, .dispatch].flatMap { mode in
                [false, true].map { chain(depth, everyNode: $0, mode: mode) }
            }
        }
        + [1_000, 10_000].flatMap { width in
            [DeliveryMode.broadcast, .descend(.everyLevel), .descend(.firstHandler), .descend(.deepestLevel)].map { wide(width, mode: $0) }
        }
        + [1, 10, 100, 1_000].map(protocolTyped)
        + [1, 4, 16].map(transforms)
        + [
            Workload(name: "request answered at the root of 8") { bus in
                var nodes = [EventNode("n0", bus: bus)]
                for index in 1..<8 { nodes.append(EventNode("n\(index)", parent: nodes[index - 1])) }
                nodes[0].on(Ask.self, label: "answer") { _, _ in .answered(1) }
                return ({ _ in _ = nodes[7].request(Ask()) }, nodes)
            },
            Workload(name: "request unanswered in 8") { bus in
                var nodes = [EventNode("n0", bus: bus)]
                for index in 1..<8 { nodes.append(EventNode("n\(index)", parent: nodes[index - 1])) }
                nodes[0].on(Ask.self, label: "shrug") { _, _ in .handled }
                return ({ _ in _ = nodes[7].request(Ask()) }, nodes)
            },
            Workload(name: "nested raise in a handler") { bus in
                let root = EventNode("root", bus: bus)
                let child = EventNode("child", parent: root)
                root.on(Tagged.self, label: "inner") { _, _ in .handled }
                child.on(Ping.self, label: "outer") { event, _ in
                    root.raise(Tagged(n: event.n))
                    return .handled
                }
                return ({ child.raise(Ping(n: $0)) }, [root, child])
            },
            Workload(name: "1% failing handlers (of 10)") { bus in failing(bus, every: 100) },
            Workload(name: "50% failing handlers (of 10)") { bus in failing(bus, every: 2) },
            Workload(name: "tree churn during delivery") { bus in
                let root = EventNode("root", bus: bus)
                root.on(Ping.self, label: "churn") { _, _ in
                    let temporary = EventNode("temp", parent: root)
                    temporary.detach()
                    return .handled
                }
                return ({ root.raise(Ping(n: $0)) }, [root])
            },
        ]

    static func failing(_ bus: EventBus, every period: Int) -> (raise: (Int) -> Void, keep: [EventNode]) {
        let node = EventNode("app", bus: bus)
        for handler in 0..<10 {
            node.on(Ping.self, label: "h\(handler)") { event, _ in
                if (event.n * 10 + handler) % period == 0 { throw Boom() }
                return .handled
            }
        }
        node.onError(label: "catch") { _, _ in .handled }
        return ({ node.raise(Ping(n: $0)) }, [node])
    }
}

extension Workload {
    /// The recorders each workload runs with: none, the in-memory one, the tracing one with
    /// no tracer bootstrapped, and the default journal.
    static let recorders = ["off", "memory", "tracing (no-op tracer)", "journal"]

    /// Handler calls per raise, counted over ten raises with the in-memory recorder.
    func callsPerRaise() -> Int {
        let counting = TraceRecorder()
        let (raise, keep) = build(EventBus(recorder: counting))
        counting.clear()
        for index in 0..<10 { raise(index) }
        withExtendedLifetime(keep) {}
        return max(1, counting.records.count { if case .handlerCalled = $0.fact { true } else { false } } / 10)
    }

    /// A bus with `recorder` (one of ``recorders``), and the journal when it is one, with
    /// room for the records of `raises` raises of `calls` calls, so that no raise waits for
    /// the writer.
    static func bus(recording recorder: String, raises: Int, calls: Int) throws -> (bus: EventBus, journal: Journal?) {
        switch recorder {
        case "memory": return (EventBus(recorder: TraceRecorder()), nil)
        // What an app pays for spans before it bootstraps a tracer: the default tracer is
        // then the no-op one.
        case "tracing (no-op tracer)": return (EventBus(recorder: TracingRecorder()), nil)
        case "journal":
            var options = JournalOptions()
            options.capacity = raises * (calls + 4) * 2 + 1_000
            let journal = try Journal(path: freshPath("workload.eventtree"), options: options)
            return (EventBus(recorder: journal), journal)
        default: return (EventBus(), nil)
        }
    }

    /// Measures the workload with each recorder; appends report rows.
    func measure(budget: Int, rounds: Int, into report: inout Report) throws {
        let calls = callsPerRaise()
        let raises = max(20, budget / calls)
        for recorder in Self.recorders {
            let (bus, journal) = try Self.bus(recording: recorder, raises: raises, calls: calls)
            let (raise, keep) = build(bus)
            var times: [Double] = []
            for round in 0..<rounds {
                times.append(timed { for index in 0..<raises { raise(round * raises + index) } } / Double(raises))
            }
            try journal?.close()
            withExtendedLifetime(keep) {}
            let perRaise = median(times)
            report.workloads.append([name, recorder, String(calls), duration(perRaise), duration(perRaise / Double(calls))])
        }
    }
}
