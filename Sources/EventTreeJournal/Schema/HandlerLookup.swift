import EventTree

/// What decoding events and steps needs of the registrations: the type names, and each
/// handler by its number. Either every registration, read at once (for a stream over a
/// session), or only the handlers met, each read by its key when first needed (for a point
/// query), so that explaining one event does not read every registration of a long journal.
final class HandlerLookup {
    /// Type names by the journal's type number.
    let typeNames: [Int: String]
    /// Every registration: given, or read once a lookup has met ``readsBeforeReadingAll``
    /// handlers one by one (a long stream would otherwise read them all, each by its key).
    private var all: RecordedRegistrations?
    /// The reader whose cache holds this lookup (unowned: it owns the lookup).
    private unowned let reader: JournalReader?
    /// The handlers read so far, and the numbers the journal does not have.
    private var met: [Int: RecordedHandler?] = [:]

    /// A lookup in every registration.
    init(_ all: RecordedRegistrations) {
        typeNames = all.typeNames
        self.all = all
        reader = nil
    }

    /// A lookup that reads each handler from `reader` when first asked.
    init(typeNames: [Int: String], reading reader: JournalReader) {
        self.typeNames = typeNames
        all = nil
        self.reader = reader
    }

    /// The handler numbered `number`, if the journal has it.
    @inline(__always)
    func handler(numbered number: Int) throws(JournalError) -> RecordedHandler? {
        if let all { return all.handler(numbered: number) }
        return try read(number)
    }

    /// How many handlers a lookup reads one by one before it reads every registration.
    static let readsBeforeReadingAll = 1_024

    @inline(never)
    private func read(_ number: Int) throws(JournalError) -> RecordedHandler? {
        if let known = met[number] { return known }
        if met.count >= Self.readsBeforeReadingAll, let reader {
            let every = try reader.registrations()
            all = every
            return every.handler(numbered: number)
        }
        let found = try reader?.handler(readingNumber: number, typeNames: typeNames)
        met[number] = .some(found)
        return found
    }
}
