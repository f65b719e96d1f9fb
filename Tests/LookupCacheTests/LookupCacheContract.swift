import Foundation
import LookupCache
import StoreTestSupport
import Testing

/// What `places lookup`, `places cache` and the server rely on from any lookup cache (see ``LookupCacheStore``).
/// Every test runs once per implementation in ``LookupCacheImplementation/all``.
@Suite("Lookup cache contract")
struct LookupCacheContract {
    private static let yelpAnswer = Data("yelp answer".utf8)

    @Test("an entry is fresh until its TTL, then still returned but expired (stale-if-error)",
          arguments: LookupCacheImplementation.all)
    func expiry(_ implementation: LookupCacheImplementation) async throws {
        let clock = ManualClock()
        let cache = try await implementation.make(clock: { clock.now })
        try await cache.store(key: "k", kind: .answer, payload: Self.yelpAnswer, providers: ["yelp"], ttl: 3_600)
        let fresh = try #require(try await cache.entry(for: "k"))
        #expect(fresh.isFresh(at: clock.now))
        #expect(fresh.payload == Self.yelpAnswer)
        #expect(fresh.kind == .answer && fresh.providers == ["yelp"] && fresh.key == "k")
        #expect(fresh.storedAt == clock.now && fresh.expiresAt == clock.now.addingTimeInterval(3_600))
        clock.advance(3_599)
        #expect(try await cache.entry(for: "k")?.isFresh(at: clock.now) == true)
        clock.advance(2)
        let expired = try #require(try await cache.entry(for: "k"))
        #expect(!expired.isFresh(at: clock.now))
        #expect(expired.payload == Self.yelpAnswer)
        #expect(try await cache.entry(for: "other") == nil)
    }

    @Test("terms that allow no caching store nothing", arguments: LookupCacheImplementation.all)
    func zeroTTL(_ implementation: LookupCacheImplementation) async throws {
        let cache = try await implementation.make()
        try await cache.store(key: "k", kind: .answer, payload: Data("x".utf8), providers: ["foursquare"], ttl: 0)
        try await cache.store(key: "n", kind: .answer, payload: Data("x".utf8), providers: ["foursquare"], ttl: -5)
        #expect(try await cache.entry(for: "k") == nil)
        #expect(try await cache.entry(for: "n") == nil)
        #expect(try await cache.stats().entries == 0)
    }

    @Test("a negative entry comes back as negative, with its own TTL", arguments: LookupCacheImplementation.all)
    func negativeEntries(_ implementation: LookupCacheImplementation) async throws {
        let clock = ManualClock()
        let cache = try await implementation.make(clock: { clock.now })
        try await cache.store(key: "nowhere", kind: .negative, payload: Data("{}".utf8), providers: ["local", "yelp"], ttl: 600)
        let hit = try #require(try await cache.entry(for: "nowhere"))
        #expect(hit.kind == .negative && hit.isFresh(at: clock.now))
        #expect(Set(hit.providers) == ["local", "yelp"])
        clock.advance(601)
        #expect(try await cache.entry(for: "nowhere")?.isFresh(at: clock.now) == false)
    }

    @Test("storing a key again replaces the whole entry", arguments: LookupCacheImplementation.all)
    func replace(_ implementation: LookupCacheImplementation) async throws {
        let clock = ManualClock()
        let cache = try await implementation.make(clock: { clock.now })
        try await cache.store(key: "k", kind: .negative, payload: Data("none".utf8), providers: ["local"], ttl: 60)
        clock.advance(30)
        try await cache.store(key: "k", kind: .answer, payload: Self.yelpAnswer, providers: ["yelp"], ttl: 3_600)
        let entry = try #require(try await cache.entry(for: "k"))
        #expect(entry.kind == .answer && entry.payload == Self.yelpAnswer && entry.providers == ["yelp"])
        #expect(entry.storedAt == clock.now && entry.expiresAt == clock.now.addingTimeInterval(3_600))
        let stats = try await cache.stats()
        #expect(stats.entries == 1 && stats.answers == 1 && stats.negatives == 0)
    }

