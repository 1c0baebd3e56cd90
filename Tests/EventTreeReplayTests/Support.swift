import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeTesting
import Foundation

struct Ping: Event { var n = 0 }
struct Pong: Event {}
protocol Marked: Event {}
struct Tagged: Marked {}
struct Ask: EventRequest { typealias Answer = Int }
struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }

/// Holds nodes the way app objects would, so that a handler can let one go.
final class Owners: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [String: EventNode] = [:]
    subscript(name: String) -> EventNode? {
        get { lock.withLock { held[name] } }
        set { lock.withLock { held[name] = newValue } }
    }
    func letGo(_ name: String) {
        let node = lock.withLock { held.removeValue(forKey: name) }
        _ = node
    }
}

/// A deterministic random generator (SplitMix64), so that generated sessions repeat.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Replays the whole journal and returns every finding.
func findings(_ path: String) throws -> [ReplayFinding] {
    var all: [ReplayFinding] = []
    try Replayer(journal: path).replay { all.append($0) }
    return all
}
