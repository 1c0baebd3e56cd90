import EventTree
import EventTreeJournal
import EventTreeReplay
import EventTreeReport
import FuzzSupport

/// libFuzzer's entry point: damages a copy of a seed journal as the input says (see
/// ``JournalMutator``), then reads it every way a tool does — the typed records to the
/// end, a full replay, explanations of a few events, the tree, the HTML report and the
/// tree's diagrams. A thrown error is the
/// expected answer to a damaged journal; a crash, a trap or a hang is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let report = JournalMutator.makeJournal(from: &input)
    if KnownBugs.reachedByJournal() { return 0 }
    readRecords()
    replay(report.seed, &input)
    return 0
}

/// Every typed record, in seq order, to the end of the stream or the first error.
private func readRecords() {
    guard let reader = try? JournalReader(path: Scratch.journal) else { return }
    _ = try? reader.registrations()
    _ = try? reader.sessionIDs()
    _ = try? reader.settledBelow()
    guard let records = try? reader.records() else { return }
    while records.current != nil {
        do { try records.advance() } catch { return }
    }
}

/// A replay of every session, then what `explain` and `topology` read.
private func replay(_ seed: SeedJournal, _ input: inout FuzzInput) {
    guard let replayer = try? Replayer(journal: Scratch.journal) else { return }
    _ = try? replayer.sessions()
    try? replayer.replay { _ in }
    var explanation: Explanation?
    for _ in 0..<3 {
        let event = input.bool() ? input.interestingInt() : input.pick(seed.eventIDs)
        let node: String? = input.bool() ? input.pick(seed.nodePaths) : nil
        let handler: HandlerID? = input.bool() ? HandlerID(rawValue: input.pick(seed.handlerIDs)) : nil
        explanation = (try? replayer.explain(
            event: EventID(rawValue: event), node: node, withoutHandler: handler, ignoringConsumption: input.bool()))
            ?? explanation
    }
    let sessions = (try? replayer.sessions()) ?? []
    let session = sessions.isEmpty ? nil : input.pick(sessions).id
    if let tree = try? replayer.topology(session: session, at: input.bool() ? nil : input.pick(seed.eventIDs)) {
        let diagram = Diagram(tree: tree, explanation: explanation)
        _ = diagram.rendered(as: .dot)
        _ = diagram.rendered(as: .mermaid)
    }
    _ = (try? SessionReport(journal: Scratch.journal, session: session))?.html()
}