    @Test("over the size cap the least recently used entry is evicted first", arguments: LookupCacheImplementation.all)
    func lruEviction(_ implementation: LookupCacheImplementation) async throws {
        let clock = ManualClock()
        let cache = try await implementation.make(LookupCacheConfiguration(maxBytes: 2_500, touchInterval: 1),
                                                  clock: { clock.now })
        let payload = Data(repeating: 65, count: 1_000)
        try await cache.store(key: "a", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        clock.advance(10)
        try await cache.store(key: "b", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        clock.advance(10)
        _ = try await cache.entry(for: "a")  // a is now more recently used than b
        clock.advance(10)
        try await cache.store(key: "c", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        #expect(try await cache.entry(for: "b") == nil)
        #expect(try await cache.entry(for: "a") != nil)
        #expect(try await cache.entry(for: "c") != nil)
        let stats = try await cache.stats()
        // Each entry counts its payload and its one-byte key: 2 × 1,001 bytes stay under the 2,500-byte cap.
        #expect(stats.payloadBytes == 2_002 && stats.maxBytes == 2_500)
    }

    @Test("an entry larger than the cap does not stay", arguments: LookupCacheImplementation.all)
    func oversizedEntry(_ implementation: LookupCacheImplementation) async throws {
        let cache = try await implementation.make(LookupCacheConfiguration(maxBytes: 100))
        try await cache.store(key: "big", kind: .answer, payload: Data(repeating: 1, count: 500), providers: ["google"], ttl: 60)
        #expect(try await cache.entry(for: "big") == nil)
        #expect(try await cache.stats().payloadBytes <= 100)
    }

    @Test("purge by provider, purge expired, both, all; stats per provider", arguments: LookupCacheImplementation.all)
    func purgeAndStats(_ implementation: LookupCacheImplementation) async throws {
        let clock = ManualClock()
        let cache = try await implementation.make(clock: { clock.now })
        let start = clock.now
        try await cache.store(key: "g", kind: .answer, payload: Data("1".utf8), providers: ["local", "google"], ttl: 60)
        clock.advance(1)
        try await cache.store(key: "y", kind: .answer, payload: Data("22".utf8), providers: ["yelp"], ttl: 86_400)
        clock.advance(1)
        try await cache.store(key: "n", kind: .negative, payload: Data("333".utf8), providers: ["local"], ttl: 30)
        clock.advance(45)
        var stats = try await cache.stats()
        #expect(stats.entries == 3 && stats.answers == 2 && stats.negatives == 1 && stats.expired == 1)
        // Bytes: payload plus key, each key one byte: (1+1) + (2+1) + (3+1).
        #expect(stats.payloadBytes == 9)
        #expect(stats.oldest == start && stats.newest == start.addingTimeInterval(2))
        #expect(stats.providers == [
            CacheStats.ProviderStats(provider: "google", entries: 1, expired: 0),
            CacheStats.ProviderStats(provider: "local", entries: 2, expired: 1),
            CacheStats.ProviderStats(provider: "yelp", entries: 1, expired: 0),
        ])
        #expect(try await cache.purge(provider: nil, expiredOnly: true) == 1)
        #expect(try await cache.purge(provider: "google", expiredOnly: false) == 1)
        stats = try await cache.stats()
        #expect(stats.entries == 1 && stats.providers.map(\.provider) == ["yelp"])
        try await cache.vacuum()
        #expect(try await cache.entry(for: "y") != nil)
        #expect(try await cache.purge(provider: "yelp", expiredOnly: true) == 0)
        #expect(try await cache.purge(provider: nil, expiredOnly: false) == 1)
        #expect(try await cache.stats().entries == 0)
    }

    @Test("a provider name is matched whole: purging 'yelp' keeps 'yelpish'", arguments: LookupCacheImplementation.all)
    func purgeMatchesWholeNames(_ implementation: LookupCacheImplementation) async throws {
        let cache = try await implementation.make()
        try await cache.store(key: "a", kind: .answer, payload: Data("1".utf8), providers: ["yelpish"], ttl: 60)
        try await cache.store(key: "b", kind: .answer, payload: Data("1".utf8), providers: ["yelp"], ttl: 60)
        #expect(try await cache.purge(provider: "yelp", expiredOnly: false) == 1)
        #expect(try await cache.entry(for: "a") != nil)
    }

    @Test("two handles on one store see each other's entries", arguments: LookupCacheImplementation.all)
    func sharedStorage(_ implementation: LookupCacheImplementation) async throws {
        let open = try await implementation.freshStorage()
        let first = try await open(LookupCacheConfiguration(), { Date() })
        let second = try await open(LookupCacheConfiguration(), { Date() })
        try await first.store(key: "k", kind: .answer, payload: Self.yelpAnswer, providers: ["yelp"], ttl: 60)
        #expect(try await second.entry(for: "k")?.payload == Self.yelpAnswer)
        #expect(try await second.purge(provider: nil, expiredOnly: false) == 1)
        #expect(try await first.entry(for: "k") == nil)
    }

    @Test("every write through one handle (store, overwrite, size-cap eviction, purge) changes the stamp another reads",
          arguments: LookupCacheImplementation.all)
    func changeStamp(_ implementation: LookupCacheImplementation) async throws {
        let open = try await implementation.freshStorage()
        // A cap of 40 bytes holds one entry of 30: storing a second evicts the first.
        let writer = try await open(LookupCacheConfiguration(maxBytes: 40), { Date() })
        let reader = try await open(LookupCacheConfiguration(maxBytes: 40), { Date() })
        /// The reader's stamp once it differs from `previous` (and is known), within a deadline: on PostgreSQL a
        /// write reaches another process as a notification, a moment after its commit.
        func stamp(after previous: UInt64?) async throws -> UInt64? {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let stamp = reader.changeStamp(), stamp != previous { return stamp }
                try await Task.sleep(for: .milliseconds(5))  // a polling pace, not a wait that must be long enough
            }
            return nil
        }
        let initial = try #require(try await stamp(after: nil), "the stamp becomes known")
        #expect(reader.changeStamp() == initial, "no write, no change")
        let payload = Data(repeating: 1, count: 29)
        try await writer.store(key: "a", kind: .answer, payload: payload, providers: ["yelp"], ttl: 60)
        let stored = try #require(try await stamp(after: initial))
        try await writer.store(key: "a", kind: .negative, payload: payload, providers: ["yelp"], ttl: 60)
        let overwritten = try #require(try await stamp(after: stored))
        try await writer.store(key: "b", kind: .answer, payload: payload, providers: ["yelp"], ttl: 60)
        let evicted = try #require(try await stamp(after: overwritten))
        #expect(try await reader.entry(for: "a") == nil)
        #expect(try await writer.purge(provider: nil, expiredOnly: false) == 1)
        #expect(try await stamp(after: evicted) != nil)
    }

    @Test("concurrent stores and reads of many keys all land", arguments: LookupCacheImplementation.all)
    func concurrentWrites(_ implementation: LookupCacheImplementation) async throws {
        let cache = try await implementation.make()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    try await cache.store(key: "k\(i)", kind: .answer, payload: Data("\(i)".utf8), providers: ["local"], ttl: 60)
                    _ = try await cache.entry(for: "k\(i)")
                }
            }
            try await group.waitForAll()
        }
        #expect(try await cache.stats().entries == 50)
        #expect(try await cache.entry(for: "k49")?.payload == Data("49".utf8))
    }
}
