import CEventTreeSQLite
import Foundation

/// Brings a journal's schema to the version this binary carries, using only the embedded
/// migrations: a new journal is created through the very same files.
enum Migrator {
    /// `PRAGMA application_id` of every journal: "ETre".
    static let applicationID = 0x4554_7265

    /// The schema version this binary writes and reads.
    static var latestVersion: Int { Migration.all.last?.version ?? 0 }

    /// What a database says about itself before anything is changed.
    struct Identity {
        let applicationID: Int
        let version: Int
        let objects: Int
    }

    static func identify(_ db: borrowing Connection, path: String) throws(JournalError) -> Identity {
        do {
            let applicationID = try db.integer("PRAGMA application_id") ?? 0
            let version = try db.integer("PRAGMA user_version") ?? 0
            let objects = try db.integer("SELECT count(*) FROM sqlite_master") ?? 0
            return Identity(applicationID: applicationID, version: version, objects: objects)
        } catch {
            throw JournalError(error, path: path)
        }
    }

    /// Checks that `identity`, of `db`, describes a journal this binary can read (or an
    /// empty database when `allowEmpty`). Changes nothing.
    static func validate(_ identity: Identity, of db: borrowing Connection, path: String, allowEmpty: Bool) throws(JournalError) {
        if identity.applicationID == 0 && identity.version == 0 && identity.objects == 0 {
            if allowEmpty { return }
            // Created, but its first migration never committed (a crash during creation).
            throw .empty(path: path)
        }
        guard identity.applicationID == applicationID else { throw .notAJournal(path: path) }
        guard identity.version <= latestVersion else {
            // A journal whose first migration is not ours is no newer journal: it was made by
            // a build from before the schema was squashed into one migration.
            if let first = try? db.prepare("SELECT name, checksum FROM j_migrations WHERE version = 1"), (try? first.step()) == true,
                let ours = Migration.all.first, first.text(1) != ours.checksum
            {
                throw .editedMigration(path: path, version: 1, name: first.text(0) ?? "?")
            }
            throw .newerVersion(path: path, found: identity.version, supported: latestVersion)
        }
    }

    /// Checks that the migrations recorded in the journal are the ones this binary carries.
    static func verifyApplied(_ db: borrowing Connection, path: String) throws(JournalError) {
        do {
            let statement = try db.prepare("SELECT version, name, checksum FROM j_migrations ORDER BY version")
            while try statement.step() {
                let version = statement.int(0)
                guard let migration = Migration.all.first(where: { $0.version == version }),
                    migration.checksum == statement.text(2)
                else {
                    throw JournalError.editedMigration(path: path, version: version, name: statement.text(1) ?? "?")
                }
            }
        } catch let error as JournalError {
            throw error
        } catch let error as SQLiteError {
            throw JournalError(error, path: path)
        } catch {
            throw .corrupt(path: path, detail: "\(error)")
        }
    }

    /// Applies every migration newer than `from` (up to `through`), each in its own transaction.
    static func migrate(
        _ db: borrowing Connection, from version: Int, through last: Int = Int.max, path: String
    ) throws(JournalError) {
        for migration in Migration.all where migration.version > version && migration.version <= last {
            do {
                try db.execute("BEGIN IMMEDIATE")
                try db.execute(migration.sql)
                let record = try db.prepare(
                    "INSERT INTO j_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)")
                try record.bind(migration.version, at: 1)
                try record.bind(migration.name, at: 2)
                try record.bind(migration.checksum, at: 3)
                try record.bind(Date().timeIntervalSince1970, at: 4)
                try record.run()
                try db.execute("PRAGMA application_id = \(applicationID)")
                try db.execute("PRAGMA user_version = \(migration.version)")
                try db.execute("COMMIT")
            } catch {
                if db.isInTransaction { try? db.execute("ROLLBACK") }
                throw JournalError(error, path: path)
            }
        }
    }
}
