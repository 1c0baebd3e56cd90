import CEventTreeSQLite
import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// Runs SQL on a file with the plain C API, as another program would; a statement that
/// fails is an issue of the test (an alteration that did not happen proves nothing).
func execute(_ path: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try JournalTampering.execute(sql, on: path)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct JournalOpeningTests {
    @Test func aNewJournalIsCreatedThroughTheMigrations() async throws {
        try await withTemporaryJournal { journal throws in
            #expect(try lines(journal.path, "PRAGMA user_version") == ["\(Journal.schemaVersion)"])
            #expect(try lines(journal.path, "PRAGMA application_id") == ["\(0x4554_7265)"])
            #expect(try lines(journal.path, "PRAGMA journal_mode") == ["wal"])
            #expect(try lines(journal.path, "SELECT version, name FROM j_migrations") == ["1|0001_journal"])
            #expect(Journal.schemaVersion == 1)
        }
    }

    @Test func everyJournalHasItsOwnIdentityWhichACopyKeeps() async throws {
        try await withTemporaryDirectory { directory in
            let first = directory + "/first.eventtree", second = directory + "/second.eventtree"
            try Journal(path: first).close()
            try Journal(path: second).close()
            let id = try JournalReader(path: first).journalID()
            #expect(id.uuidString.lowercased().split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
            #expect(Array(id.uuidString)[14] == "4")
            #expect("89AB".contains(Array(id.uuidString)[19]))
            #expect(foreignLines(first, "SELECT journal_id FROM journal_identity") == [id.uuidString.lowercased()])
            #expect(try JournalReader(path: second).journalID() != id)
            // Reopened for writing, or copied: the same journal.
            try Journal(path: first).close()
            let copy = directory + "/copy.eventtree"
            try FileManager.default.copyItem(atPath: first, toPath: copy)
            #expect(try JournalReader(path: first).journalID() == id)
            #expect(try JournalReader(path: copy).journalID() == id)
            // An edited identity is damage, said in one line.
            execute(copy, "INSERT INTO j_journal VALUES ('not a uuid')")
            #expect(throws: JournalError.corrupt(path: copy, detail: "its identity (table j_journal) is not one UUID")) {
                try JournalReader(path: copy).journalID()
            }
        }
    }
    @Test func aJournalFromANewerVersionIsRefusedAndLeftByteForByteUnchanged() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/newer.eventtree"
            try Journal(path: path).close()
            execute(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99")
            let before = bytes(path)
            #expect(throws: JournalError.newerVersion(path: path, found: 99, supported: Journal.schemaVersion)) {
                try Journal(path: path)
            }
            #expect(throws: JournalError.newerVersion(path: path, found: 99, supported: Journal.schemaVersion)) {
                try JournalReader(path: path)
            }
            #expect(bytes(path) == before)
            #expect(JournalError.newerVersion(path: path, found: 99, supported: 1).description
                == "\(path) has journal schema version 99; this eventtree supports up to version 1: use a newer eventtree")
        }
    }

    /// A journal written before the schema became one migration has a higher version but a
    /// first migration that is not ours: said so, not "use a newer eventtree".
    @Test func aJournalOfAPreReleaseSchemaIsRefusedForItsFirstMigration() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/prerelease.eventtree"
            try Journal(path: path).close()
            execute(path, """
                PRAGMA journal_mode = DELETE; PRAGMA user_version = 8;
                UPDATE j_migrations SET name = '0001_initial', checksum = '0123456789abcdef'
                """)
            let before = bytes(path)
            let refusal = JournalError.editedMigration(path: path, version: 1, name: "0001_initial")
            #expect(throws: refusal) { try JournalReader(path: path) }
            #expect(throws: refusal) { try Journal(path: path) }
            #expect(bytes(path) == before)
        }
    }

    @Test func anSQLiteFileThatIsNotAJournalIsRefusedAndUnchanged() async {
        await withTemporaryDirectory { directory in
            let path = directory + "/other.sqlite"
            execute(path, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hello')")
            let before = bytes(path)
            #expect(throws: JournalError.notAJournal(path: path)) { try Journal(path: path) }
            #expect(throws: JournalError.notAJournal(path: path)) { try JournalReader(path: path) }
            #expect(bytes(path) == before)
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/text.eventtree"
            try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
            let before = bytes(path)
            #expect(throws: JournalError.notADatabase(path: path)) { try Journal(path: path) }
            #expect(throws: JournalError.notADatabase(path: path)) { try JournalReader(path: path) }
            #expect(bytes(path) == before)
        }
    }

    @Test func anEditedMigrationIsDetected() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/edited.eventtree"
            try Journal(path: path).close()
            execute(path, "UPDATE j_migrations SET checksum = '0000000000000000' WHERE version = 1")
            #expect(throws: JournalError.editedMigration(path: path, version: 1, name: "0001_journal")) {
                try Journal(path: path)
            }
        }
    }

    @Test func aJournalHasOneWriter() async throws {
        try await withTemporaryJournal { journal in
            #expect(throws: JournalError.locked(path: journal.path, holder: "this process (another Journal)")) {
                try Journal(path: journal.path)
            }
        }
    }

    @Test func theWritersLockFileIsThereWhileItWritesAndGoneAfterACleanClose() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/locked.eventtree"
            let journal = try Journal(path: path)
            #expect(FileManager.default.fileExists(atPath: path + ".lock"))
            try journal.close()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["locked.eventtree"])
            // The lock of a writer that closed is taken again by the next one.
            try Journal(path: path).close()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["locked.eventtree"])
        }
    }

    @Test func aReopenedJournalContinuesTheSequenceWithANewSession() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/reopened.eventtree"
            for round in 1...2 {
                let journal = try Journal(path: path)
                do {
                    let bus = EventBus(recorder: journal, process: "round\(round)")
                    let app = EventNode("app", bus: bus)
                    app.on(Ping.self, label: "h") { _, _ in .handled }
                    app.raise(Ping())
                }
                try journal.close()
            }
            let sessions = try lines(path, "SELECT session_id, process, events, steps, ended_at IS NOT NULL FROM sessions")
            #expect(sessions == [
                "1|round1|1|1|1", "11|round2|1|1|1",
            ])
            let calls = try lines(path, "SELECT seq, session_id, handler_label FROM delivery_history")
            #expect(calls == ["6|1|h", "16|11|h"])
        }
    }

    @Test func payloadsAreQueryableWithSQLitesJSONFunctions() async throws {
        try await withTemporaryJournal { journal in
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            app.raise(NamedEvent("didSave", ["document": "notes.txt"]))
            try journal.flush()
            #expect(try lines(journal.path, """
                SELECT json_extract(payload, '$.name'), json_extract(payload, '$.parameters.document')
                FROM event_history
                """) == ["didSave|notes.txt"])
        }
    }

    @Test func badPathsAreRefusedBeforeSQLiteSeesThem() async {
        await withTemporaryDirectory { directory in
            let fifo = directory + "/fifo"
            mkfifo(fifo, 0o644)
            let empty = directory + "/empty.eventtree"
            _ = FileManager.default.createFile(atPath: empty, contents: Data())
            #expect(throws: JournalError.missing(path: directory + "/none")) { try JournalReader(path: directory + "/none") }
            #expect(throws: JournalError.notAFile(path: directory, kind: "a directory")) { try JournalReader(path: directory) }
            #expect(throws: JournalError.notAFile(path: fifo, kind: "a FIFO")) { try JournalReader(path: fifo) }
            #expect(throws: JournalError.empty(path: empty)) { try JournalReader(path: empty) }
            #expect(throws: JournalError.uriPath(path: "file:x?mode=rwc")) { try JournalReader(path: "file:x?mode=rwc") }
            #expect(throws: JournalError.notAFile(path: fifo, kind: "a FIFO")) { try Journal(path: fifo) }
            #expect(bytes(empty) == Data())
        }
    }

    @Test func aTruncatedJournalIsReportedAsDamaged() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/cut.eventtree"
            let journal = try Journal(path: path)
            let bus = EventBus(recorder: journal)
            let app = EventNode("app", bus: bus)
            for index in 0..<2_000 { app.raise(NamedEvent("event \(index)")) }
            try journal.close()
            _ = app
            let size = try #require(bytes(path)).count
            truncate(path, off_t(size / 2))
            do {
                _ = try JournalReader(path: path)
                Issue.record("a truncated journal opened")
            } catch let error as JournalError {
                guard error.code == .corrupt else {
                    Issue.record("expected .corrupt, got \(error)")
                    return
                }
                #expect(error.path == path)
                #expect(error.description.hasPrefix("\(path) is damaged or truncated: "))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func readingAClosedJournalCreatesNothingBesideIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/quiet.eventtree"
            try Journal(path: path).close()
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
            let fileBefore = bytes(path)
            _ = try lines(path, "SELECT count(*) FROM sessions")
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == before)
            #expect(bytes(path) == fileBefore)
        }
    }

    @Test func aJournalInADirectoryThatDoesNotExistIsAnIOErrorNotAnSQLiteOne() async {
        await withTemporaryDirectory { directory in
            let path = directory + "/missing/app.eventtree"
            #expect(throws: JournalError.io(path: path + ".lock", operation: "create the lock file", errno: ENOENT)) {
                try Journal(path: path)
            }
            #expect(JournalError.io(path: path + ".lock", operation: "create the lock file", errno: ENOENT).description
                == "cannot create the lock file \(path).lock: No such file or directory")
        }
    }

    @Test func sqliteResultCodesMatchByNameIncludingTheirExtendedCodes() {
        let write = SQLiteError(code: (SQLITE_IOERR | (3 << 8)), message: "disk I/O error", sql: nil)
        #expect(write.resultCode == .ioerr)
        #expect(write.resultCode != .full)
        #expect(SQLiteError.ResultCode(rawValue: (SQLITE_IOERR | (3 << 8))) != SQLiteError.ResultCode(rawValue: (SQLITE_IOERR | (4 << 8))))
        #expect(SQLiteError(code: SQLITE_FULL, message: "full", sql: nil).isDiskFull)
        #expect(JournalError(SQLiteError(code: SQLITE_NOTADB, message: "", sql: nil), path: "x") == .notADatabase(path: "x"))
        #expect(JournalError(SQLiteError(code: (SQLITE_BUSY | (2 << 8)), message: "", sql: nil), path: "x")
            == .locked(path: "x", holder: "another connection"))
    }
}
