import Foundation
import LookupCache
import PlacesCore
import PlacesPipeline
import ScratchDirectory
import Synchronization
import Testing

/// The front's policy with plain numbers: no store, no clock but the dates given.
@Suite("Cache hit front policy")
struct CacheHitFrontTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    /// A front that remembered "answer" for "k" at ``start``, under `stamp`, from a row expiring `rowLife` later.
    func remembering(stamp: UInt64 = 7, rowLife: TimeInterval = 3_600, refreshInterval: TimeInterval = 60) -> CacheHitFrontPolicy<String> {
        var front = CacheHitFrontPolicy<String>(capacity: 10, refreshInterval: refreshInterval)
        front.remember("answer", for: "k", stamp: stamp, expiresAt: start + rowLife, now: start)
        return front
    }

    @Test("a remembered hit is answered while the stamp is the one it was remembered under")
    func sameStamp() {
        var front = remembering()
        #expect(front.answer(for: "k", stamp: 7, now: start + 1) == "answer")
        #expect(front.answer(for: "other", stamp: 7, now: start + 1) == nil)
    }

    @Test("another stamp (a write anywhere) forgets the entry, even if the stamp comes back")
    func stampChange() {
        var front = remembering()
        #expect(front.answer(for: "k", stamp: 8, now: start) == nil)
        #expect(front.answer(for: "k", stamp: 7, now: start) == nil)
        #expect(front.count == 0)
    }

    @Test("no stamp (listener down) bypasses the front and remembers nothing; the entry is kept for when it is back")
    func noStamp() {
        var empty = CacheHitFrontPolicy<String>(capacity: 10, refreshInterval: 60)
        empty.remember("answer", for: "k", stamp: nil, expiresAt: start + 3_600, now: start)
        #expect(empty.count == 0)
        var front = remembering(stamp: 3)
        #expect(front.answer(for: "k", stamp: nil, now: start) == nil)
        #expect(front.answer(for: "k", stamp: 3, now: start) == "answer")
    }

    @Test("an entry is never answered at or past its cache row's expiry")
    func rowExpiry() {
        var front = remembering(rowLife: 10, refreshInterval: 3_600)
        #expect(front.answer(for: "k", stamp: 7, now: start + 9.999) == "answer")
        #expect(front.answer(for: "k", stamp: 7, now: start + 10) == nil)
        // A row already expired when read is not remembered at all.
        front.remember("late", for: "late", stamp: 7, expiresAt: start, now: start)
        #expect(front.answer(for: "late", stamp: 7, now: start) == nil)
    }

    @Test("an entry goes back to the store after the refresh interval, however long its row lives")
    func refreshInterval() {
        var front = remembering(rowLife: 86_400, refreshInterval: 60)
        #expect(front.answer(for: "k", stamp: 7, now: start + 59) == "answer")
        #expect(front.answer(for: "k", stamp: 7, now: start + 60) == nil)
    }

    @Test("bounded: past the capacity the entry remembered first goes")
    func bound() {
        var front = CacheHitFrontPolicy<Int>(capacity: 3, refreshInterval: 60)
        for index in 0..<5 { front.remember(index, for: "k\(index)", stamp: 1, expiresAt: start + 600, now: start) }
        #expect(front.count == 3)
        #expect(front.answer(for: "k0", stamp: 1, now: start) == nil && front.answer(for: "k1", stamp: 1, now: start) == nil)
        #expect((2..<5).map { front.answer(for: "k\($0)", stamp: 1, now: start) } == [2, 3, 4])
        // Many more: still bounded, and the newest are the ones kept.
        for index in 5..<1_000 { front.remember(index, for: "k\(index)", stamp: 1, expiresAt: start + 600, now: start) }
        #expect(front.count == 3 && front.answer(for: "k999", stamp: 1, now: start) == 999)
    }

    @Test("no capacity remembers nothing")
    func zeroCapacity() {
        var front = CacheHitFrontPolicy<Int>(capacity: 0, refreshInterval: 60)
        front.remember(1, for: "k", stamp: 1, expiresAt: start + 600, now: start)
        #expect(front.count == 0 && front.answer(for: "k", stamp: 1, now: start) == nil)
    }
}

/// A store that counts entry reads and whose change stamp a test sets, around a real SQLite store.
final class StampedCache: LookupCacheStore {
    let inner: any LookupCacheStore
    private let state = Mutex<(reads: Int, stamp: UInt64?)>((0, 1))

    init(_ store: any LookupCacheStore) { inner = store }

    var reads: Int { state.withLock { $0.reads } }
    func setStamp(_ stamp: UInt64?) { state.withLock { $0.stamp = stamp } }

