import Foundation
import PlacesCore

/// The `[storage]` section and `PLACES_DATABASE_URL`: where the lookup cache, the budget ledger and the spots live.
///
/// Without a URL they are SQLite files under `$PLACES_HOME`, for one user on one machine. With
/// `PLACES_DATABASE_URL=postgres://…` (or `url = "postgres://…"` here; the environment wins) they live in PostgreSQL,
/// shared by every `places serve` instance and CLI that points at it. The local index stays a local file either way.
///
/// ```toml
/// [storage]
/// url = "postgres://places@db.internal:5432/places?sslmode=verify-full"
/// pool_size = 10      # connections per process
/// timeout = "5s"      # how long a request waits for PostgreSQL before "storage unavailable"
/// ```
public struct StorageSettings: Sendable, Hashable {
    public static let environmentVariable = "PLACES_DATABASE_URL"
    public static let keys = ["url", "pool_size", "timeout"]

    /// Where the URL came from, for `config show` and errors.
    public enum Source: String, Sendable, Hashable {
        case environment = "PLACES_DATABASE_URL"
        case file = "config.toml [storage] url"
    }

    /// The PostgreSQL URL, or `nil` for the SQLite files.
    public var url: String?
    public var source: Source?
    /// Connections each process opens at most.
    public var poolSize: Int = 10
    /// How long a request waits for PostgreSQL; `nil` leaves it to the URL's `connect_timeout` (5 s without one).
    public var timeout: TimeInterval?

    public init() {}

    /// Reads `[storage]` from the parsed file, then lets `PLACES_DATABASE_URL` override the URL.
    public init(root: [String: ConfigValue], environment: [String: String]) throws(InputError) {
        self.init()
        if let value = root["storage"] {
            guard let section = value.table else { throw InputError("config 'storage' must be a [storage] section, not a single value") }
            try ConfigNames.requireKnown(section, known: Self.keys, in: "config [storage]")
            if let value = section["url"] {
                guard let text = value.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw InputError("config [storage] url must be a postgres:// URL in quotes, e.g. \"postgres://places@localhost:5432/places\"")
                }
                url = text
                source = .file
            }
            if let value = section["pool_size"] {
                guard let size = value.integer, (1...1_000).contains(size) else {
                    throw InputError("config [storage] pool_size must be a whole number of connections from 1 to 1000")
                }
                poolSize = size
            }
            if let value = section["timeout"] {
                guard let seconds = Self.seconds(value), seconds > 0, seconds <= 600 else {
                    throw InputError("config [storage] timeout must be a duration from 0.1s to 600s, e.g. \"5s\"")
                }
                timeout = seconds
            }
        }
        if let text = environment[Self.environmentVariable], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            url = text
            source = .environment
        }
    }

    /// The URL as it may be shown: its password replaced.
    public var redactedURL: String? { url.map(Redaction.urlPasswords) }

    private static func seconds(_ value: ConfigValue) -> TimeInterval? {
        if let number = value.number { return number }
        guard let text = value.string?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        if text.hasSuffix("ms"), let number = Double(text.dropLast(2)) { return number / 1000 }
        if text.hasSuffix("s"), let number = Double(text.dropLast()) { return number }
        return Double(text)
    }
}
