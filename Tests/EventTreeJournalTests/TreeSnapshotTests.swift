import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// The tree at a seq is rebuilt from the nearest snapshot before it, so that `topology --at`
/// and `explain` cost the same at any point of a long session.
@Suite struct TreeSnapshotTests {
    /// Records a session of `changes` tree changes or more, random but repeatable: nodes
    /// created under others, moved, renamed, detached and released.
    static func churn(_ journal: Journal, changes: Int) throws {
        let bus = EventBus(recorder: journal, process: "churn")
        var live = [EventNode("app", bus: bus)]
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var made = 1
        while made < changes {
            let node = live[next(live.count)]
            switch next(10) {
            case 0...3:
                live.append(EventNode("n\(made)", parent: node))
                made += 2
            case 4, 5:
                try? node.move(to: live[next(live.count)])
                made += 1
            case 6:
                node.rename(to: "r\(made)")
                made += 1
            case 7:
                node.detach()
                made += 1
            default:
                guard live.count > 1 else { continue }
                let released = live.remove(at: 1 + next(live.count - 1))
                made += 1 + released.children.count
                released.release()
            }
        }
        try journal.flush()
        withExtendedLifetime(live) {}
    }

    /// The tree before `seq` rebuilt from every change since the session's start.
    static func replayed(_ reader: JournalReader, before seq: Int) throws -> JournalTree {
        var tree = JournalTree()
        let changes = try reader.treeChanges(of: SessionID(rawValue: 1), before: seq)
        while let change = changes.current {
            tree.apply(change.change, to: change.node)
            try changes.advance()
        }
        return tree
    }

    @Test func theTreeAtAnySeqIsTheTreeEveryChangeBuilds() async throws {
        try await withTemporaryJournal { journal in
            try Self.churn(journal, changes: 5_000)
            let reader = try JournalReader(path: journal.path)
            let snapshots = try lines(journal.path, "SELECT seq FROM j_tree_snapshots ORDER BY seq").compactMap { Int($0) }
            let changes = try lines(journal.path, "SELECT seq FROM j_changes ORDER BY seq").compactMap { Int($0) }
            // One snapshot every 1,024 changes (the tree stays smaller than that).
            #expect(snapshots == stride(from: 1_023, to: changes.count, by: 1_024).map { changes[$0] })
            // Before, at and after each snapshot, and every 97th change.
            var seqs = snapshots.flatMap { [$0, $0 + 1, $0 + 2] }
            seqs += stride(from: 0, to: changes.count, by: 97).map { changes[$0] }
            for seq in seqs {
                let tree = try reader.tree(of: SessionID(rawValue: 1), before: seq)
                let expected = try Self.replayed(reader, before: seq)
                #expect(tree.snapshotJSON == expected.snapshotJSON, "before seq \(seq)")
                #expect(tree.nodes.count == expected.nodes.count)
            }
        }
    }

    /// A tree of more nodes than the interval is snapshot once per as many changes as it
    /// has nodes: the snapshots' bytes grow with the changes, not with their product.
    @Test func aLargeTreeIsSnapshotLessOften() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal, process: "large")
            let app = EventNode("app", bus: bus)
            let nodes = (0..<3_000).map { EventNode("n\($0)", parent: app) }
            for node in nodes { node.rename(to: node.name + "x") }
            try journal.flush()
            // 6,001 changes to build it, 3,000 renames; the tree grows to 3,001 nodes.
            let sizes = try lines(journal.path, "SELECT seq, json_array_length(nodes) FROM j_tree_snapshots ORDER BY seq")
            #expect(sizes.count <= 9_001 / 1_024)
            let total = try #require(Int(try lines(journal.path, "SELECT sum(json_array_length(nodes)) FROM j_tree_snapshots")[0]))
            #expect(total <= 2 * 9_001, "\(sizes)")
            let tree = try JournalReader(path: journal.path).tree(of: SessionID(rawValue: 1), before: Int.max)
            #expect(tree.nodes.count == 3_001)
            #expect(tree.path(of: nodes[2_999].id) == "app/n2999x")
            withExtendedLifetime(nodes) {}
        }
    }

    @Test func aChangedOrRemovedSnapshotIsNamedByVerify() async throws {
        try await withTemporaryDirectory { directory throws in
            for (index, tamper) in [
                "UPDATE j_tree_snapshots SET nodes = json_replace(nodes, '$[0][2]', 'elsewhere') WHERE seq = %d",
                "DELETE FROM j_tree_snapshots WHERE seq = %d",
                "UPDATE j_tree_snapshots SET session_id = session_id + 1 WHERE seq = %d",
            ].enumerated() {
                let path = directory + "/tampered\(index).eventtree"
                let journal = try Journal(path: path)
                try Self.churn(journal, changes: 2_000)
                try journal.close()
                let seq = try #require(Int(try lines(path, "SELECT min(seq) FROM j_tree_snapshots")[0]))
                execute(path, String(format: tamper, seq))
                #expect(try VerifyTests.verify(path).firstBadSeq == seq, "\(tamper)")
            }
        }
    }

    @Test func aSnapshotThatIsNotOneIsAClearError() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory + "/damaged.eventtree"
            let journal = try Journal(path: path)
            try Self.churn(journal, changes: 2_000)
            try journal.close()
            let seq = try #require(Int(try lines(path, "SELECT min(seq) FROM j_tree_snapshots")[0]))
            for damage in [
                "[[1", "{}", "[[5,99999999,\"x\"]]", "[[5,null,\"x\"],[5,null,\"y\"]]", "[[5,5,\"x\"]]",
                "[[true,null,\"x\"]]", "[[1.5,null,\"x\"]]", "[[1e30,null,\"x\"]]", "[[5,null,\"x\",1]]", "[[5,null]]",
            ] {
                execute(path, "UPDATE j_tree_snapshots SET nodes = '\(damage)' WHERE seq = \(seq)")
                let reader = try JournalReader(path: path)
                #expect(throws: JournalError.self, "\(damage)") { try reader.tree(of: SessionID(rawValue: 1), before: seq + 1) }
            }
        }
    }
}
