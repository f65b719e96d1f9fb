import BudgetLedger
import FakeUpstream
import Foundation
import GoogleProvider
import LookupCache
import PlacesCore
import PlacesMatching
import PlacesPipeline
import ProviderHTTP
import ScratchDirectory
import Testing
import YelpProvider

/// The pipeline with the real Yelp and Google providers talking HTTP to fakes on 127.0.0.1,
/// counting the requests each fake receives.
@Suite("Lookup over HTTP providers")
struct HTTPProvidersPipelineTests {
    static let blueBottle = Coordinate(latitude: 37.7763, longitude: -122.4232)
    static let emptyYelp: @Sendable (RecordedRequest) -> FakeReply = { _ in .json(#"{"businesses": [], "total": 0}"#) }

    struct Rig {
        let yelpFake: FakeUpstream
        let googleFake: FakeUpstream
        let pipeline: LookupPipeline
        let ledger: any BudgetLedger

        func shutdown() async {
            await yelpFake.shutdown()
            await googleFake.shutdown()
        }
    }

    static func client(_ name: String, _ fake: FakeUpstream,
                       errorReader: @escaping @Sendable (HTTPResponse) -> UpstreamErrorDetail) -> HTTPClient {
        HTTPClient(configuration: HTTPClientConfiguration(
            provider: name, baseURL: fake.baseURL, timeout: FakeUpstream.answerWithinSeconds, userAgent: UserAgent.make(product: "places/0.0.0-test"),
            retry: RetryPolicy(maxAttempts: 1), secrets: [FakeRoutes.testKey]), errorReader: errorReader)
    }

    static func rig(yelp: @escaping @Sendable (RecordedRequest) -> FakeReply = FakeRoutes.yelp(),
                    budget: BudgetPolicy = BudgetPolicy()) async throws -> Rig {
        let yelpFake = try await FakeUpstream.start(handler: yelp)
        let googleFake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let directory = try ScratchDirectory.lastingTheProcess("places-http-pipeline").url
        let ledger = try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"), policy: budget)
        let providers: [any PlaceProvider] = [
            GoogleProvider(client: client("google", googleFake, errorReader: GoogleProvider.errorReader)),
            YelpProvider(client: client("yelp", yelpFake, errorReader: YelpProvider.errorReader)),
        ]
        let pipeline = LookupPipeline(providers: providers, scorer: MatcherScorer(matcher: PlaceMatcher()),
                                      cache: try SQLiteLookupCacheStore(path: directory.appendingPathComponent("cache.sqlite")),
                                      ledger: ledger)
        return Rig(yelpFake: yelpFake, googleFake: googleFake, pipeline: pipeline, ledger: ledger)
    }

    static func request() -> LookupRequest {
        LookupRequest(query: MatchQuery(name: "Blue Bottle Coffee", near: blueBottle))
    }

    @Test("Yelp's good match is accepted and Google gets no request")
    func cheapAccept() async throws {
        let rig = try await Self.rig()
        defer { Task { await rig.shutdown() } }
        let outcome = try await rig.pipeline.lookup(Self.request())
        #expect(outcome.isAccepted && outcome.place?.id.provider == "yelp")
        #expect(rig.yelpFake.requests.count == 1 && rig.googleFake.requests.isEmpty)
    }

    @Test("Yelp knowing nothing costs exactly one Google request; the repeat reaches neither fake")
    func costlyFallbackThenCacheHit() async throws {
        let rig = try await Self.rig(yelp: Self.emptyYelp)
        defer { Task { await rig.shutdown() } }
        let first = try await rig.pipeline.lookup(Self.request())
        #expect(first.isAccepted && first.place?.id.provider == "google")
        #expect(rig.googleFake.requests.count == 1)
        #expect(first.cost > .zero)
        let second = try await rig.pipeline.lookup(Self.request())
        #expect(second.cache == .hit)
        #expect(rig.googleFake.requests.count == 1 && rig.yelpFake.requests.count == 1)
    }

    @Test("with Google's budget spent, Google gets no request and the answer is flagged")
    func budgetExhausted() async throws {
        let rig = try await Self.rig(yelp: Self.emptyYelp,
                                     budget: BudgetPolicy(providers: ["google": BudgetLimits(perDay: .zero)]))
        defer { Task { await rig.shutdown() } }
        let outcome = try await rig.pipeline.lookup(Self.request())
        #expect(outcome.budgetExhausted && outcome.place == nil)
        #expect(rig.googleFake.requests.isEmpty)
    }

    @Test("a Google 503 is refunded and not cached; the next lookup asks again")
    func upstreamErrorRefunded() async throws {
        let rig = try await Self.rig(yelp: Self.emptyYelp)
        defer { Task { await rig.shutdown() } }
        rig.googleFake.enqueue(.serverError(503))
        let failed = try await rig.pipeline.lookup(Self.request())
        #expect(failed.place == nil && !failed.errors.isEmpty)
        // Yelp answered (and is billed); Google failed with a 503, which it does not bill.
        let report = try await rig.ledger.report()
        #expect(report.providers.first { $0.provider == "google" }?.today.spent == .zero)
        #expect(report.providers.first { $0.provider == "yelp" }?.today.calls == 1)
        let retried = try await rig.pipeline.lookup(Self.request())
        #expect(retried.isAccepted && retried.cache == .miss)
    }
}
