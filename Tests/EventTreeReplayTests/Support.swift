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

/// Replays the whole journal and returns every finding.
func findings(_ path: String) throws -> [ReplayFinding] {
    var all: [ReplayFinding] = []
    try Replayer(journal: path).replay { all.append($0) }
    return all
}
