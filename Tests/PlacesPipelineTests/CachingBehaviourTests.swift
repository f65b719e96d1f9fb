import Foundation
import LookupCache
import PlacesCore
import PlacesPipeline
import Testing

@Suite("Lookup caching")
struct CachingBehaviourTests {
    @Test("provider errors are never cached")
    func errorsNotCached() async throws {
        let rig = try PipelineRig()
        rig.costly.fail(with: serverError)
        let failed = try await rig.lookup()
        #expect(failed.place == nil && failed.errors.count == 1)
        rig.costly.fail(with: nil)
        let retried = try await rig.lookup()
        #expect(retried.cache == .miss && retried.isAccepted)
        #expect(rig.costly.calls == 2)
    }

    @Test("a negative answer is cached, then expires")
    func negativeExpires() async throws {
        let rig = try PipelineRig(costly: [])
        let first = try await rig.lookup("Nonexistent Sauna Bar")
        #expect(first.place == nil && first.cache == .miss)
        let calls = rig.upstreamCalls
        let second = try await rig.lookup("Nonexistent Sauna Bar")
        #expect(second.cache == .hit && second.place == nil && rig.upstreamCalls == calls)
        rig.clock.advance(3_601)  // the rig's negative TTL is one hour
        let third = try await rig.lookup("Nonexistent Sauna Bar")
        #expect(third.cache == .miss && rig.upstreamCalls > calls)
    }

    @Test("an answer lives no longer than its provider's terms allow")
    func ttlFromTerms() async throws {
        let rig = try PipelineRig(cheap: [mayaCheap()])  // yelp: 24 h content
        _ = try await rig.lookup()
        rig.clock.advance(86_399)
        #expect(try await rig.lookup().cache == .hit)
        rig.clock.advance(2)
        #expect(try await rig.lookup().cache == .miss)
    }

    @Test("when every provider fails, an expired entry is served marked stale")
    func staleIfError() async throws {
        let rig = try PipelineRig()
        let fresh = try await rig.lookup()
        #expect(fresh.isAccepted)
        rig.clock.advance(8 * 86_400)
        rig.costly.fail(with: serverError)
        let stale = try await rig.lookup()
        #expect(stale.cache == .stale && stale.place?.id == fresh.place?.id)
        #expect(stale.stopReason == .staleServed)
    }

    @Test("a review answer is cached as the answer it is: the next identical lookup shows the same place, still in doubt")
    func reviewThenRepeat() async throws {
        // Only the name to go on (no point): the local candidate can be no more than a review, and the
        // paid provider knows nothing better.
        let rig = try PipelineRig(local: [mayaLocal()], costly: [])
        let first = try await rig.lookup(near: nil)
        #expect(first.place?.id == mayaLocal().id)
        #expect(first.match?.verdict == .review && !first.isAccepted)
        let calls = rig.upstreamCalls
        let second = try await rig.lookup(near: nil)
        #expect(second.cache == .hit && rig.upstreamCalls == calls, "the repeat is answered from the cache")
        #expect(second.place?.id == first.place?.id)
        #expect(second.match?.verdict == .review)
    }

    @Test("a review answer is kept no longer than \"no such place\" would be")
    func reviewExpiresLikeANegative() async throws {
        let rig = try PipelineRig(local: [mayaLocal()], costly: [])
        _ = try await rig.lookup(near: nil)
        rig.clock.advance(3_601)  // the rig's negative TTL is one hour
        #expect(try await rig.lookup(near: nil).cache == .miss)
    }
}


/// A cache hit skips decoding a payload it decoded before, but the stored entry stays the truth: what
/// another instance sharing the store writes or purges shows on the next hit.
@Suite("Cache hits follow the shared store")
struct CacheHitFollowsStoreTests {
    @Test("an entry another instance replaced is served as replaced; one it purged is a miss")
    func replacedThenPurged() async throws {
        let rig = try PipelineRig()
        let first = try await rig.lookup()
        #expect(first.cache == .miss && first.place?.name == "Maya Bar & Grill")
        #expect(try await rig.lookup().place?.name == "Maya Bar & Grill")

        // Another instance stores a new answer under the same key (same shape, another name).
        let request = LookupRequest(query: MatchQuery(name: "Maya Bar & Grill", near: maya, fields: PlaceField.defaultSet))
        let key = rig.pipeline.cacheKey(request)
        let stored = try #require(try await rig.cache.entry(for: key))
        let renamed = String(decoding: stored.payload, as: UTF8.self)
            .replacingOccurrences(of: "\"Maya Bar & Grill\"", with: "\"Maya Bar & Grill (renamed)\"")
        #expect(renamed != String(decoding: stored.payload, as: UTF8.self))
        try await rig.cache.store(key: key, kind: stored.kind, payload: Data(renamed.utf8), providers: stored.providers, ttl: 86_400)
        let replaced = try await rig.lookup()
        #expect(replaced.cache == .hit && replaced.place?.name == "Maya Bar & Grill (renamed)")

        // Another instance purges everything: the next lookup asks the providers again.
        let calls = rig.upstreamCalls
        _ = try await rig.cache.purge(provider: nil, expiredOnly: false)
        let afterPurge = try await rig.lookup()
        #expect(afterPurge.cache == .miss && rig.upstreamCalls > calls)
    }

    @Test("a hit decoded before is not served past the entry's expiry")
    func expiryStillApplies() async throws {
        let rig = try PipelineRig()
        _ = try await rig.lookup()
        #expect(try await rig.lookup().cache == .hit)
        rig.clock.advance(3 * 86_400 + 1)  // google's content terms: 3 days
        #expect(try await rig.lookup().cache == .miss)
    }
}
