import FakeUpstream
import Foundation
import PlacesCore
import PlacesPipeline
import Testing

/// Issue 16 items 2 and 7: a redirect to another host was followed (with the key) and its answer cached; a
/// reply with `latitude: 1e19` was printed as `"lat": 1e+19`, and the lookup then cached "no such place" for 6 hours.
@Suite("Provider replies are checked before anything is cached")
struct ProviderRangeCheckTests {
    static let junkYelp: @Sendable (RecordedRequest) -> FakeReply = { _ in
        .json(FakeFixtures.yelpSearch.replacingOccurrences(of: "\"latitude\": 37.77632", with: "\"latitude\": 1e19"))
    }

    @Test func aReplyOfOnlyImpossiblePositionsIsAFailureNotANegativeAnswer() async throws {
        let rig = try await HTTPProvidersPipelineTests.rig(yelp: Self.junkYelp)
        defer { Task { await rig.shutdown() } }
        try await Self.failsTwiceWithoutCaching(rig, saying: "impossible position")
    }

    /// Yelp's failure (Google knows nothing) is reported as `reason`, and nothing is cached: the repeat asks Yelp again.
    static func failsTwiceWithoutCaching(_ rig: HTTPProvidersPipelineTests.Rig, saying reason: String) async throws {
        rig.googleFake.setHandler { _ in .json("{}") }
        let first = try await rig.pipeline.lookup(HTTPProvidersPipelineTests.request())
        #expect(first.place == nil)
        #expect(first.steps.contains { $0.description.contains(reason) }, "\(first.steps.map(\.description))")
        let second = try await rig.pipeline.lookup(HTTPProvidersPipelineTests.request())
        #expect(second.cache != .hit)
        #expect(rig.yelpFake.requests.count == 2)
    }

    @Test func aBadRatingIsDroppedAndThePlaceKept() async throws {
        let rig = try await HTTPProvidersPipelineTests.rig(yelp: { _ in
            .json(FakeFixtures.yelpSearch.replacingOccurrences(of: "\"rating\": 4.0", with: "\"rating\": 1e19"))
        })
        defer { Task { await rig.shutdown() } }
        let outcome = try await rig.pipeline.lookup(HTTPProvidersPipelineTests.request())
        #expect(outcome.place?.id.provider == "yelp")
        #expect(outcome.place?.rating == nil)
    }

    @Test func aRedirectIsAFailureTheOtherHostNeverSeesAndNothingIsCached() async throws {
        let thief = try await FakeUpstream.start(handler: FakeRoutes.yelp())
        defer { Task { await thief.shutdown() } }
        let rig = try await HTTPProvidersPipelineTests.rig(yelp: { _ in
            .redirect(to: "http://127.0.0.1:\(thief.port)/v3/businesses/matches", status: 307)
        })
        defer { Task { await rig.shutdown() } }
        try await Self.failsTwiceWithoutCaching(rig, saying: "a redirect")
        #expect(thief.requests.isEmpty)
    }
}
