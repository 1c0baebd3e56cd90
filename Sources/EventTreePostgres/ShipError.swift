#if PostgreSQL
import EventTreeJournal
import Foundation
import PostgresNIO

/// Why a journal could not be shipped, or read back. Nothing is half-shipped: every batch
/// is one transaction, and the next ship resumes after the last one that committed.
public enum ShipError: Error, Equatable, CustomStringConvertible {
    /// The database location is not a `postgresql://` URL.
    case badLocation(String, reason: String)
    /// The server could not be reached.
    case unreachable(location: String, detail: String)
    /// The server refused a connection or a statement (wrong credentials, no such database).
    case refused(location: String, message: String)
    /// The database was set up by a newer eventtree.
    case newerSchema(location: String, found: Int, supported: Int)
    /// A migration recorded in the database differs from this eventtree's.
    case editedMigration(location: String, version: Int)
    /// The journal fails `eventtree verify`: its rows are not shipped.
    case notIntact(path: String, verdict: String)
    /// Another ship of the same journal committed a batch meanwhile.
    case shippedConcurrently(path: String)
    /// The database holds no shipped journal (read back).
    case noJournals(location: String)
    /// The database holds several journals and none was named (read back).
    case severalJournals(location: String, count: Int)
    /// The database holds no journal with this id (read back).
    case noSuchJournal(location: String, id: UUID)
    /// The journal is in the database, but none of its rows is (its first ship stopped early).
    case rowsNotShipped(location: String, id: UUID)
    /// The database's fleet schema is older than this eventtree's (read back changes nothing).
    case olderSchema(location: String, found: Int, current: Int)

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .badLocation(let text, let reason):
            "'\(text)' is not a PostgreSQL location: \(reason)"
        case .unreachable(let location, let detail):
            "cannot reach \(location) (\(detail)); is the server running and listening on that address?"
        case .refused(let location, let message):
            "\(location) refused: \(message)"
        case .newerSchema(let location, let found, let supported):
            "\(location) has fleet schema version \(found); this eventtree supports up to version \(supported): use a newer eventtree"
        case .editedMigration(let location, let version):
            "\(location) records fleet migration \(version) with a different checksum than this eventtree's; it was edited, so nothing is shipped into it"
        case .notIntact(let path, let verdict):
            "\(path) fails verification, so it is not shipped: \(verdict)"
        case .shippedConcurrently(let path):
            "\(path) was being shipped by another eventtree at the same time; run ship again to resume"
        case .noJournals(let location):
            "\(location) holds no shipped journal: ship one with 'eventtree ship JOURNAL --to \(location)'"
        case .severalJournals(let location, let count):
            "\(location) holds \(count) journals: name one with --journal ID (SELECT journal_id, source FROM journals)"
        case .noSuchJournal(let location, let id):
            "\(location) holds no journal \(id.uuidString.lowercased()) (SELECT journal_id, source FROM journals lists them)"
        case .rowsNotShipped(let location, let id):
            "journal \(id.uuidString.lowercased()) in \(location) has no rows shipped yet: ship it again with 'eventtree ship JOURNAL --to \(location)'"
        case .olderSchema(let location, let found, let current):
            "\(location) has fleet schema version \(found), older than this eventtree's \(current): ship to it with this eventtree first (it upgrades the schema)"
        }
    }

    /// `error` as a ship error of `location`: a server's own message, or why it is unreachable.
    static func from(_ error: any Error, location: PostgresLocation) -> ShipError {
        if let error = error as? ShipError { return error }
        if let error = error as? PostgresTransactionError,
            let cause = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError {
            return from(cause, location: location)
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return .refused(location: location.description, message: message)
            }
            if let reason = tlsReason(error.underlying) {
                return .refused(location: location.description, message: reason)
            }
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                return .unreachable(location: location.description, detail: reason(error.underlying) ?? "\(error.code)")
            case .sslUnsupported:
                return .refused(location: location.description, message: "it does not offer TLS, which sslmode asks for")
            case .authMechanismRequiresPassword:
                return .refused(location: location.description, message: "it asks for a password: give it in the URL or PGPASSWORD")
            default:
                return .refused(location: location.description, message: "\(error.code)")
            }
        }
        return .unreachable(location: location.description, detail: reason(error) ?? "\(error)")
    }

    /// Why TLS failed, if it did.
    private static func tlsReason(_ error: (any Error)?) -> String? {
        switch error {
        case let error as NIOConnectionError:
            return error.connectionErrors.lazy.compactMap { tlsReason($0.error) }.first
        case let error as NIOSSLError:
            let text = "\(error)"
            if text.contains("CERTIFICATE_VERIFY_FAILED") { return "TLS: its certificate is not trusted (give its authority as sslrootcert)" }
            return "TLS: \(text)"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "TLS: its certificate is not for this host name"
        default:
            return nil
        }
    }

    /// Why a connection failed, in the system's words ("Connection refused").
    private static func reason(_ error: (any Error)?) -> String? {
        switch error {
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return reason(failure.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "its host name has no address" }
            return nil
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case .some(let error):
            return "\(error)"
        case nil:
            return nil
        }
    }
}
#endif
