import EventTreeJournal

/// A read-only journal for small counting queries.
struct JournalCheckReader {
    let reader: JournalReader

    init(path: String) throws { reader = try JournalReader(path: path) }

    func count(_ sql: String) throws -> Int { try reader.rows(sql).first?.first?.int ?? 0 }
}
