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
