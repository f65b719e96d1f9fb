import Foundation
import LookupCache
import StoreTestSupport
import Testing

@Suite("Lookup cache")
struct CacheStoreTests {
    @Test("an entry is fresh until its TTL, then served only as expired")
    func expiry() throws {
        let clock = ManualClock()
        let cache = try LookupCacheStore(path: temporaryDatabase("cache.sqlite"), clock: { clock.now })
        try cache.store(key: "k", kind: .answer, payload: Data("yelp answer".utf8), providers: ["yelp"], ttl: 3_600)
        let fresh = try #require(try cache.entry(for: "k"))
        #expect(fresh.isFresh(at: clock.now))
        #expect(String(decoding: fresh.payload, as: UTF8.self) == "yelp answer")
        clock.advance(3_601)
        let expired = try #require(try cache.entry(for: "k"))
        #expect(!expired.isFresh(at: clock.now))
        #expect(try cache.entry(for: "other") == nil)
    }

    @Test("terms that allow no caching store nothing")
    func zeroTTL() throws {
        let cache = try LookupCacheStore(path: temporaryDatabase("cache.sqlite"))
        try cache.store(key: "k", kind: .answer, payload: Data("x".utf8), providers: ["foursquare"], ttl: 0)
        #expect(try cache.entry(for: "k") == nil)
    }

    @Test("over the size cap the least recently used entry is evicted first")
    func lruEviction() throws {
        let clock = ManualClock()
        let cache = try LookupCacheStore(path: temporaryDatabase("cache.sqlite"),
                                         configuration: LookupCacheConfiguration(maxBytes: 2_500, touchInterval: 1),
                                         clock: { clock.now })
        let payload = Data(repeating: 65, count: 1_000)
        try cache.store(key: "a", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        clock.advance(10)
        try cache.store(key: "b", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        clock.advance(10)
        _ = try cache.entry(for: "a")  // a is now more recently used than b
        clock.advance(10)
        try cache.store(key: "c", kind: .answer, payload: payload, providers: ["local"], ttl: 86_400)
        #expect(try cache.entry(for: "b") == nil)
        #expect(try cache.entry(for: "a") != nil)
        #expect(try cache.entry(for: "c") != nil)
        #expect(try cache.stats().payloadBytes <= 2_500)
    }

    @Test("purge by provider, purge expired, stats and vacuum")
    func purgeAndStats() throws {
        let clock = ManualClock()
        let cache = try LookupCacheStore(path: temporaryDatabase("cache.sqlite"), clock: { clock.now })
        try cache.store(key: "g", kind: .answer, payload: Data("1".utf8), providers: ["local", "google"], ttl: 60)
        try cache.store(key: "y", kind: .answer, payload: Data("2".utf8), providers: ["yelp"], ttl: 86_400)
        try cache.store(key: "n", kind: .negative, payload: Data("3".utf8), providers: ["local"], ttl: 30)
        clock.advance(45)
        var stats = try cache.stats()
        #expect(stats.entries == 3 && stats.answers == 2 && stats.negatives == 1 && stats.expired == 1)
        #expect(stats.providers.first { $0.provider == "local" }?.entries == 2)
        #expect(try cache.purge(expiredOnly: true) == 1)
        #expect(try cache.purge(provider: "google") == 1)
        stats = try cache.stats()
        #expect(stats.entries == 1 && stats.providers.map(\.provider) == ["yelp"])
        try cache.vacuum()
        #expect(try cache.entry(for: "y") != nil)
        #expect(try cache.purge() == 1)
    }
}
