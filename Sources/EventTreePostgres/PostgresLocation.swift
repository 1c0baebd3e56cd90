#if PostgreSQL
import Foundation
import PostgresNIO

/// Where a fleet database is: a `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL,
/// optionally with `?sslmode=…` (and `&sslrootcert=PATH`).
///
/// The password may also come from the `PGPASSWORD` environment variable, as for `psql`.
/// `sslmode` says how the connection is encrypted, with libpq's words: `disable` (the
/// default: plain TCP, for a trusted network or a tunnel), `require` (TLS, the server's
/// certificate not checked), `verify-full` (TLS, the certificate checked against the system's
/// roots, or the `sslrootcert` file, and the host name).
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// How the connection is encrypted.
    public enum TLSMode: String, Sendable {
        /// Plain TCP.
        case disable
        /// TLS; the server's certificate is not verified.
        case require
        /// TLS; the server's certificate and host name are verified.
        case verifyFull = "verify-full"
    }

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
    /// How the connection is encrypted.
    public let tlsMode: TLSMode
    /// The certificate authorities that `verify-full` trusts instead of the system's.
    public let rootCertificates: String?

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
        var tlsMode = TLSMode.disable
        var rootCertificates: String?
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", let value?):
                guard let mode = TLSMode(rawValue: value) else {
                    throw .badLocation(text, reason: "sslmode takes disable, require or verify-full")
                }
                tlsMode = mode
            case ("sslrootcert", let value?) where !value.isEmpty:
                rootCertificates = value
            default:
                throw .badLocation(text, reason: "unknown parameter '\(item.name)' (it takes sslmode and sslrootcert)")
            }
        }
        self.tlsMode = tlsMode
        self.rootCertificates = rootCertificates
        self.host = host
        self.port = url.port ?? 5432
        self.user = user
        self.password = url.password ?? environment["PGPASSWORD"]
        self.database = database
    }

    /// The URL without its password.
    public var description: String {
        "postgresql://\(user)@\(host):\(port)/\(database)" + (tlsMode == .disable ? "" : "?sslmode=\(tlsMode.rawValue)")
    }

    /// The connection's configuration.
    ///
    /// - Throws: ``ShipError/badLocation(_:reason:)`` when `sslrootcert` cannot be read.
    func configuration() throws(ShipError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch tlsMode {
        case .disable:
            tls = .disable
        case .require, .verifyFull:
            var settings = TLSConfiguration.makeClientConfiguration()
            if tlsMode == .require {
                settings.certificateVerification = .none
            } else if let rootCertificates {
                guard FileManager.default.isReadableFile(atPath: rootCertificates) else {
                    throw .badLocation(description, reason: "cannot read sslrootcert \(rootCertificates)")
                }
                settings.trustRoots = .file(rootCertificates)
            }
            do {
                tls = .require(try NIOSSLContext(configuration: settings))
            } catch {
                throw .badLocation(description, reason: "its TLS settings are unusable: \(error)")
            }
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
#endif
