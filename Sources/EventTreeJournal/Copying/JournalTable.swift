/// One of the tables a journal keeps its records in, and how its rows change once written:
/// what a copier needs to keep a copy of a journal elsewhere row for row
/// (``JournalReader/tableRows(of:seqs:)``) and to rebuild the file from it
/// (``JournalRebuilder``), without knowing anything else of the format.
///
/// `j_migrations` is not among them: a rebuilt journal records its own migrations, made
/// from the same files.
public struct JournalTable: Sendable, Hashable, CustomStringConvertible {
    /// How a table's rows change after they are written.
    public enum Changes: Sendable, Hashable {
        /// Never, once the seq in `seqColumn` is settled: a copier takes them by seq, once.
        case never(seqColumn: String)
        /// Until the raise whose event id is in `eventColumn` has ended (exactly when that
        /// event's `event_history` row is final): a copier takes them again until then.
        case untilRaiseEnds(eventColumn: String)
        /// At any time (a session ends, a handler is removed, the sequence advances): a
        /// copier replaces all of them every time; they are few.
        case anytime
    }

    /// The table's name.
    public let name: String
    /// How its rows change.
    public let changes: Changes

    /// The column a copier ranges over (seq or event id), or `nil` for a table taken whole.
    public var seqColumn: String? {
        switch changes {
        case .never(let column), .untilRaiseEnds(let column): column
        case .anytime: nil
        }
    }

    /// The table's name.
    public var description: String { name }

    /// Every table of the current schema, in the order a rebuilder may fill them.
    public static let all: [JournalTable] = [
        JournalTable(name: "j_journal", changes: .anytime),
        JournalTable(name: "j_sequence", changes: .anytime),
        JournalTable(name: "j_sessions", changes: .anytime),
        JournalTable(name: "j_threads", changes: .anytime),
        JournalTable(name: "j_types", changes: .anytime),
        JournalTable(name: "j_handlers", changes: .anytime),
        JournalTable(name: "j_nodes", changes: .never(seqColumn: "node_id")),
        JournalTable(name: "j_changes", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_tree_snapshots", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_matches", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_events", changes: .untilRaiseEnds(eventColumn: "event_id")),
        JournalTable(name: "j_event_details", changes: .untilRaiseEnds(eventColumn: "event_id")),
        JournalTable(name: "j_call_runs", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_call_details", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_undelivered", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_lost_calls", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_releases", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_trouble", changes: .never(seqColumn: "seq")),
        JournalTable(name: "j_chain", changes: .never(seqColumn: "upto_seq")),
        JournalTable(name: "j_prunes", changes: .never(seqColumn: "seq")),
    ]

    /// The table called `name`, if the journal has one.
    public static func named(_ name: String) -> JournalTable? {
        all.first { $0.name == name }
    }
}
