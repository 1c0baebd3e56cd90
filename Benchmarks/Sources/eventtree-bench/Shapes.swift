import EventTree
import EventTreeJournal
import Foundation

/// Tree shapes that once made the journal's writer superlinear, each at two sizes ten times
/// apart, so that the growth shows: linear work grows about 10×.
enum Shapes {
    /// Releases a chain of `depth` nodes from its root down (each release detaches the child
    /// below it), journaled: the seconds the releases and their commit take, and the bytes
    /// the journal holds after.
    static func releaseChain(depth: Int) throws -> (seconds: Double, bytes: Int) {
        let path = freshPath("shape-chain-\(depth).eventtree")
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let journal = try Journal(path: path)
        let bus = EventBus(recorder: journal, process: "shapes")
        var chain = [EventNode("n0", bus: bus)]
        for index in 1..<depth { chain.append(EventNode("node\(index)", parent: chain[index - 1])) }
        try journal.flush()
        let seconds = try timed {
            for node in chain { node.release() }
            try journal.flush()
        }
        try journal.close()
        let bytes = ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
        return (seconds, bytes)
    }

    /// Prints each shape's table.
    static func run() throws {
        print("release a chain from its root down | seconds | journal bytes")
        var first: (seconds: Double, bytes: Int)?
        for depth in [1_000, 10_000] {
            let result = try releaseChain(depth: depth)
            print("\(depth) nodes | \(String(format: "%.3f", result.seconds)) | \(result.bytes)")
            if let first {
                print(String(format: "growth ×10 nodes | %.1f× | %.1f×", result.seconds / first.seconds,
                             Double(result.bytes) / Double(first.bytes)))
            }
            first = first ?? result
        }
    }
}
