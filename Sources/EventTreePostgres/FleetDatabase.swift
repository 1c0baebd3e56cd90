#if PostgreSQL
import EventTreeJournal
import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL database that holds the journals of a fleet (every device or server
/// instance that records one), in tables named and shaped like the journal's views plus
/// `journal_id`, so that a query written for one journal runs across all of them.
///
/// ```swift
/// let fleet = try await FleetDatabase.connect(to: PostgresLocation("postgresql://me@db:5432/fleet"))
/// let report = try await fleet.ship(journalAt: "app.eventtree")
/// try await fleet.close()
/// ```
///
/// Shipping is incremental and idempotent: a journal is shipped up to its settled seq (a
/// journal being written can be shipped), in batches of seqs that are each one
/// transaction together with the journal's progress, so shipping the same journal again
/// adds nothing, later records are added next time, and a ship interrupted at any point
/// resumes without duplicates or gaps.
public actor FleetDatabase {
    /// Where the database is.
    public nonisolated let location: PostgresLocation
    private let connection: PostgresConnection
    private let logger: Logger

    private init(location: PostgresLocation, connection: PostgresConnection, logger: Logger) {
        self.location = location
        self.connection = connection
        self.logger = logger
    }

    /// Connects, and creates or migrates the fleet schema.
    ///
    /// - Throws: ``ShipError`` for an unreachable server, refused credentials or database,
    ///   or a database set up by a newer eventtree (left untouched).
    public static func connect(to location: PostgresLocation, logger: Logger? = nil) async throws(ShipError) -> FleetDatabase {
        try await open(location, logger: logger ?? quiet("eventtree.ship")) { connection, logger in
            try await FleetSchema.migrate(connection, location: location, logger: logger)
        }
    }

    /// Connects to read what was shipped: the fleet schema must be this eventtree's, and
    /// nothing is created or changed.
    ///
    /// - Throws: ``ShipError`` for an unreachable server, refused credentials or database,
    ///   a database without a fleet schema, or one set up by an older or newer eventtree.
    public static func connectForReading(to location: PostgresLocation, logger: Logger? = nil) async throws(ShipError) -> FleetDatabase {
        try await open(location, logger: logger ?? quiet("eventtree.read")) { connection, logger in
            try await FleetSchema.check(connection, location: location, logger: logger)
        }
    }

    /// Connects and runs `prepare` on the connection (closing it again if that fails).
    private static func open(
        _ location: PostgresLocation, logger: Logger, preparing prepare: (PostgresConnection, Logger) async throws -> Void
    ) async throws(ShipError) -> FleetDatabase {
        let connection: PostgresConnection
        let configuration = try location.configuration()
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw ShipError.from(error, location: location)
        }
        do {
            try await prepare(connection, logger)
        } catch {
            try? await connection.close()
            throw ShipError.from(error, location: location)
        }
        return FleetDatabase(location: location, connection: connection, logger: logger)
    }

    /// A logger that writes nothing.
    private static func quiet(_ label: String) -> Logger {
        Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Closes the connection.
    public func close() async throws {
        try await connection.close()
    }

    /// The fleet schema version this eventtree creates.
    public static var schemaVersion: Int { FleetSchema.latestVersion }

    /// Ships what the journal at `path` recorded since its last ship.
    ///
    /// The journal is verified first (its hash chain): one that fails is not shipped.
    ///
    /// - Parameters:
    ///   - path: The journal.
    ///   - seqsPerBatch: How many seqs each transaction covers.
    /// - Throws: `JournalError` for a journal that cannot be read,
    ///   ``ShipError`` for one that fails verification or a database that fails.
    public func ship(journalAt path: String, seqsPerBatch: Int = 100_000) async throws -> ShipReport {
        let reader = try JournalReader(path: path)
        let verification = try JournalVerifier(journal: path).verify()
        guard verification.isIntact else { throw ShipError.notIntact(path: reader.path, verdict: verification.line) }
        let journalID = try reader.journalID()
        // Read before the settled seq: a writer may go on, but rows up to `through` are final
        // on disk, and what is open now (an unfinished raise) is shipped again next time.
        let writing = reader.isBeingWritten
        let through = try reader.settledThrough()
        let source = "\(ProcessInfo.processInfo.hostName):\(reader.path)"
        do {
            return try await ship(
                reader, id: journalID, through: through, writing: writing, source: source, seqsPerBatch: max(1, seqsPerBatch))
        } catch let error as JournalError {
            throw error
        } catch {
            throw ShipError.from(error, location: location)
        }
    }

    /// A journal shipped to the database, as it stood at its last ship: what a copy read
    /// back from it holds, and so what names such a copy.
    public struct ShippedJournal: Sendable, Hashable {
        /// The journal's id.
        public let id: UUID
        /// The last seq shipped: a copy holds every record up to it.
        public let shippedSeq: Int
        /// The seq up to which its shipped events are final (the rows of raises still open
        /// at a ship are shipped again by the next).
        public let eventsFinalSeq: Int
        /// The journal schema version its rows were shipped at.
        public let schemaVersion: Int
    }

    /// Journal `id` (or the only journal the database holds), as it stood at its last ship.
    ///
    /// - Throws: ``ShipError`` for an unknown journal, a database with several and no `id`,
    ///   or a journal whose rows were never shipped.
    public func shippedJournal(_ id: UUID?) async throws -> ShippedJournal {
        do {
            let query: PostgresQuery = if let id {
                "SELECT journal_id, shipped_seq, events_final_seq, schema_version FROM journals WHERE journal_id = \(id)"
            } else {
                "SELECT journal_id, shipped_seq, events_final_seq, schema_version FROM journals ORDER BY first_shipped_at LIMIT 2"
            }
            var found: [(UUID, Int, Int, Int?)] = []
            for try await row in try await connection.query(query, logger: logger).decode((UUID, Int, Int, Int?).self) { found.append(row) }
            guard let (journalID, shipped, eventsFinal, schemaVersion) = found.first else {
                if let id { throw ShipError.noSuchJournal(location: location.description, id: id) }
                throw ShipError.noJournals(location: location.description)
            }
            guard id != nil || found.count == 1 else {
                let count = try await connection.query("SELECT count(*) FROM journals", logger: logger).collect().first?.decode(Int.self) ?? 0
                throw ShipError.severalJournals(location: location.description, count: count)
            }
            guard let schemaVersion else { throw ShipError.rowsNotShipped(location: location.description, id: journalID) }
            return ShippedJournal(id: journalID, shippedSeq: shipped, eventsFinalSeq: eventsFinal, schemaVersion: schemaVersion)
        } catch let error as ShipError {
            throw error
        } catch {
            throw ShipError.from(error, location: location)
        }
    }

    /// Builds a journal file at `path` from the rows shipped of journal `id` (or of the
    /// only journal the database holds), as it was at its last ship: every reading command
    /// and API reads it as it reads the original.
    ///
    /// - Returns: The journal's id.
    /// - Throws: ``ShipError`` for an unknown journal, a database with several and no `id`,
    ///   or a journal whose rows were never shipped; `JournalError` for rows that do not
    ///   make a journal (see `JournalRebuilder`).
    public func readBack(journal id: UUID?, into path: String) async throws -> UUID {
        let shipped = try await shippedJournal(id)
        try await readBack(shipped, into: path)
        return shipped.id
    }

    /// Builds a journal file at `path` from the rows of `shipped` (see
    /// ``shippedJournal(_:)``), streaming them: memory does not grow with the journal.
    ///
    /// - Throws: ``ShipError`` when the database fails; `JournalError` for rows that do not
    ///   make a journal (see `JournalRebuilder`).
    public func readBack(_ shipped: ShippedJournal, into path: String) async throws {
        do {
            let source = "journal \(shipped.id.uuidString.lowercased()) in \(location.description)"
            let rebuilder = try JournalRebuilder(creating: path, schemaVersion: shipped.schemaVersion, source: source)
            let rows = try await connection.query(
                "SELECT table_name, image FROM journal_rows WHERE journal_id = \(shipped.id) ORDER BY table_name, seq", logger: logger)
            for try await (table, image) in rows.decode((String, ByteBuffer).self) {
                try rebuilder.insert(Array(image.readableBytesView), into: table)
            }
            try rebuilder.finish(settledThrough: shipped.shippedSeq)
        } catch let error as JournalError {
            throw error
        } catch let error as ShipError {
            throw error
        } catch {
            throw ShipError.from(error, location: location)
        }
    }

    private struct Progress {
        var shipped: Int
        var eventsFinal: Int
        /// The journal schema version of its shipped rows (`nil`: not shipped).
        var schemaVersion: Int?
    }

    private func ship(
        _ reader: JournalReader, id: UUID, through: Int, writing: Bool, source: String, seqsPerBatch: Int
    ) async throws -> ShipReport {
        try await connection.query(
            "INSERT INTO journals (journal_id, source) VALUES (\(id), \(source)) ON CONFLICT (journal_id) DO NOTHING",
            logger: logger)
        let idText = id.uuidString.lowercased()
        var added = Dictionary(uniqueKeysWithValues: ShippedView.all.map { ($0.name, 0) })
        var batches = 0
        let start = try await progress(of: id, locking: false)
        var shipped = start.shipped
        if start.shipped > 0 && start.schemaVersion != reader.schemaVersion {
            // Its rows were shipped at another journal schema version: they are sent again,
            // all at once, at this one.
            try await transaction { connection in
                let progress = try await self.progress(of: id, locking: true)
                guard progress.shipped == shipped else { throw ShipError.shippedConcurrently(path: reader.path) }
                try await self.deleteRows(of: "journal_rows", id: id, on: connection)
                for table in JournalTable.all where table.seqColumn != nil {
                    try await self.copyRows(of: table, seqs: 1...shipped, from: reader, id: idText, on: connection)
                }
                try await connection.query(
                    "UPDATE journals SET schema_version = \(reader.schemaVersion) WHERE journal_id = \(id)", logger: self.logger)
            }
        }
        while shipped < through {
            let end = shipped + min(seqsPerBatch, through - shipped)
            try await transaction { connection in
                let progress = try await self.progress(of: id, locking: true)
                guard progress.shipped == shipped else { throw ShipError.shippedConcurrently(path: reader.path) }
                let range: [JournalValue] = [.integer(shipped), .integer(end)]
                let eventsFrom = max(shipped, progress.eventsFinal)
                let calls = try reader.deliveryHistoryExtent()
                for view in ShippedView.appendOnly {
                    // delivery_history by the runs of calls that can hold the batch's seqs
                    // (a condition on the view's seq alone would unpack every run).
                    let source = view.name == ShippedView.deliveryHistory.name
                        ? "(\(try reader.historyQuery(of: view.name, seqs: shipped + 1..<end + 1, extent: calls)))"
                        : view.name
                    added[view.name, default: 0] += try await self.copy(
                        view, from: reader, source: source, where: "seq > ? AND seq <= ?", range, id: idText, on: connection)
                }
                added[ShippedView.eventHistory.name, default: 0] += try await self.copy(
                    .eventHistory, from: reader, where: "seq > ? AND seq <= ?",
                    [.integer(eventsFrom), .integer(end)], id: idText, on: connection)
                for table in JournalTable.all {
                    switch table.changes {
                    case .never:
                        try await self.copyRows(of: table, seqs: shipped + 1...end, from: reader, id: idText, on: connection)
                    case .untilRaiseEnds where eventsFrom < end:
                        try await self.copyRows(of: table, seqs: eventsFrom + 1...end, from: reader, id: idText, on: connection)
                    case .untilRaiseEnds, .anytime:
                        break
                    }
                }
                // Event rows are final up to the first one that may still change.
                var eventsFinal = progress.eventsFinal
                if eventsFinal >= shipped {
                    eventsFinal = try self.firstOpenEvent(in: reader, after: shipped, through: end, writing: writing).map { $0 - 1 } ?? end
                }
                try await connection.query(
                    "UPDATE journals SET shipped_seq = \(end), events_final_seq = \(eventsFinal), schema_version = \(reader.schemaVersion), source = \(source), last_shipped_at = now() WHERE journal_id = \(id)",
                    logger: self.logger)
            }
            batches += 1
            shipped = end
        }
        // Rows that may have changed since they were shipped: raises that were unfinished,
        // and the few rows of sessions and registrations.
        try await transaction { connection in
            let progress = try await self.progress(of: id, locking: true)
            if progress.eventsFinal < progress.shipped {
                let replaced = try await self.deleteRows(
                    of: ShippedView.eventHistory.name, id: id, aboveSeq: progress.eventsFinal, on: connection)
                added[ShippedView.eventHistory.name, default: 0] -= replaced
                added[ShippedView.eventHistory.name, default: 0] += try await self.copy(
                    .eventHistory, from: reader, where: "seq > ? AND seq <= ?",
                    [.integer(progress.eventsFinal), .integer(progress.shipped)], id: idText, on: connection)
                for table in JournalTable.all {
                    guard case .untilRaiseEnds = table.changes else { continue }
                    try await self.deleteRows(of: "journal_rows", id: id, tableName: table.name, aboveSeq: progress.eventsFinal, on: connection)
                    try await self.copyRows(
                        of: table, seqs: progress.eventsFinal + 1...progress.shipped, from: reader, id: idText, on: connection)
                }
                let eventsFinal = try self.firstOpenEvent(
                    in: reader, after: progress.eventsFinal, through: progress.shipped, writing: writing
                ).map { $0 - 1 } ?? progress.shipped
                try await connection.query(
                    "UPDATE journals SET events_final_seq = \(eventsFinal) WHERE journal_id = \(id)", logger: self.logger)
            }
            for view in ShippedView.refreshed {
                let removed = try await self.deleteRows(of: view.name, id: id, on: connection)
                let key = view.columns[0]
                let copied = try await self.copy(
                    view, from: reader, where: "\(key) <= ?", [.integer(progress.shipped)], id: idText, on: connection)
                added[view.name, default: 0] += copied - removed
            }
            for table in JournalTable.all where table.changes == .anytime {
                try await self.deleteRows(of: "journal_rows", id: id, tableName: table.name, on: connection)
                try await self.copyRows(of: table, seqs: nil, from: reader, id: idText, on: connection)
            }
            try await connection.query(
                "UPDATE journals SET schema_version = \(reader.schemaVersion) WHERE journal_id = \(id)", logger: self.logger)
        }
        batches += 1
        return ShipReport(
            journalID: id, path: reader.path, fromSeq: start.shipped, throughSeq: max(start.shipped, through), addedRows: added, batches: batches)
    }

    /// The lowest seq in (after, through] of a raise whose row may still change: one of the
    /// session being written that has not ended yet. None when no writer has the journal.
    private nonisolated func firstOpenEvent(in reader: JournalReader, after: Int, through: Int, writing: Bool) throws -> Int? {
        guard writing else { return nil }
        return try reader.rows(
            """
            SELECT min(seq) FROM event_history WHERE seq > ? AND seq <= ? AND result = 'lost'
              AND session_id = (SELECT max(session_id) FROM sessions)
            """, [.integer(after), .integer(through)]
        ).first?.first?.int
    }

    private func progress(of id: UUID, locking: Bool) async throws -> Progress {
        let query: PostgresQuery = locking
            ? "SELECT shipped_seq, events_final_seq, schema_version FROM journals WHERE journal_id = \(id) FOR UPDATE"
            : "SELECT shipped_seq, events_final_seq, schema_version FROM journals WHERE journal_id = \(id)"
        let rows = try await connection.query(query, logger: logger).decode((Int, Int, Int?).self)
        for try await (shipped, eventsFinal, schemaVersion) in rows {
            return Progress(shipped: shipped, eventsFinal: eventsFinal, schemaVersion: schemaVersion)
        }
        return Progress(shipped: 0, eventsFinal: 0, schemaVersion: nil)
    }

    private func transaction(_ body: (PostgresConnection) async throws -> Void) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await body(connection)
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Deletes the journal's rows of `table` (only those of journal table `tableName` in
    /// `journal_rows`, with a seq above `seq`, if given); returns how many.
    @discardableResult
    private func deleteRows(
        of table: String, id: UUID, tableName: String? = nil, aboveSeq seq: Int? = nil, on connection: PostgresConnection
    ) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(id)
        var condition = "journal_id = $1"
        if let tableName {
            binds.append(tableName)
            condition += " AND table_name = $\(binds.count)"
        }
        if let seq {
            binds.append(seq)
            condition += " AND seq > $\(binds.count)"
        }
        let query = PostgresQuery(
            unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE \(condition) RETURNING 1) SELECT count(*) FROM gone", binds: binds)
        return try await connection.query(query, logger: logger).collect().first?.decode(Int.self) ?? 0
    }

    /// Copies the rows of `view` that match `condition` into its table; returns how many.
    private func copy(
        _ view: ShippedView, from reader: JournalReader, source: String? = nil, where condition: String,
        _ arguments: [JournalValue], id: String, on connection: PostgresConnection
    ) async throws -> Int {
        let cursor = try reader.cursor("\(view.select(from: source ?? view.name)) WHERE \(condition)", arguments)
        guard cursor.hasRow else { return 0 }
        var count = 0
        try await connection.copyFrom(table: view.name, columns: ["journal_id"] + view.columns, logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            while cursor.hasRow {
                CopyText.append(cursor.row, columns: view.columns.count, journalID: id, to: &buffer)
                count += 1
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
                try cursor.advance()
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        return count
    }

    /// Copies the rows of a journal table (those with a seq in `seqs`) into `journal_rows`.
    private func copyRows(
        of table: JournalTable, seqs: ClosedRange<Int>?, from reader: JournalReader, id: String, on connection: PostgresConnection
    ) async throws {
        let rows = try reader.tableRows(of: table, seqs: seqs)
        guard rows.hasRow else { return }
        try await connection.copyFrom(table: "journal_rows", columns: ["journal_id", "table_name", "seq", "image"], logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            while rows.hasRow {
                CopyText.appendImage(rows.image, seq: rows.seq, table: table.name, journalID: id, to: &buffer)
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
                try rows.advance()
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }
}
#endif
