import CEventTreeSQLite

/// Alters a closed journal file the way another program could (a bug, a careless script, an
/// attacker), so that this package's tests can check what `verify`, replay and the reading
/// commands make of it. It lives here because only this module knows the tables.
///
/// Handler calls are packed, one `j_call_runs` row per run of calls (see the journal schema),
/// so that changing or removing one call means rewriting its run; these do that.
///
/// ```swift
/// try JournalTampering.changeCall(at: 42, in: path, column: .nanos) { $0 + 1 }
/// // eventtree verify: "altered at seq 42: it was changed, inserted or moved …"
/// ```
package enum JournalTampering {
    /// A column of a handler call, in the order a run keeps them.
    package enum CallColumn: Int, Sendable {
        case handlerNumber = 0
        case code = 1
        case nanos = 2
        case offsetMicroseconds = 3
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
        let (run, index, _) = try place(ofCallAt: seq, in: path)
        let value = try integer("SELECT json_extract(calls, '$[\(index)][\(column.rawValue)]') FROM j_call_runs WHERE seq = \(run)", in: path)
        try execute(
            "UPDATE j_call_runs SET calls = json_replace(calls, '$[\(index)][\(column.rawValue)]', \(change(value))) WHERE seq = \(run)",
            on: path)
    }

    /// Removes the handler call at `seq` from its run (and the run, when it was its only call).
    package static func removeCall(at seq: Int, in path: String) throws(Failure) {
        let (run, index, count) = try place(ofCallAt: seq, in: path)
        guard count > 1 else { return try execute("DELETE FROM j_call_runs WHERE seq = \(run)", on: path) }
        try execute("""
            UPDATE j_call_runs SET calls = json_remove(calls, '$[\(index)]') WHERE seq = \(run);
            UPDATE j_call_runs SET seq = event_id + (json_extract(calls, '$[0][1]') >> 5),
                last_seq = event_id + (json_extract(calls, '$[#-1][1]') >> 5) WHERE seq = \(run);
            """, on: path)
    }

    /// The run holding the call at `seq`, the call's index in it, and the run's length.
    private static func place(ofCallAt seq: Int, in path: String) throws(Failure) -> (run: Int, index: Int, count: Int) {
        let run = try integer("""
            SELECT r.seq FROM j_call_runs r, json_each(r.calls) c
            WHERE r.event_id + (json_extract(c.value, '$[1]') >> 5) = \(seq)
            """, in: path)
        let index = try integer("""
            SELECT c.key FROM j_call_runs r, json_each(r.calls) c
            WHERE r.seq = \(run) AND r.event_id + (json_extract(c.value, '$[1]') >> 5) = \(seq)
            """, in: path)
        let count = try integer("SELECT json_array_length(calls) FROM j_call_runs WHERE seq = \(run)", in: path)
        return (run, index, count)
    }

    private static func integer(_ sql: String, in path: String) throws(Failure) -> Int {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK
        else { throw Failure(description: "\(sql) failed on \(path): \(String(cString: sqlite3_errmsg(db)))") }
        guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_type(statement, 0) != SQLITE_NULL else {
            throw Failure(description: "\(sql) found nothing in \(path)")
        }
        return Int(sqlite3_column_int64(statement, 0))
    }
}
