@testable import EventTreeCommands
import EventTree
import EventTreeJournal
import EventTreeTesting
import Testing

/// A filter that matches few rows reads the stretches of seqs that can hold them, found by
/// the journal's keys, and prints exactly the rows a read of every seq finds.
@Suite struct QueryBoundsTests {
    /// The busy demo of 20,000 raises (about 70,000 seqs), recorded in `directory`.
    static func busyJournal(in directory: String) -> String {
        let journal = directory + "/busy.eventtree"
        #expect(runCommand(["demo", "--journal", journal, "--events", "20000", "--format", "csv"]).status == 0)
        return journal
    }

    /// The rows `arguments` select, read with the bounds the filters set or without any,
    /// and how many seqs the windows read covered.
    static func rows(
        _ arguments: [String], in journal: String, bounded: Bool
    ) throws -> (rows: [[JournalValue]], seqsRead: Int) {
        let query = try Query.parse([journal] + arguments)
        let reader = try JournalReader(path: journal)
        let (conditions, values, matching) = try query.filter(in: reader)
        var rows: [[JournalValue]] = []
        let seqs = max(query.since ?? 1, 1)...(query.until ?? Int.max - 1)
        let seqsRead = try DeliveryHistoryReader(reader: reader).forEachRow(
            where: conditions, values, seqs: seqs, matching: bounded ? matching : MatchingRowSeqs(), limit: query.limit
        ) { row in rows.append(row.values) }
        return (rows, seqsRead)
    }

    @Test func boundedReadsFindExactlyTheRowsOfReadsOfEverySeq() async throws {
        try await withTemporaryDirectory { directory in
            let journal = Self.busyJournal(in: directory)
            let reader = try JournalReader(path: journal)
            let lastEvent = try #require(reader.rows("SELECT max(event_id) FROM event_history").first?[0].int)
            let handler = try #require(reader.rows("SELECT label FROM handler_registrations ORDER BY handler_id DESC LIMIT 1").first?[0].string)
            let node = try #require(reader.rows("SELECT node_path FROM delivery_history WHERE node_path IS NOT NULL ORDER BY seq DESC LIMIT 1").first?[0].string)
            let filters: [[String]] = [
                ["--outcome", "failed"], ["--outcome", "answered", "--limit", "3"], ["--outcome", "undelivered"],
                ["--outcome", "deadLetter"], ["--outcome", "unhandledError", "--limit", "2"], ["--outcome", "consumed"],
                ["--phase", "capture"], ["--phase", "bubble", "--outcome", "failed"], ["--phase", "propagate", "--outcome", "undelivered"],
                ["--event", String(lastEvent)], ["--event", String(lastEvent / 2)], ["--event", "1"],
                ["--handler", handler], ["--handler", handler, "--outcome", "answered"],
                ["--node", node], ["--node", node, "--outcome", "deadLetter"], ["--session", "1", "--limit", "5"],
            ]
            for filter in filters {
                let bounded = try Self.rows(filter, in: journal, bounded: true)
                let everySeq = try Self.rows(filter, in: journal, bounded: false)
                #expect(bounded.rows == everySeq.rows, "\(filter)")
                if !filter.contains("--limit") { #expect(bounded.seqsRead <= everySeq.seqsRead, "\(filter)") }
            }
        }
    }

    /// The filters whose rows the keys find read only the windows that hold them (without
    /// the bounds, every seq up to them), and a filter nothing can match reads no seq at all.
    @Test func aFilterMatchingFewRowsReadsOnlyTheWindowsThatHoldThem() async throws {
        try await withTemporaryDirectory { directory in
            let journal = Self.busyJournal(in: directory)
            let reader = try JournalReader(path: journal)
            let lastEvent = try #require(reader.rows("SELECT max(event_id) FROM event_history").first?[0].int)
            // The busy demo registers no handler for the capture phase, and loses no step in it.
            let capture = try Self.rows(["--phase", "capture"], in: journal, bounded: true)
            #expect(capture.rows.isEmpty && capture.seqsRead == 0)
            #expect(try Self.rows(["--phase", "capture"], in: journal, bounded: false).seqsRead > 60_000)
            let event = try Self.rows(["--event", String(lastEvent)], in: journal, bounded: true)
            #expect(!event.rows.isEmpty && event.seqsRead <= DeliveryHistoryReader.firstWindow)
            #expect(try Self.rows(["--event", String(lastEvent)], in: journal, bounded: false).seqsRead > 60_000)
            let late = try #require(reader.rows("SELECT min(seq) FROM delivery_history WHERE outcome = 'undelivered' AND seq > ?", [.integer(lastEvent / 2)]).first?[0].int)
            let found = try Self.rows(["--outcome", "undelivered", "--since", String(lastEvent / 2), "--limit", "1"], in: journal, bounded: true)
            #expect(found.rows.first?[0].int == late && found.seqsRead <= DeliveryHistoryReader.firstWindow, "\(found.seqsRead) seqs")
        }
    }

    /// `--handler ID` matches every handler registered with that label at that place (each
    /// cell of a list registers one, at one line): the rows of earlier ones are printed too.
    @Test func aHandlerIDFindsTheRowsOfEveryHandlerRegisteredWhereItWas() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.on(NamedEvent.self, label: "filler") { _, _ in .handled }
            func cell(_ name: String) -> EventNode {
                let cell = EventNode(name, parent: app)
                cell.on(NamedEvent.self, label: "tap") { _, _ in .handled }
                return cell
            }
            let first = cell("first")
            first.raise(NamedEvent("tap"))
            // A few windows of history between the two cells' calls.
            for _ in 0..<3_000 { app.raise(NamedEvent("filler")) }
            let second = cell("second")
            second.raise(NamedEvent("tap"))
            try journal.flush()
            let reader = try JournalReader(path: journal.path)
            let id = try #require(reader.rows("SELECT max(handler_id) FROM handler_registrations WHERE label = 'tap'").first?[0].int)
            let bounded = try Self.rows(["--handler", String(id)], in: journal.path, bounded: true)
            #expect(bounded.rows.map { $0[6] } == [.text("tap"), .text("tap")])
            #expect(bounded.rows.map { $0[4] } == [.text("app/first"), .text("app/second")])
            #expect(bounded.rows == (try Self.rows(["--handler", String(id)], in: journal.path, bounded: false)).rows)
            withExtendedLifetime([first, second]) {}
        }
    }
}
