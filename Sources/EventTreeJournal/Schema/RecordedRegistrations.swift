import EventTree

/// What a journal says about handlers and types: every registration, the type names, and
/// which typed handlers match which types (protocol-typed handlers match many). Small, so
/// it is read once and kept.
public final class RecordedRegistrations: Sendable {
    /// Type names by the journal's type number.
    public let typeNames: [Int: String]
    /// Every handler, in registration order.
    public let handlers: [RecordedHandler]
    /// The lowest ``RecordedHandler/number``: 1, or the first that retention kept.
    public let firstNumber: Int
    /// Handlers by ``RecordedHandler/number`` minus ``firstNumber`` (numbers are dense).
    public let handlersByNumber: [RecordedHandler?]
    /// For each type number, the numbers of the typed handlers that match it.
    public let matches: [Int: [Int]]

    init(typeNames: [Int: String], handlers: [RecordedHandler], matches: [Int: [Int]], firstNumber: Int) {
        self.typeNames = typeNames
        self.handlers = handlers
        self.matches = matches
        self.firstNumber = firstNumber
        var byNumber: [RecordedHandler?] = Array(
            repeating: nil, count: (handlers.map(\.number).max() ?? firstNumber - 1) - firstNumber + 1)
        for handler in handlers { byNumber[handler.number - firstNumber] = handler }
        handlersByNumber = byNumber
    }

    /// The handler numbered `number`, if the journal has it.
    public func handler(numbered number: Int) -> RecordedHandler? {
        handlersByNumber.indices.contains(number - firstNumber) ? handlersByNumber[number - firstNumber] : nil
    }
}
