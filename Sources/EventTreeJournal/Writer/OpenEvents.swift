import EventTree

/// The events raised but not finished yet, by id: the latest one in front of a dictionary.
///
/// A raise's records mostly open one event, call its handlers and finish it, so the front
/// slot serves them without hashing; the event a nested raise interrupts waits in the
/// dictionary until it finishes.
struct OpenEvents {
    private var latest: EventRow?
    private var others: [EventID: EventRow] = [:]

    /// The raise of the open event `id`, if it is open.
    func raised(_ id: EventID) -> RaisedEvent? {
        // Read in place: binding the row would copy it whole.
        if latest?.raised.id == id { return latest?.raised }
        return others[id]?.raised
    }

    /// Opens `row`'s event.
    mutating func open(_ row: EventRow) {
        if latest != nil, let previous = latest.take() { others[previous.raised.id] = previous }
        latest = row
    }

    /// Finishes the event `id`: takes its row out, if it is open.
    mutating func finish(_ id: EventID) -> EventRow? {
        if latest?.raised.id == id { return latest.take() }
        return others.removeValue(forKey: id)
    }

    /// Changes the row of the open event `id` with `body`.
    ///
    /// - Returns: Whether the event is open.
    mutating func update(_ id: EventID, _ body: (inout EventRow) -> Void) -> Bool {
        if latest?.raised.id == id {
            body(&latest!)
            return true
        }
        guard others[id] != nil else { return false }
        body(&others[id]!)
        return true
    }

    /// Takes out every open event's row, in id order.
    mutating func finishAll() -> [EventRow] {
        var rows = Array(others.values)
        if let latest { rows.append(latest) }
        self = OpenEvents()
        return rows.sorted { $0.raised.id < $1.raised.id }
    }
}
