/// Typed records read one at a time, in seq order: what ``JournalReader`` hands out for
/// large reads, so that memory stays flat in the journal's size.
public final class JournalStream<Element> {
    @usableFromInline let produce: () throws(JournalError) -> Element?
    /// The record the stream stands on, `nil` at the end. (Used by one thread at a time:
    /// no dynamic exclusivity check per record.)
    @exclusivity(unchecked) public private(set) var current: Element?

    init(_ produce: @escaping () throws(JournalError) -> Element?) throws(JournalError) {
        self.produce = produce
        current = try produce()
    }

    /// Moves to the next record.
    @inlinable
    public func advance() throws(JournalError) {
        setCurrent(try produce())
    }

    @usableFromInline
    func setCurrent(_ element: Element?) {
        current = element
    }
}

extension JournalStream {
    /// The elements of `sources`, each already in seq order, as one stream in seq order (on
    /// a tie, the earlier source's first): how the readers merge the tables' rows into records.
    static func merging(
        _ sources: [JournalStream<Element>], seq: @escaping (Element) -> Int
    ) throws(JournalError) -> JournalStream<Element> {
        try JournalStream { () throws(JournalError) in
            var lowest: (source: JournalStream<Element>, seq: Int)?
            for source in sources {
                guard let element = source.current else { continue }
                let elementSeq = seq(element)
                if elementSeq < lowest?.seq ?? Int.max { lowest = (source, elementSeq) }
            }
            guard let source = lowest?.source, let element = source.current else { return nil }
            try source.advance()
            return element
        }
    }
}
