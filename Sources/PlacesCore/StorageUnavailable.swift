/// The shared database could not be reached (down, restarting, refusing connections, or no connection free
/// within the pool's timeout). The request that needed it fails with this one line; the pool keeps trying to
/// reconnect, so a later request succeeds once the server is back. It lives in the core model so the CLI (one line,
/// exit 1) and the server (`-ERR storage unavailable: …`) word it without knowing the database behind it.
public struct StorageUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// `host:port`, never the credentials.
    public var endpoint: String
    public var reason: String

    public init(endpoint: String, reason: String) {
        self.endpoint = endpoint
        self.reason = reason
    }

    public var description: String { "storage unavailable: PostgreSQL at \(endpoint): \(reason)" }
}
