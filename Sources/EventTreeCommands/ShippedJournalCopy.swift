#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if PostgreSQL
import EventTreePostgres
#endif

/// A private journal file built from a journal shipped to a fleet database, so that a
/// reading command reads it exactly as it reads the original file.
///
/// A point query (`sessions`, `explain`, `query`, `tail`, `topology`) reuses the copy of a
/// journal as it stood at its last ship: it is kept in the cache folder
/// (`$EVENTTREE_CACHE_DIR`, else `$XDG_CACHE_HOME/eventtree`, else `~/.cache/eventtree`),
/// under `fleet/`, named by the database, the journal's id, its schema version and its
/// shipped seq, and replaced when the journal ships again. The commands that read every
/// record (`verify`, `replay`, `export`, `report`) build a copy of their own each time, so
/// that what they say is what the database holds now.
enum ShippedJournalCopy {
    /// Builds the copy of journal `id` (or of the only one) of the database at `location`
    /// (or finds it in the cache, when `reusing`); `directory` is a private folder for a copy
    /// that is not kept. Returns its path.
    static func build(from location: String, journal id: String?, reusing: Bool, in directory: String) throws -> String {
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
        let cache = reusing ? cacheFolder(for: database.description) : nil
        let outcome = AsyncBridge.wait { () async throws -> Result<String, any Error> in
            let fleet = try await FleetDatabase.connectForReading(to: database)
            do {
                let shipped = try await fleet.shippedJournal(journalID)
                // Named after the journal: the report and the trace show the file's name.
                let name = shipped.id.uuidString.lowercased()
                let path: String
                if let cache {
                    let folder = cache + "/" + name + "/\(shipped.schemaVersion)-\(shipped.shippedSeq)"
                    if !FileManager.default.fileExists(atPath: folder + "/" + name + ".eventtree") {
                        let partial = cache + "/" + name + "/.partial-\(UUID().uuidString)"
                        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
                        do {
                            try await fleet.readBack(shipped, into: partial + "/" + name + ".eventtree")
                        } catch {
                            try? FileManager.default.removeItem(atPath: partial)
                            throw error
                        }
                        keep(partial, as: folder)
                    }
                    path = folder + "/" + name + ".eventtree"
                } else {
                    path = directory + "/" + name + ".eventtree"
                    try await fleet.readBack(shipped, into: path)
                }
                try await fleet.close()
                return .success(path)
            } catch {
                try? await fleet.close()
                return .failure(error)
            }
        }
        let result: Result<String, any Error>
        switch outcome {
        case .success(let readBack): result = readBack
        case .failure(let error): result = .failure(error)
        }
        switch result {
        case .success(let path):
            return path
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

    /// The folder of the copies read back from the database at `location` (its URL without
    /// the password), created for this user only; `nil` when it cannot be (the copy is then
    /// built for the command alone).
    static func cacheFolder(for location: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["EVENTTREE_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/eventtree" }
            ?? environment["HOME"].map { $0 + "/.cache/eventtree" }
        guard let base else { return nil }
        // FNV-1a of the location: a name per database, without its text in the file system.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in location.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let folder = base + "/fleet/" + String(hash, radix: 16)
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        return folder
    }

    /// Puts the copy built in `partial` in its place at `folder`, and removes the copies of
    /// the journal's earlier ships. Another command that built the same copy first wins.
    private static func keep(_ partial: String, as folder: String) {
        if rename(partial, folder) != 0 { try? FileManager.default.removeItem(atPath: partial) }
        let journal = (folder as NSString).deletingLastPathComponent
        let kept = (folder as NSString).lastPathComponent
        for copy in (try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? [] where copy != kept && !copy.hasPrefix(".") {
            try? FileManager.default.removeItem(atPath: journal + "/" + copy)
        }
    }
}
