import Foundation
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

