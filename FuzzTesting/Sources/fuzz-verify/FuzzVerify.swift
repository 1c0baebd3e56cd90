import EventTreeJournal
import FuzzSupport

/// libFuzzer's entry point: damages a copy of a seed journal as the input says (see
/// ``JournalMutator``), then verifies it against its hash chain, alone and against a head
/// (the seed's, or one made from the input). Besides crashes and hangs, it checks what
/// `verify` promises:
///
/// - a journal whose records were not changed is intact, and passes through the seed's head;
/// - one integer of a record changed to another is never intact.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let report = JournalMutator.makeJournal(from: &input)
    if KnownBugs.reachedByJournal() { return 0 }
    let untouched = report.changedRows == 0 && report.failedStatements == 0 && !report.rawDamage
    let verifier: JournalVerifier
    do {
        verifier = try JournalVerifier(journal: Scratch.journal)
    } catch {
        expect(!untouched, "an untouched copy of \(report.seed.name) cannot be opened: \(error)")
        return 0
    }
    let plain = try? verifier.verify()
    // Against the seed's head (which an untouched copy must pass through), or one made from the input.
    let againstSeed = input.bool()
    let head = againstSeed ? report.seed.head : JournalHead(
        seq: input.bool() ? input.pick(report.seed.eventIDs) : input.interestingInt(),
        hash: input.bool() ? report.seed.head?.hash ?? [] : input.bytes(upTo: 40))
    let expected = try? verifier.verify(expectedHead: head)

    if untouched {
        expect(plain?.isIntact == true, "an untouched copy of \(report.seed.name): \(plain?.line ?? "threw")")
        expect(!againstSeed || expected?.isIntact == true, "an untouched copy against its head: \(expected?.line ?? "threw")")
    }
    if let change = report.integerChange, !report.rawDamage {
        expect(plain?.isIntact != true, "verify says intact after \(change) in \(report.seed.name)")
    }
    return 0
}
