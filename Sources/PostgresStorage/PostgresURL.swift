import Foundation
import PlacesCore

/// Where the shared state lives: a libpq-style `postgres://user:password@host:port/database?sslmode=require` URL.
///
/// Only what `places` uses is read: user, password, host, port, database, and the libpq parameters `sslmode`,
/// `sslrootcert` and `connect_timeout` (any other parameter is refused, so a typo does not silently weaken TLS).
/// The URL prints with its password replaced by `[REDACTED]`, so it can go to logs, errors and `places config show`.
///
/// ```swift
/// let url = try PostgresURL(parsing: "postgres://places:secret@db.internal:5432/places?sslmode=verify-full")
/// print(url)   // postgres://places:[REDACTED]@db.internal:5432/places?sslmode=verify-full
/// ```
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// libpq's `sslmode`, with its meaning: `prefer` (the default) uses TLS when the server offers it;
    /// `require` refuses a server without TLS; `verify-ca` also checks the certificate chain; `verify-full`
    /// also checks that the certificate names the host.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// A PEM file of the certificate authorities to trust for `verify-ca`/`verify-full`; the system's roots when `nil`.
    public var sslRootCertificate: String?
    /// libpq's `connect_timeout`, in seconds.
    public var connectTimeout: Double?

    public init(parsing text: String) throws(PostgresURLError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw PostgresURLError(url: trimmed, reason: "not a URL; expected postgres://user@host:5432/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresURLError(url: trimmed, reason: "the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError(url: trimmed, reason: "no host; expected postgres://user@host:5432/database")
        }
        self.host = host
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw PostgresURLError(url: trimmed, reason: "the port must be 1-65535") }
        user = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? user
        sslMode = .prefer
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw PostgresURLError(url: trimmed, reason: "sslmode '\(value)' is not one of "
                        + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                sslMode = mode
            case "sslrootcert":
                sslRootCertificate = value
            case "connect_timeout":
                guard let seconds = Double(value), seconds > 0, seconds.isFinite else {
                    throw PostgresURLError(url: trimmed, reason: "connect_timeout must be a positive number of seconds")
                }
                connectTimeout = seconds
            default:
                throw PostgresURLError(url: trimmed, reason: "unknown parameter '\(item.name)'; places reads sslmode, sslrootcert and connect_timeout")
            }
        }
    }

    /// `host:port`, for messages that must not carry credentials.
    public var endpoint: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL with the password shown as `[REDACTED]`.
    public var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.host = host
        components.port = port
        components.user = user
        if password != nil { components.percentEncodedPassword = "PASSWORD" }
        components.path = "/" + database
        var items: [URLQueryItem] = []
        if sslMode != .prefer { items.append(URLQueryItem(name: "sslmode", value: sslMode.rawValue)) }
        if let sslRootCertificate { items.append(URLQueryItem(name: "sslrootcert", value: sslRootCertificate)) }
        if let connectTimeout { items.append(URLQueryItem(name: "connect_timeout", value: String(format: "%g", connectTimeout))) }
        components.queryItems = items.isEmpty ? nil : items
        // The placeholder goes in after URLComponents, which would percent-encode its brackets.
        let text = components.string?.replacingOccurrences(of: ":PASSWORD@", with: ":\(Redaction.placeholder)@")
        return text ?? "postgres://\(endpoint)/\(database)"
    }

    /// `text` with any password replaced, whether or not the URL is valid (``Redaction/urlPasswords(_:)``).
    public static func redacting(_ text: String) -> String { Redaction.urlPasswords(text) }
}

/// A storage URL that cannot be used, with the password already removed from it.
public struct PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: String
    public var reason: String

    public init(url: String, reason: String) {
        self.url = PostgresURL.redacting(url)
        self.reason = reason
    }

    public var description: String { "invalid storage URL '\(url)': \(reason)" }
}