    var configuration: LookupCacheConfiguration { inner.configuration }
    var location: String { inner.location }
    func entry(for key: String) async throws -> CachedEntry? {
        state.withLock { $0.reads += 1 }
        return try await inner.entry(for: key)
    }
    func store(key: String, kind: CacheEntryKind, payload: Data, providers: [String], ttl: TimeInterval) async throws {
        try await inner.store(key: key, kind: kind, payload: payload, providers: providers, ttl: ttl)
    }
    func purge(provider: String?, expiredOnly: Bool) async throws -> Int { try await inner.purge(provider: provider, expiredOnly: expiredOnly) }
    func vacuum() async throws { try await inner.vacuum() }
    func stats() async throws -> CacheStats { try await inner.stats() }
    func changeStamp() -> UInt64? { state.withLock { $0.stamp } }
}

/// The front inside the lookup pipeline: what it saves (store reads) and what it must never do (serve a removed,
/// changed or expired entry).
@Suite("Cache hit front in the pipeline")
struct CacheHitFrontPipelineTests {
    func rig() throws -> (PipelineRig, StampedCache) {
        var stamped: StampedCache?
        let rig = try PipelineRig(wrapCache: { store in
            let wrapped = StampedCache(store)
            stamped = wrapped
            return wrapped
        }, hitFront: CacheHitFront(refreshInterval: 86_400 * 30))
        return (rig, try #require(stamped))
    }

    @Test("a repeated hit is answered without reading the store, with the store's answer")
    func repeatedHit() async throws {
        let (rig, cache) = try rig()
        let first = try await rig.lookup()
        #expect(first.cache == .miss && first.isAccepted)
        let second = try await rig.lookup()
        #expect(second.cache == .hit && second.place?.id == first.place?.id)
        let reads = cache.reads
        for _ in 0..<3 {
            let again = try await rig.lookup()
            #expect(again.cache == .hit && again.place?.id == first.place?.id && again.cost == .zero)
        }
        #expect(cache.reads == reads)
        #expect(rig.costly.calls == 1)
    }

    @Test("a changed stamp sends the next lookup to the store; no stamp bypasses the front")
    func stampChangeAndBypass() async throws {
        let (rig, cache) = try rig()
        _ = try await rig.lookup()
        _ = try await rig.lookup()
        var reads = cache.reads
        cache.setStamp(2)
        #expect(try await rig.lookup().cache == .hit)
        #expect(cache.reads == reads + 1)
        reads = cache.reads
        cache.setStamp(nil)
        for _ in 0..<3 { #expect(try await rig.lookup().cache == .hit) }
        #expect(cache.reads == reads + 3)
    }

    @Test("an entry is not served past its TTL: the lookup asks the providers again")
    func expiry() async throws {
        let (rig, _) = try rig()
        _ = try await rig.lookup()
        #expect(try await rig.lookup().cache == .hit)
        rig.clock.advance(8 * 86_400)  // past google's terms and the rig's answer TTL (7 days)
        let expired = try await rig.lookup()
        #expect(expired.cache == .miss && rig.costly.calls == 2)
    }

    /// A rig with a front on a fresh SQLite file whose first lookup is remembered, and a second handle on that file,
    /// as another process would open it.
    func rigAndAnotherHandle() async throws -> (PipelineRig, first: LookupOutcome, other: SQLiteLookupCacheStore) {
        let path = try ScratchDirectory.lastingTheProcess("places-front").url.appendingPathComponent("cache.sqlite")
        let rig = try PipelineRig(cachePath: path, hitFront: CacheHitFront(refreshInterval: 86_400 * 30))
        let first = try await rig.lookup()
        #expect(try await rig.lookup().cache == .hit)
        #expect(try await rig.lookup().cache == .hit)
        return (rig, first, try SQLiteLookupCacheStore(path: path, clock: { rig.clock.now }))
    }

    @Test("another handle's purge of the same SQLite file (as another process) reaches the front")
    func purgeThroughAnotherHandle() async throws {
        let (rig, _, other) = try await rigAndAnotherHandle()
        #expect(try await other.purge(provider: nil, expiredOnly: false) == 1)
        let after = try await rig.lookup()
        #expect(after.cache == .miss && rig.costly.calls == 2)
    }

    @Test("another handle's overwrite of the entry reaches the front")
    func overwriteThroughAnotherHandle() async throws {
        let (rig, first, other) = try await rigAndAnotherHandle()
        let key = rig.pipeline.cacheKey(LookupRequest(query: MatchQuery(name: "Maya Bar & Grill", near: maya, fields: PlaceField.defaultSet)))
        let stored = try #require(try await other.entry(for: key))
        // The same entry made negative ("no such place") by another process.
        try await other.store(key: key, kind: .negative, payload: Data(#"{}"#.utf8), providers: ["google"], ttl: 3_600)
        let after = try await rig.lookup()
        #expect(first.place != nil && stored.kind == .answer)
        #expect(after.cache == .hit && after.place == nil)
    }
}
