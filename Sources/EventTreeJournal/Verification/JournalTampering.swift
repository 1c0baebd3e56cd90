import CEventTreeSQLite

/// Alters a closed journal file the way another program could (a bug, a careless script, an
/// attacker), so that this package's tests can check what `verify`, replay and the reading
/// commands make of it. It lives here because only this module knows the tables.
///
/// Handler calls are packed, a run of calls in its event's row or in a `j_call_runs` row (see
/// the journal schema), so that changing or removing one call means rewriting its run; these
/// do that.
///
/// ```swift
/// try JournalTampering.changeCall(at: 42, in: path, column: .nanos) { $0 + 1 }
/// // eventtree verify: "altered at seq 42: it was changed, inserted or moved …"
/// ```
package enum JournalTampering {
    /// A column of a handler call (of the `j_calls` view).
    package enum CallColumn: Sendable {
        case handlerNumber
        case nanos
        case offsetMicroseconds
    }

    /// What went wrong: the SQL failed, or there is no call at the seq given.
    package struct Failure: Error, CustomStringConvertible {
        /// What happened.
        package let description: String
    }

    /// Runs `sql` (any number of statements) on the file at `path` through the plain C API.
    ///
    /// - Throws: ``Failure`` with SQLite's message when a statement fails.
    package static func execute(_ sql: String, on path: String) throws(Failure) {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open(path, &db) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: "\(sql) failed on \(path): \(message.map { String(cString: $0) } ?? "?")")
        }
    }

    /// Sets `column` of the handler call at `seq` to `change` of its value, inside its run.
    package static func changeCall(
        at seq: Int, in path: String, column: CallColumn, to change: (Int) -> Int
    ) throws(Failure) {
        try rewriteRun(ofCallAt: seq, in: path) { calls, index in
            switch column {
            case .handlerNumber: calls[index].handlerNumber = change(calls[index].handlerNumber)
            case .nanos: calls[index].nanoseconds = change(calls[index].nanoseconds)
            case .offsetMicroseconds: calls[index].offsetMicroseconds = change(calls[index].offsetMicroseconds ?? 0)
            }
        }
    }

    /// Removes the handler call at `seq` from its run (and the run, when it was its only call).
    package static func removeCall(at seq: Int, in path: String) throws(Failure) {
        try rewriteRun(ofCallAt: seq, in: path) { calls, index in calls.remove(at: index) }
    }

    /// Decodes the run holding the call at `seq`, lets `edit` change its calls (given the
    /// call's index), and writes the run again as a writer would (or deletes it when no
    /// call is left), its seq and last seq those of its calls: in its event's row while its
    /// first call is the one right after its raise, in `j_call_runs` otherwise.
    private static func rewriteRun(
        ofCallAt seq: Int, in path: String, _ edit: (inout [CallRun.Call], Int) -> Void
    ) throws(Failure) {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        // The runs that can hold `seq`: those of j_call_runs, then those of event rows (the
        // reader's own queries).
        let sources: [(sql: String, arguments: [Int], inEventRow: Bool)] = [
            (JournalReader.callRunsSQL, [seq, seq], false),
            (JournalReader.eventRunsSQL, JournalReader.eventRunsBounds(seq...seq), true),
        ]
        for source in sources {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            guard sqlite3_prepare_v2(db, source.sql, -1, &statement, nil) == SQLITE_OK else {
                throw Failure(description: "\(source.sql) failed on \(path): \(String(cString: sqlite3_errmsg(db)))")
            }
            for (index, argument) in source.arguments.enumerated() {
                sqlite3_bind_int64(statement, Int32(index + 1), Int64(argument))
            }
            while sqlite3_step(statement) == SQLITE_ROW {
                let (first, event, last) = (
                    Int(sqlite3_column_int64(statement, 0)), Int(sqlite3_column_int64(statement, 1)),
                    Int(sqlite3_column_int64(statement, 2)))
                var calls: [CallRun.Call] = []
                let text = UnsafeBufferPointer(
                    start: sqlite3_column_text(statement, 3), count: Int(sqlite3_column_bytes(statement, 3)))
                guard CallRun.calls(
                    in: text, event: event, firstSeq: first, lastSeq: last, lastSeqIsBound: source.inEventRow, into: &calls),
                    let index = calls.firstIndex(where: { $0.seq == seq })
                else { continue }
                edit(&calls, index)
                return try write(calls, of: event, over: source.inEventRow ? nil : first, in: path, changing: seq)
            }
        }
        throw Failure(description: "no run of \(path) holds a call at seq \(seq)")
    }

    /// Writes `calls` (edited) of `event` back as a writer would, in place of the run at
    /// `runSeq` of `j_call_runs` or, when `runSeq` is `nil`, of the event's row: in the event's
    /// row while the first call is the one right after its raise, in `j_call_runs` otherwise
    /// (or nowhere, when no call is left).
    private static func write(
        _ calls: [CallRun.Call], of event: Int, over runSeq: Int?, in path: String, changing seq: Int
    ) throws(Failure) {
        let removal = runSeq.map { "DELETE FROM j_call_runs WHERE seq = \($0);" }
            ?? "UPDATE j_events SET calls = NULL WHERE event_id = \(event);"
        guard !calls.isEmpty else { return try execute(removal, on: path) }
        guard calls.allSatisfy({ (0...CallRun.largestHandlerNumber).contains($0.handlerNumber) }) else {
            throw Failure(description: "a run cannot hold the handler number the change gives the call at seq \(seq)")
        }
        let run = CallRun()
        for call in calls { run.append(call, of: event) }
        let written = run.close { String(decoding: $0, as: UTF8.self) }
        if runSeq == nil && calls[0].seq == event + 1 {
            return try execute("UPDATE j_events SET calls = '\(written)' WHERE event_id = \(event)", on: path)
        }
        try execute("""
            \(removal)
            INSERT INTO j_call_runs (seq, event_id, last_seq, calls)
            VALUES (\(calls[0].seq), \(event), \(calls[calls.count - 1].seq), '\(written)')
            """, on: path)
    }
}
