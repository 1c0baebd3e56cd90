#if PostgreSQL
import EventTreeJournal
import Foundation
import Logging
import PostgresNIO

/// The fleet database's schema: this target's numbered `Migrations/*.sql`, applied in
/// order, each in its own transaction, and recorded with their checksums in
/// `eventtree_migrations` (the journal's discipline, for PostgreSQL).
enum FleetSchema {
    /// The fleet schema version this eventtree creates and ships into.
    static var latestVersion: Int { Migration.own.last?.version ?? 0 }

    /// The advisory lock that serializes eventtree processes setting up one database.
    private static let lockKey = 0x4554_7265

    /// Brings the database to ``latestVersion``; refuses a newer or edited one untouched.
    static func migrate(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            var applied: [Int: String] = [:]
            let exists = try await connection.query(
                "SELECT to_regclass('eventtree_migrations') IS NOT NULL", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
            if exists {
                let rows = try await connection.query("SELECT version, checksum FROM eventtree_migrations", logger: logger)
                for try await (version, checksum) in rows.decode((Int, String).self) { applied[version] = checksum }
            }
            if let newest = applied.keys.max(), newest > latestVersion {
                throw ShipError.newerSchema(location: location.description, found: newest, supported: latestVersion)
            }
            for migration in Migration.own {
                if let checksum = applied[migration.version] {
                    guard checksum == migration.checksum else {
                        throw ShipError.editedMigration(location: location.description, version: migration.version)
                    }
                    continue
                }
                for statement in statements(of: migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO eventtree_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(migration.checksum))",
                    logger: logger)
            }
        }
    }

    /// Checks, changing nothing, that the database has this eventtree's fleet schema.
    static func check(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        let exists = try await connection.query(
            "SELECT to_regclass('eventtree_migrations') IS NOT NULL", logger: logger
        ).collect().first?.decode(Bool.self) ?? false
        guard exists else { throw ShipError.noJournals(location: location.description) }
        var applied: [Int: String] = [:]
        let rows = try await connection.query("SELECT version, checksum FROM eventtree_migrations", logger: logger)
        for try await (version, checksum) in rows.decode((Int, String).self) { applied[version] = checksum }
        let newest = applied.keys.max() ?? 0
        if newest > latestVersion {
            throw ShipError.newerSchema(location: location.description, found: newest, supported: latestVersion)
        }
        for migration in Migration.own {
            guard let checksum = applied[migration.version] else {
                throw ShipError.olderSchema(location: location.description, found: newest, current: latestVersion)
            }
            guard checksum == migration.checksum else {
                throw ShipError.editedMigration(location: location.description, version: migration.version)
            }
        }
    }

    /// The statements of a migration file (the extended protocol runs one at a time): each
    /// ends with a `;` at the end of a line; comment lines are dropped.
    static func statements(of sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("--") || trimmed.isEmpty { continue }
            current += line + "\n"
            if trimmed.hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        return statements
    }
}
#endif
