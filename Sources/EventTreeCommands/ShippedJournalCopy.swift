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
        let path = directory + "/shipped.eventtree"
        let outcome = AsyncBridge.wait { () async throws -> Result<UUID, any Error> in
            let fleet = try await FleetDatabase.connectForReading(to: database)
            do {
                let id = try await fleet.readBack(journal: journalID, into: path)
                try await fleet.close()
                return .success(id)
            } catch {
                try? await fleet.close()
                return .failure(error)
            }
        }
        let result: Result<UUID, any Error>
        switch outcome {
        case .success(let readBack): result = readBack
        case .failure(let error): result = .failure(error)
        }
        switch result {
        case .success(let id):
            // Named after the journal: the report and the trace show the file's name.
            let named = directory + "/" + id.uuidString.lowercased() + ".eventtree"
            try FileManager.default.moveItem(atPath: path, toPath: named)
            return named
        case .failure(let error as ShipError):
            throw CommandFailure(message: error.description)
        case .failure(let error):
            throw error
        }
        #else
        throw CommandFailure(message: """
            --from reads a fleet database, which needs an eventtree built with PostgreSQL support: \
            swift build -c release --traits PostgreSQL
            """)
        #endif
    }
}
