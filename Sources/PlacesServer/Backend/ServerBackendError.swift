/// Why a command of the application could not answer, in the server's own terms; the executor renders
/// it as an `-ERR` line that names the command.
public enum ServerBackendError: Error, Equatable, Sendable {
    /// The part of the application the command needs failed to open when the server started (a locked
    /// or unwritable database, a broken config.toml); `reason` is that error in one line, so the client
    /// learns what to fix instead of being told the command does not exist.
    case notOpened(reason: String)
    /// The command ran and could not answer, for a reason the client must be able to tell from a miss
    /// (LOOKUP when every provider failed and nothing was cached). `reason` is already redacted.
    case failed(reason: String)
    /// A paid provider was not asked because the budget does not allow the call: `-ERR budget …`.
    case budgetDenied(reason: String)
    /// A provider failed (timeout, 5xx, rejected key …) and nothing else answered: `-ERR upstream …`.
    case upstream(reason: String)
    /// The storage behind the command failed (a full disk, PostgreSQL down): `-ERR storage unavailable: …`.
    case storageUnavailable(reason: String)

    /// A failure to open, on one line.
    public static func notOpened(_ error: String) -> ServerBackendError {
        .notOpened(reason: error.split(whereSeparator: \.isNewline).joined(separator: " "))
    }
}

/// A titled block of `INFO` lines.
public struct InfoSection: Sendable, Equatable {
    public var name: String
    public var fields: [(String, String)]

    public init(name: String, fields: [(String, String)]) {
        self.name = name
        self.fields = fields
    }

    public static func == (lhs: InfoSection, rhs: InfoSection) -> Bool {
        lhs.name == rhs.name && lhs.fields.map { [$0.0, $0.1] } == rhs.fields.map { [$0.0, $0.1] }
    }
}
