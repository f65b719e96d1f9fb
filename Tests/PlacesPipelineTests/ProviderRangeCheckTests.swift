import FakeUpstream
import Foundation
import PlacesCore
import PlacesPipeline
import Testing

/// Issue 16 item 7: a provider reply with `latitude: 1e19` was printed as `"lat": 1e+19`, and the lookup
/// then cached "no such place" for 6 hours.
@Suite("Provider numbers are range-checked")
struct ProviderRangeCheckTests {
    static let junkYelp: @Sendable (RecordedRequest) -> FakeReply = { _ in
        .json(FakeFixtures.yelpSearch.replacingOccurrences(of: "\"latitude\": 37.77632", with: "\"latitude\": 1e19"))
    }

    @Test func aReplyOfOnlyImpossiblePositionsIsAFailureNotANegativeAnswer() async throws {
        let rig = try await HTTPProvidersPipelineTests.rig(yelp: Self.junkYelp)
        defer { Task { await rig.shutdown() } }
        rig.googleFake.setHandler { _ in .json("{}") }
        let first = try await rig.pipeline.lookup(HTTPProvidersPipelineTests.request())
        #expect(first.place == nil)
        #expect(first.steps.contains { $0.description.contains("impossible position") }, "\(first.steps.map(\.description))")
        // Nothing was cached from junk: the repeat asks Yelp again.
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
}
