import Foundation
import PlacesCore

/// What the server asks of the application. Every answer is the JSON the CLI prints with `--json`,
/// so the server and the CLI cannot drift apart; `nil` is a miss and becomes a null bulk reply.
///
/// Operations whose implementation is not part of a build keep the default, which throws
/// ``ServerBackendError/unavailable(_:)`` and reaches the client as `-ERR <COMMAND> is not available in this build`.
public protocol ServerBackend: Sendable {
    func search(_ query: SearchQuery) async throws -> Data
    func details(_ query: DetailsQuery) async throws -> Data?
    func nearby(_ query: NearbyQuery) async throws -> Data
    func reverse(_ query: ReverseQuery) async throws -> Data?
    func suggest(_ query: SuggestQuery) async throws -> Data
    /// "Find this specific place" through the lookup pipeline (cache, local index, paid providers under budget).
    func lookup(_ query: MatchQuery) async throws -> Data?
    /// How alike two place names are, as the matcher sees it.
    func score(_ first: String, _ second: String) async throws -> Data
    func budget() async throws -> Data
    func cacheStats() async throws -> Data
    /// A saved-spots command (`SPOT.ADD`, `SPOT.LIST`, …) with its raw arguments; `nil` is an unknown spot.
    /// Spots are read and written in one database shared with the CLI, so these answers are never memoised.
    func spot(_ name: String, _ arguments: [String]) async throws -> Data?
    /// Extra `INFO` sections (`cache`, `budget`): key/value lines that must never include secrets.
    func infoSections() async -> [InfoSection]
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

public enum ServerBackendError: Error, Equatable, Sendable {
    /// The command's backing code is not in this build (e.g. the lookup pipeline before it lands).
    case unavailable(_ command: String)
    /// The command's store or service failed to open when the server started (a locked or unwritable
    /// database, a broken config.toml); `reason` is that error in one line, so the client learns what
    /// to fix instead of being told the command does not exist.
    case notOpened(_ command: String, reason: String)
    /// The command ran and could not answer, for a reason the client must be able to tell from a miss
    /// (LOOKUP when every provider failed and nothing was cached). `reason` is already redacted.
    case failed(_ command: String, reason: String)

    /// A handler for a part of the server that failed to open: every call answers with that failure.
    public static func notOpenedHandler(reason: String) -> @Sendable (String) throws -> Never {
        let reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
        return { command in throw ServerBackendError.notOpened(command, reason: reason) }
    }
}

extension ServerBackend {
    public func lookup(_ query: MatchQuery) async throws -> Data? { throw ServerBackendError.unavailable("LOOKUP") }
    public func score(_ first: String, _ second: String) async throws -> Data { throw ServerBackendError.unavailable("SCORE") }
    public func budget() async throws -> Data { throw ServerBackendError.unavailable("BUDGET") }
    public func cacheStats() async throws -> Data { throw ServerBackendError.unavailable("CACHE.STATS") }
    public func spot(_ name: String, _ arguments: [String]) async throws -> Data? { throw ServerBackendError.unavailable(name) }
    public func infoSections() async -> [InfoSection] { [] }
}

/// A command that the backend answers, as a typed value (its query is also a cache key).
public enum BackendCall: Hashable, Sendable {
    case search(SearchQuery)
    case details(DetailsQuery)
    case nearby(NearbyQuery)
    case reverse(ReverseQuery)
    case suggest(SuggestQuery)
    case lookup(MatchQuery)
    case score(String, String)
    case budget
    case cacheStats
    /// A `SPOT.*` command (upper-cased name) and its arguments, which the spots layer parses.
    case spot(String, [String])

    public var commandName: String {
        switch self {
        case .search: "SEARCH"
        case .details: "DETAILS"
        case .nearby: "NEARBY"
        case .reverse: "REVERSE"
        case .suggest: "SUGGEST"
        case .lookup: "LOOKUP"
        case .score: "SCORE"
        case .budget: "BUDGET"
        case .cacheStats: "CACHE.STATS"
        case .spot(let name, _): name
        }
    }

    /// Whether a reply may be repeated from the server's ``ReplyMemo`` for a while: true for reads of
    /// the index, which only `places import` changes. Spots (written by this server and the CLI), the
    /// lookup pipeline (which spends budget and keeps its own cache) and the counters are always asked afresh.
    public var isMemoisable: Bool {
        switch self {
        case .search, .details, .nearby, .reverse, .suggest, .score: true
        case .lookup, .budget, .cacheStats, .spot: false
        }
    }

    /// Runs the call against `backend`; `nil` means a miss.
    public func run(on backend: any ServerBackend) async throws -> Data? {
        switch self {
        case .search(let query): try await backend.search(query)
        case .details(let query): try await backend.details(query)
        case .nearby(let query): try await backend.nearby(query)
        case .reverse(let query): try await backend.reverse(query)
        case .suggest(let query): try await backend.suggest(query)
        case .lookup(let query): try await backend.lookup(query)
        case .score(let first, let second): try await backend.score(first, second)
        case .budget: try await backend.budget()
        case .cacheStats: try await backend.cacheStats()
        case .spot(let name, let arguments): try await backend.spot(name, arguments)
        }
    }
}
