import Foundation
import PlacesApp
import PlacesCore

/// The server's backend over ``PlacesService``: the same calls and the same JSON encoders
/// (`PlacesJSON`) as the CLI's `--json`, so a reply is byte for byte what `places … --json` prints
/// to a pipe. Index answers are memoised in an ``AnswerMemo`` for the hot path.
///
/// Commands served by other parts of the application (the lookup pipeline, the matcher, the budget
/// ledger, the lookup cache) are plugged in as closures; one left `nil` answers
/// `-ERR <COMMAND> is not available in this build`.
public struct PlacesServiceBackend: ServerBackend {
    public let service: PlacesService
    public let memo: AnswerMemo
    public var lookupHandler: (@Sendable (MatchQuery) async throws -> Data?)?
    public var scoreHandler: (@Sendable (String, String) async throws -> Data)?
    public var budgetHandler: (@Sendable () async throws -> Data)?
    public var cacheStatsHandler: (@Sendable () async throws -> Data)?
    /// SPOT.* commands (`SpotCommandHandler.reply`). They write, so their answers never enter the memo.
    public var spotHandler: (@Sendable (String, [String]) async throws -> Data?)?
    /// Extra INFO lines (lookup cache, budget); they must never include an API key.
    public var infoHandler: (@Sendable () async -> [InfoSection])?

    public init(service: PlacesService, memo: AnswerMemo = AnswerMemo()) {
        self.service = service
        self.memo = memo
    }

    public func search(_ query: SearchQuery) async throws -> Data {
        try await memoised(.search(query)) {
            try PlacesJSON.places(try await service.search(query), reference: query.near)
        }!
    }

    public func nearby(_ query: NearbyQuery) async throws -> Data {
        try await memoised(.nearby(query)) {
            try PlacesJSON.places(try await service.nearby(query), reference: query.center)
        }!
    }

    /// An unknown id is a miss (null reply), not an error, as Redis clients expect of a lookup by key.
    public func details(_ query: DetailsQuery) async throws -> Data? {
        try await memoised(.details(query)) {
            do {
                return try PlacesJSON.place(try await service.details(query.id, fields: query.fields))
            } catch let error as InputError {
                if try await service.local.details(query) == nil { return nil }
                throw error
            }
        }
    }

    public func reverse(_ query: ReverseQuery) async throws -> Data? {
        try await memoised(.reverse(query)) {
            do {
                return try PlacesJSON.reverse(try await service.reverse(query.coordinate))
            } catch let error as InputError {
                if try await service.local.reverse(query) == nil { return nil }
                throw error
            }
        }
    }

    public func suggest(_ query: SuggestQuery) async throws -> Data {
        try await memoised(.suggest(query)) {
            try PlacesJSON.suggestions(try await service.suggest(query))
        }!
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
        let statistics = memo.statistics
        let memoFields: [(String, String)] = [
            ("memo_entries", String(statistics.entries)),
            ("memo_hits", String(statistics.hits)),
            ("memo_misses", String(statistics.misses)),
            ("memo_capacity", String(memo.capacity)),
        ]
        var sections = await infoHandler?() ?? []
        if let index = sections.firstIndex(where: { $0.name == "cache" }) {
            sections[index].fields += memoFields
        } else {
            sections.append(InfoSection(name: "cache", fields: memoFields))
        }
        return sections
    }

    public func cachedAnswer(for call: BackendCall) -> CachedAnswer? {
        // A spot written a moment ago (here or by the CLI) must show up in the next SPOT.LIST.
        if case .spot = call { return nil }
        return memo.answer(for: call)
    }

    private func memoised(_ call: BackendCall, _ compute: () async throws -> Data?) async throws -> Data? {
        let data = try await compute()
        memo.store(data.map(CachedAnswer.found) ?? .miss, for: call)
        return data
    }
}
