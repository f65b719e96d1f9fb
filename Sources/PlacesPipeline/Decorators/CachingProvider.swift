import Foundation
import LookupCache
import PlacesCore

/// Keeps a provider's answers to searches, nearby lists, details, reverse geocodes and suggestions in the
/// lookup cache for as long as that provider's terms allow (``CacheTerms/wholeAnswer``, never longer than
/// `[cache] answer_ttl_s`), so a repeated question is answered without a call and without spending.
///
/// `match` passes through: the lookup pipeline caches the whole merged answer under the lookup's own key,
/// and keeping each provider's candidates as well would store the same data twice.
public struct CachingProvider: ProviderDecorator {
    public let wrapped: any PlaceProvider
    public let cache: any LookupCacheStore
    /// Coordinates in keys are snapped to this grid (`[cache] grid_m`), as lookup keys are.
    public let grid: CoordinateGrid
    /// How long an answer is kept: the shorter of the provider's terms and the configured longest.
    public let timeToLive: TimeInterval
    /// How long ids alone are kept (a probe's answer): the provider's terms for ids (Google: indefinitely),
    /// never longer than the configured longest.
    public let idTimeToLive: TimeInterval
    private let clock: @Sendable () -> Date

    public init(_ provider: any PlaceProvider, cache: any LookupCacheStore, grid: CoordinateGrid, longest: TimeInterval,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        wrapped = provider
        self.cache = cache
        self.grid = grid
        timeToLive = min(longest, provider.cacheTerms.wholeAnswer ?? .infinity)
        idTimeToLive = min(longest, provider.cacheTerms.ids ?? .infinity)
        self.clock = clock
    }

    /// The cache key of one call: the provider, then the query's canonical form.
    public func cacheKey(_ query: some PlaceQuery) -> String {
        "provider|\(name)|" + query.canonicalForm(grid: grid)
    }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        try await cached(query) { try await wrapped.search(query) }
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        try await cached(query) { try await wrapped.nearby(query) }
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        try await cached(query) { try await wrapped.details(query) }
    }

    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? {
        try await cached(query) { try await wrapped.reverse(query) }
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        try await cached(query) { try await wrapped.suggest(query) }
    }

    public func match(_ query: MatchQuery) async throws -> [Place] {
        try await wrapped.match(query)
    }

    /// Ids only, so kept as long as the terms allow ids to be kept.
    public func probe(_ query: ProbeQuery) async throws -> [String] {
        try await cached(query, keptFor: idTimeToLive) { try await wrapped.probe(query) }
    }

    /// A fresh stored answer, or the provider's, stored for ``timeToLive`` when the terms allow keeping it.
    /// An empty answer is stored too: "nothing there" costs the same to ask again.
    /// Another process sharing the cache may be filling the same key: the miss waits for it (``LookupCacheStore/withFillLock(key:timeout:_:)``)
    /// and reads again before calling, so the same question is paid for once across instances.
    private func cached<Value: Codable & Sendable>(_ query: some PlaceQuery, keptFor: TimeInterval? = nil,
                                                   _ load: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let timeToLive = keptFor ?? self.timeToLive
        guard timeToLive > 0 else { return try await load() }
        let (key, cache, clock, name) = (cacheKey(query), cache, clock, name)
        @Sendable func fresh() async throws -> Value? {
            guard let entry = try await cache.entry(for: key), entry.isFresh(at: clock()) else { return nil }
            return try? JSONDecoder().decode(Value.self, from: entry.payload)
        }
        if let stored = try await fresh() {
            PipelineMetrics.providerCacheHits.increment()
            return stored
        }
        return try await cache.withFillLock(key: key, timeout: Self.fillLockTimeout) {
            if let stored = try await fresh() {
                PipelineMetrics.providerCacheHits.increment()
                return stored
            }
            PipelineMetrics.providerCacheMisses.increment()
            let value = try await load()
            try await cache.store(key: key, kind: .answer, payload: try JSONEncoder().encode(value), providers: [name], ttl: timeToLive)
            return value
        }
    }

    /// How long a miss may wait for another process filling the same key, plus its own call and retries.
    static let fillLockTimeout: Duration = .seconds(60)
}
