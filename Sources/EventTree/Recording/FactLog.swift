/// Collects the facts of one change to a bus, numbering each from the global sequence.
///
/// Ids (of nodes, handlers, events) are sequence numbers, so they are taken even when
/// nothing is recorded; plain facts take a number only when they are recorded.
///
/// A log that starts a batch of its own (``opensBatch``) takes its first number with
/// ``SequenceCounter/open()``, so that the batch's first record carries the number the
/// recorder settles (see ``SequenceCounter/settledBelow``).
struct FactLog {
    let sequence: SequenceCounter
    let isRecording: Bool
    let opensBatch: Bool
    /// The number this log opened its batch with, if it did.
    private(set) var openedAt: Int?
    var records: [FactRecord] = []

    /// A log numbering from `sequence`, with room for a few records when it records.
    init(sequence: SequenceCounter, isRecording: Bool, opensBatch: Bool) {
        self.sequence = sequence
        self.isRecording = isRecording
        self.opensBatch = opensBatch && isRecording
        if isRecording { records = Self.newRecords() }
    }

    /// A new, empty buffer with room for a typical raise's records, or for `room`.
    static func newRecords(room: Int = 0) -> [FactRecord] {
        var records: [FactRecord] = []
        records.reserveCapacity(max(16, room))
        return records
    }

    /// Records `fact` with the next number.
    mutating func record(_ fact: Fact) {
        if isRecording { records.append(FactRecord(seq: nextNumber(), fact: fact)) }
    }

    /// Takes the next number, as the id of something new (taken even when not recording).
    mutating func takeNumber() -> Int { nextNumber() }

    /// Records `fact` under a number taken with ``takeNumber()``: the fact that
    /// introduces the thing that number identifies.
    mutating func record(_ fact: Fact, numbered seq: Int) {
        if isRecording { records.append(FactRecord(seq: seq, fact: fact)) }
    }

    private mutating func nextNumber() -> Int {
        guard opensBatch, openedAt == nil else { return sequence.advance() }
        let first = sequence.open()
        openedAt = first
        return first
    }

    /// Settles the opened batch when its records will not reach a recorder as a batch of
    /// their own: none were recorded, or they join a delivery's batch (opened earlier).
    func settleUnlessHandedOver(handingOver: Bool) {
        guard let openedAt, !handingOver || records.isEmpty else { return }
        sequence.settle(openedAt)
    }
}
