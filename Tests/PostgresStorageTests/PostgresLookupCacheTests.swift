import Foundation
import LookupCache
import PostgresStorage
import PostgresTestCluster
import Testing

@Suite(.needsPostgres) struct PostgresLookupCacheTests {
    @Test func keepsExpiredEntriesForStaleIfErrorAndStoresNothingWithoutTTL() async throws {
        try await withFreshDatabase { database in
            let clock = TestClock(instant("2026-11-22T10:00:00Z"))
            let cache = PostgresLookupCache(database: database, clock: clock.function)
            try await cache.store(key: "lookup|maya bar", kind: .answer, payload: Data("{\"name\":\"Maya Bar\"}".utf8),
                                  providers: ["yelp", "google", "yelp"], ttl: 60)
            try await cache.store(key: "lookup|nowhere", kind: .negative, payload: Data(), providers: ["google"], ttl: 60)
            try await cache.store(key: "lookup|not allowed", kind: .answer, payload: Data("x".utf8), providers: ["google"], ttl: 0)
            let hit = try #require(try await cache.entry(for: "lookup|maya bar"))
            #expect(hit.payload == Data("{\"name\":\"Maya Bar\"}".utf8))
            #expect(hit.providers == ["google", "yelp"])
            #expect(hit.kind == .answer)
            #expect(hit.storedAt == instant("2026-11-22T10:00:00Z"))
            #expect(hit.expiresAt == instant("2026-11-22T10:01:00Z"))
            #expect(try await cache.entry(for: "lookup|nowhere")?.kind == .negative)
            #expect(try await cache.entry(for: "lookup|not allowed") == nil)
            clock.advance(by: 61)
            let stale = try #require(try await cache.entry(for: "lookup|maya bar"))
            #expect(!stale.isFresh(at: clock.now))
        }
    }

    @Test func purgesByProviderAndExpiry() async throws {
        try await withFreshDatabase { database in
            let clock = TestClock(instant("2026-11-22T10:00:00Z"))
            let cache = PostgresLookupCache(database: database, clock: clock.function)
            try await cache.store(key: "a", kind: .answer, payload: Data("1".utf8), providers: ["yelp"], ttl: 30)
            try await cache.store(key: "b", kind: .answer, payload: Data("2".utf8), providers: ["google"], ttl: 300)
            try await cache.store(key: "c", kind: .answer, payload: Data("3".utf8), providers: ["google", "yelp"], ttl: 300)
            try await cache.store(key: "d", kind: .negative, payload: Data(), providers: ["foursquare"], ttl: 30)
            clock.advance(by: 31)
            let stats = try await cache.stats()
            #expect(stats.entries == 4)
            #expect(stats.answers == 3)
            #expect(stats.negatives == 1)
            #expect(stats.expired == 2)
            #expect(stats.providers.map(\.provider) == ["foursquare", "google", "yelp"])
            #expect(stats.providers.map(\.entries) == [1, 2, 2])
            #expect(try await cache.purgeExpired(batchSize: 1) == 2)   // a and d, one batch each
            #expect(try await cache.purge(provider: "YELP") == 1)      // c
            #expect(try await cache.entry(for: "b") != nil)
            #expect(try await cache.purge() == 1)
            #expect(try await cache.stats().entries == 0)
        }
    }

    @Test func sizeCapEvictsTheLeastRecentlyUsed() async throws {
        try await withFreshDatabase { database in
            let clock = TestClock(instant("2026-11-22T10:00:00Z"))
            // Each entry is 1 byte of key and 39 of payload: two fit in 100 bytes, three do not.
            let cache = PostgresLookupCache(database: database, configuration: LookupCacheConfiguration(maxBytes: 100, touchInterval: 60),
                                            clock: clock.function)
            let payload = Data(repeating: 65, count: 39)
            try await cache.store(key: "a", kind: .answer, payload: payload, providers: ["yelp"], ttl: 3600)
            clock.advance(by: 1)
            try await cache.store(key: "b", kind: .answer, payload: payload, providers: ["yelp"], ttl: 3600)
            clock.advance(by: 119)
            _ = try await cache.entry(for: "a")   // used 2 minutes after b was stored: b is now the least recent
            clock.advance(by: 1)
            try await cache.store(key: "c", kind: .answer, payload: payload, providers: ["yelp"], ttl: 3600)
            #expect(try await cache.entry(for: "a") != nil)
            #expect(try await cache.entry(for: "b") == nil)
            #expect(try await cache.entry(for: "c") != nil)
            #expect(try await cache.stats().payloadBytes == 80)
        }
    }

    @Test func oneFillAcrossTwoInstancesMissingTheSameKey() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let first = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        let second = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        defer { first.close(); second.close() }
        let caches = [PostgresLookupCache(database: first), PostgresLookupCache(database: second)]
        let upstreamCalls = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let cache = caches[index % 2]
                    if let hit = try await cache.entry(for: "lookup|kappeli"), hit.isFresh(at: Date()) { return }
                    try await cache.withFillLock(key: "lookup|kappeli", timeout: .seconds(20)) {
                        if let hit = try await cache.entry(for: "lookup|kappeli"), hit.isFresh(at: Date()) { return }
                        upstreamCalls.increment()
                        try await cache.store(key: "lookup|kappeli", kind: .answer, payload: Data("kappeli".utf8),
                                              providers: ["google"], ttl: 3600)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(upstreamCalls.value == 1)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
