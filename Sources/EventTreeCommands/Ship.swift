#if PostgreSQL
import ArgumentParser
import EventTreeJournal
import EventTreePostgres
import Foundation

/// `eventtree ship JOURNAL… --to postgresql://…`: copies journals into a fleet database
/// (built with the PostgreSQL trait only).
struct Ship: TerminalCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ship journals into a PostgreSQL database, where every view of every journal is one table.",
        discussion: """
            The database gets tables named and shaped like the journal's views (delivery_history, \
            event_history, tree_changes, handler_registrations, sessions, journal_trouble) with a \
            journal_id column first, so a query written for one journal runs across all of them. \
            Shipping is incremental and idempotent: each batch of seqs is one transaction with the \
            journal's progress, so shipping again adds only what was recorded since, and an \
            interrupted ship resumes without duplicates or gaps. A journal being written can be \
            shipped; a journal that fails 'eventtree verify' is not.
            """)

    @Argument(help: "The journal files to ship.", completion: .file())
    var journals: [String] = []

    @Option(name: .customLong("to"), help: "The database: postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require|verify-full[&sslrootcert=PATH]] (or the password in PGPASSWORD).")
    var destination: String

    @Option(help: "Seqs per transaction.")
    var batch: Int = 100_000

    func validate() throws {
        guard !journals.isEmpty else { throw ValidationError("name at least one journal to ship") }
        guard batch >= 1 else { throw ValidationError("--batch must be at least 1") }
    }

    mutating func run(on terminal: CommandTerminal) throws {
        let location: PostgresLocation
        do {
            location = try PostgresLocation(destination)
        } catch {
            throw CommandFailure(message: error.description)
        }
        let (journals, batch) = (self.journals, self.batch)
        let outcome = AsyncBridge.wait { () async throws -> ([ShipReport], (any Error)?) in
            let fleet = try await FleetDatabase.connect(to: location)
            var reports: [ShipReport] = []
            do {
                for journal in journals { reports.append(try await fleet.ship(journalAt: journal, seqsPerBatch: batch)) }
            } catch {
                try? await fleet.close()
                return (reports, error)
            }
            try await fleet.close()
            return (reports, nil)
        }
        switch outcome {
        case .success(let (reports, failure)):
            for report in reports { terminal.write(report.line + "\n") }
            if let failure { throw Self.failure(failure) }
        case .failure(let error):
            throw Self.failure(error)
        }
    }

    private static func failure(_ error: any Error) -> any Error {
        if let error = error as? ShipError { return CommandFailure(message: error.description) }
        return error
    }
}
#endif
