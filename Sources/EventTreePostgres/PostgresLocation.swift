#if PostgreSQL
import Foundation
import PostgresNIO

/// Where a fleet database is: a `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL.
///
/// The password may also come from the `PGPASSWORD` environment variable, as for `psql`.
/// Connections are plain TCP (`sslmode=disable`): ship over a trusted network or a tunnel.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The server's host name or address.
    public let host: String
    /// The server's port (5432 unless given).
    public let port: Int
    /// The user to connect as.
    public let user: String
    /// The password, if any.
    let password: String?
    /// The database.
    public let database: String

    /// Parses a `postgresql://` (or `postgres://`) URL.
    ///
    /// - Throws: ``ShipError/badLocation(_:reason:)`` when the text is not such a URL.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ShipError) {
        guard let url = URLComponents(string: text), url.scheme == "postgresql" || url.scheme == "postgres" else {
            throw .badLocation(text, reason: "expected postgresql://USER@HOST:PORT/DATABASE")
        }
        guard let host = url.host, !host.isEmpty else { throw .badLocation(text, reason: "it names no host") }
        guard let user = url.user, !user.isEmpty else { throw .badLocation(text, reason: "it names no user (USER@HOST)") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw .badLocation(text, reason: "it names no database (…/DATABASE)")
        }
        if let port = url.port, !(1...65535).contains(port) { throw .badLocation(text, reason: "port \(port) is out of range") }
        self.host = host
        self.port = url.port ?? 5432
        self.user = user
        self.password = url.password ?? environment["PGPASSWORD"]
        self.database = database
    }

    /// The URL without its password.
    public var description: String { "postgresql://\(user)@\(host):\(port)/\(database)" }

    var configuration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
}
#endif
