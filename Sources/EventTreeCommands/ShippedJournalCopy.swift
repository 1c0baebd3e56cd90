#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EventTreeJournal
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
                if let cache, let journalFolder = privateFolder(cache + "/" + name) {
                    // What the copy holds, and the schema this tool reads it at (the copy is
                    // migrated to it as it is built).
                    let ship = CopyName(
                        shippedSeq: shipped.shippedSeq, eventsFinalSeq: shipped.eventsFinalSeq,
                        schemaVersion: shipped.schemaVersion, readAt: Journal.schemaVersion)
                    let folder = journalFolder + "/" + ship.text
                    if !FileManager.default.fileExists(atPath: folder + "/" + name + ".eventtree") {
                        let partial = journalFolder + "/.partial-\(UUID().uuidString)"
                        try FileManager.default.createDirectory(
                            atPath: partial, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                        do {
                            try await fleet.readBack(shipped, into: partial + "/" + name + ".eventtree")
                        } catch {
                            try? FileManager.default.removeItem(atPath: partial)
                            throw error
                        }
                        keep(partial, as: ship, in: journalFolder)
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
    /// the password), created for this user only; `nil` when it cannot be, or when it (or the
    /// cache folder above it) is not a folder of this user's that only they may open (the
    /// copy is then built for the command alone).
    static func cacheFolder(for location: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["EVENTTREE_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/eventtree" }
            ?? environment["HOME"].map { $0 + "/.cache/eventtree" }
        guard let base, (try? FileManager.default.createDirectory(
            atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])) != nil,
            let fleet = privateFolder(base + "/fleet")
        else { return nil }
        // FNV-1a of the location: a name per database, without its text in the file system.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in location.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return privateFolder(fleet + "/" + String(hash, radix: 16))
    }

    /// `path` as a folder of this user's that no one else may open: made so if it is not
    /// there; `nil` when it is something else (a link, another user's, open to others).
    private static func privateFolder(_ path: String) -> String? {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(),
            status.st_mode & 0o077 == 0
        else { return nil }
        return path
    }

    /// What a kept copy holds, as the name of its folder: `<shipped>-<final>-<schema>-<read at>`.
    struct CopyName: Equatable {
        let shippedSeq: Int
        let eventsFinalSeq: Int
        let schemaVersion: Int
        let readAt: Int

        var text: String { "\(shippedSeq)-\(eventsFinalSeq)-\(schemaVersion)-\(readAt)" }

        init(shippedSeq: Int, eventsFinalSeq: Int, schemaVersion: Int, readAt: Int) {
            self.shippedSeq = shippedSeq
            self.eventsFinalSeq = eventsFinalSeq
            self.schemaVersion = schemaVersion
            self.readAt = readAt
        }

        init?(_ text: String) {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 4 else { return nil }
            self.init(shippedSeq: parts[0], eventsFinalSeq: parts[1], schemaVersion: parts[2], readAt: parts[3])
        }

        /// Whether a copy of this ship is older than one of `other`'s.
        func isOlder(than other: CopyName) -> Bool {
            (shippedSeq, eventsFinalSeq) < (other.shippedSeq, other.eventsFinalSeq)
                || ((shippedSeq, eventsFinalSeq) == (other.shippedSeq, other.eventsFinalSeq) && self != other)
        }
    }

    /// Puts the copy built in `partial` in its place, and removes the copies of the
    /// journal's earlier ships (a later ship's copy, built meanwhile by another command, is
    /// kept), and what builds that never finished left behind over an hour ago. Another
    /// command that built the same copy first wins.
    private static func keep(_ partial: String, as ship: CopyName, in journal: String) {
        if rename(partial, journal + "/" + ship.text) != 0 { try? FileManager.default.removeItem(atPath: partial) }
        let hourAgo = Date().addingTimeInterval(-3_600)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? [] {
            let path = journal + "/" + entry
            if entry.hasPrefix(".partial-") {
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
                if let modified, modified < hourAgo { try? FileManager.default.removeItem(atPath: path) }
            } else if let other = CopyName(entry), other.isOlder(than: ship) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// Removes the kept copy at `path` (one a command could not read: damaged, or of a
    /// schema this tool does not read), so that the next command builds it again.
    static func forget(_ path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        guard CopyName((folder as NSString).lastPathComponent) != nil else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
