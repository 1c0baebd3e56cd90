import EventTree
import EventTreeJournal

/// What replay keeps in memory about a journal: its handler registrations, indexed by
/// node and by type. Steps and events are streamed, never held.
final class JournalHistory {
    let registrations: RecordedRegistrations
    private(set) var handlersByID: [HandlerID: RecordedHandler] = [:]
    /// Handlers of each node in registration order.
    private var nodeHandlers: [NodeID: [RecordedHandler]] = [:]
    /// For each type asked about: by handler number, whether it matches (built once).
    private var matchTables: [Int: [Bool]] = [:]

    init(registrations: RecordedRegistrations) {
        self.registrations = registrations
        for handler in registrations.handlers {
            handlersByID[handler.id] = handler
            nodeHandlers[handler.node, default: []].append(handler)
        }
    }

    /// The handler numbered `number`, if the journal has it.
    func handler(numbered number: Int) -> RecordedHandler? {
        registrations.handler(numbered: number)
    }

    /// By handler number (less the first), whether a typed handler matches `type` (untyped
    /// ones always do).
    func matchTable(for type: Int) -> [Bool] {
        if let table = matchTables[type] { return table }
        var table = registrations.handlersByNumber.map { $0?.typeID == nil }
        let first = registrations.firstNumber
        for number in registrations.matches[type] ?? [] where table.indices.contains(number - first) {
            table[number - first] = true
        }
        matchTables[type] = table
        return table
    }

    /// Whether `handler` hears events of `type` on `channel`, as the journal recorded it.
    func matches(_ handler: RecordedHandler, type: Int, channel: HandlerRegistration.Channel) -> Bool {
        handler.channel == channel && matches(handler, in: matchTable(for: type))
    }

    /// Whether `handler` matches according to a table from ``matchTable(for:)``.
    func matches(_ handler: RecordedHandler, in table: [Bool]) -> Bool {
        let index = handler.number - registrations.firstNumber
        return table.indices.contains(index) ? table[index] : handler.typeID == nil
    }

    /// The handlers of `node` in registration order.
    func handlers(on node: NodeID) -> [RecordedHandler] {
        nodeHandlers[node] ?? []
    }
}
