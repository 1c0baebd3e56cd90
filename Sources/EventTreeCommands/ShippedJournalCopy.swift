import Foundation
#if PostgreSQL
import EventTreePostgres
#endif

/// A private journal file built from a journal shipped to a fleet database, so that a
/// reading command reads it exactly as it reads the original file.
enum ShippedJournalCopy {
    /// Builds the copy of journal `id` (or of the only one) of the database at `location`
    /// in `directory`; returns its path.
    static func build(from location: String, journal id: String?, in directory: String) throws -> String {
        #if PostgreSQL
        let database: PostgresLocation
        do {
            database = try PostgresLocation(location)
        } catch {
            throw CommandFailure(message: error.description)
        }
        let journalID = try id.map { text in
            guard let uuid = UUID(uuidString: text) else {
                throw CommandFailure(message: "'\(text)' is not a journal id; journal ids are UUIDs (SELECT journal_id FROM journals)")
            }
            return uuid
        }
        let path = directory + "/" + (journalID?.uuidString.lowercased() ?? "shipped") + ".eventtree"
        let outcome = AsyncBridge.wait { () async throws -> (any Error)? in
            let fleet = try await FleetDatabase.connectForReading(to: database)
            do {
                _ = try await fleet.readBack(journal: journalID, into: path)
            } catch {
                try? await fleet.close()
                return error
            }
            try await fleet.close()
            return nil
        }
        let failure: (any Error)?
        switch outcome {
        case .success(let error): failure = error
        case .failure(let error): failure = error
        }
        if let error = failure as? ShipError { throw CommandFailure(message: error.description) }
        if let failure { throw failure }
        return path
        #else
        throw CommandFailure(message: """
            --from reads a fleet database, which needs an eventtree built with PostgreSQL support: \
            swift build -c release --traits PostgreSQL
            """)
        #endif
    }
}
