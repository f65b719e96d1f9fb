import Foundation
import PlacesApp
import PlacesCore

/// The server's backend over ``PlacesService``: the same calls and the same JSON encoders
/// (`PlacesJSON`) as the CLI's `--json`, so a reply is byte for byte what `places … --json` prints
/// to a pipe. Hot answers are repeated by the server's ``ReplyMemo`` and never reach this type.
///
/// Commands served by other parts of the application (the lookup pipeline, the matcher, the budget
/// ledger, the lookup cache) are plugged in as closures; one left `nil` answers
/// `-ERR <COMMAND> is not available in this build`.
public struct PlacesServiceBackend: ServerBackend {
    public let service: PlacesService
    public var lookupHandler: (@Sendable (MatchQuery) async throws -> Data?)?
    public var scoreHandler: (@Sendable (String, String) async throws -> Data)?
    public var budgetHandler: (@Sendable () async throws -> Data)?
    public var cacheStatsHandler: (@Sendable () async throws -> Data)?
    /// SPOT.* commands (`SpotCommandHandler.reply`). They write, so their answers never enter the memo.
    public var spotHandler: (@Sendable (String, [String]) async throws -> Data?)?
    /// Extra INFO lines (lookup cache, budget); they must never include an API key.
    public var infoHandler: (@Sendable () async -> [InfoSection])?

    public init(service: PlacesService) {
        self.service = service
    }

    public func search(_ query: SearchQuery) async throws -> Data {
        try PlacesJSON.places(try await service.search(query), reference: query.near)
    }

    public func nearby(_ query: NearbyQuery) async throws -> Data {
        try PlacesJSON.places(try await service.nearby(query), reference: query.center)
    }

    /// An unknown id is a miss (null reply), not an error, as Redis clients expect of a lookup by key.
    public func details(_ query: DetailsQuery) async throws -> Data? {
        do {
            return try PlacesJSON.place(try await service.details(query.id, fields: query.fields))
        } catch is NotFound {
            return nil
        }
    }

    public func reverse(_ query: ReverseQuery) async throws -> Data? {
        do {
            return try PlacesJSON.reverse(try await service.reverse(query.coordinate))
        } catch is NotFound {
            return nil
        }
    }

    public func suggest(_ query: SuggestQuery) async throws -> Data {
        try PlacesJSON.suggestions(try await service.suggest(query))
    }

    public func lookup(_ query: MatchQuery) async throws -> Data? {
        guard let lookupHandler else { throw ServerBackendError.unavailable("LOOKUP") }
        return try await lookupHandler(query)
    }

    public func score(_ first: String, _ second: String) async throws -> Data {
        guard let scoreHandler else { throw ServerBackendError.unavailable("SCORE") }
        return try await scoreHandler(first, second)
    }

    public func budget() async throws -> Data {
        guard let budgetHandler else { throw ServerBackendError.unavailable("BUDGET") }
        return try await budgetHandler()
    }

    public func cacheStats() async throws -> Data {
        guard let cacheStatsHandler else { throw ServerBackendError.unavailable("CACHE.STATS") }
        return try await cacheStatsHandler()
    }

    public func spot(_ name: String, _ arguments: [String]) async throws -> Data? {
        guard let spotHandler else { throw ServerBackendError.unavailable(name) }
        return try await spotHandler(name, arguments)
    }

    public func infoSections() async -> [InfoSection] {
        await infoHandler?() ?? []
    }
}
