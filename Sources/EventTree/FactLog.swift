/// Collects the facts of one change to a bus, numbering each from the global sequence.
///
/// Ids (of nodes, handlers, events) are sequence numbers, so they are taken even when
/// nothing is recorded; plain facts take a number only when they are recorded.
struct FactLog {
    let sequence: SequenceCounter
    let isRecording: Bool
    var records: [Record] = []

    /// A log numbering from `sequence`; a recording one has room for a typical raise's
    /// records, since an outermost raise's batch starts as its log.
    init(sequence: SequenceCounter, isRecording: Bool) {
        self.sequence = sequence
        self.isRecording = isRecording
        if isRecording { records.reserveCapacity(16) }
    }

    /// Records `fact` with the next number.
    mutating func record(_ fact: Fact) {
        if isRecording { records.append(Record(seq: sequence.advance(), fact: fact)) }
    }

    /// Takes the next number, as the id of something new (taken even when not recording).
    func takeNumber() -> Int { sequence.advance() }

    /// Records `fact` under a number taken with ``takeNumber()``: the fact that
    /// introduces the thing that number identifies.
    mutating func record(_ fact: Fact, numbered seq: Int) {
        if isRecording { records.append(Record(seq: seq, fact: fact)) }
    }
}
