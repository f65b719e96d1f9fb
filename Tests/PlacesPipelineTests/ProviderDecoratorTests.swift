import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PlacesPipeline
import ScratchDirectory
import Testing

/// A provider that answers searches with one place, counts its calls and can be told to fail.
final class SearchingProvider: PlaceProvider, @unchecked Sendable {
    let name: String
    let capabilities: ProviderCapabilities = [.textSearch]
    let cacheTerms: CacheTerms
    let pricePerCall: MicroDollars
    private let lock = NSLock()
    private var failure: ProviderError?
    private var callCount = 0

    init(name: String = "google", pricePerCall: MicroDollars, cacheTerms: CacheTerms) {
        self.name = name
        self.pricePerCall = pricePerCall
        self.cacheTerms = cacheTerms
    }

    var calls: Int { lock.withLock { callCount } }
    func fail(with error: ProviderError?) { lock.withLock { failure = error } }

    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        PriceQuote(sku: "\(name).search", cost: pricePerCall)
    }

    func search(_ query: SearchQuery) async throws -> [Place] {
        let failure = lock.withLock { () -> ProviderError? in
            callCount += 1
            return self.failure
        }
        if let failure { throw failure }
        return [mayaCostly()]
    }
}

/// The wrappers the provider factory puts around every network provider: metering in the ledger and a
/// cache that follows the provider's terms.
@Suite struct ProviderDecoratorTests {
    let clock = PipelineClock()
    let directory = try! ScratchDirectory.lastingTheProcess("places-decorators").url
    let query = SearchQuery(text: "Maya Bar & Grill", near: maya)
    static let price = MicroDollars.perThousand(dollars: 32)

    func stores(_ budget: BudgetPolicy = BudgetPolicy()) throws -> (any LookupCacheStore, any BudgetLedger) {
        let clock = clock
        return (try SQLiteLookupCacheStore(path: directory.appendingPathComponent("cache.sqlite"), clock: { clock.now }),
                try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"), policy: budget, clock: { clock.now }))
    }

    @Test func anAnswerIsSettledAndAFailureTheProviderDoesNotBillIsRefunded() async throws {
        let (_, ledger) = try stores()
        let upstream = SearchingProvider(pricePerCall: Self.price, cacheTerms: .unlimited)
        let metered = MeteredProvider(upstream, ledger: ledger)
        _ = try await metered.search(query)
        upstream.fail(with: serverError)
        await #expect(throws: ProviderError.self) { try await metered.search(query) }
        upstream.fail(with: ProviderError(provider: "google", kind: .malformedResponse, message: "not JSON"))
        await #expect(throws: ProviderError.self) { try await metered.search(query) }
        let google = try #require(try await ledger.report().providers.first { $0.provider == "google" })
        // The answer and the malformed (billed) reply stay charged; the 503 was refunded.
        #expect(upstream.calls == 3)
        #expect(google.today.calls == 2)
        #expect(google.today.spent == Self.price + Self.price)
    }

    @Test func aCallTheBudgetRefusesIsNeverSent() async throws {
        let (_, ledger) = try stores(BudgetPolicy(providers: ["google": BudgetLimits(perDay: MicroDollars.perThousand(dollars: 50))]))
        let upstream = SearchingProvider(pricePerCall: Self.price, cacheTerms: .unlimited)
        let metered = MeteredProvider(upstream, ledger: ledger)
        _ = try await metered.search(query)
        await #expect(throws: BudgetDenied.self) { try await metered.search(query) }
        #expect(upstream.calls == 1)
    }

    @Test func aRepeatWithinTheProviderTermsIsServedFromTheCacheAndCostsNothing() async throws {
        let (cache, ledger) = try stores()
        let upstream = SearchingProvider(pricePerCall: Self.price, cacheTerms: CacheTerms(ids: nil, coordinates: nil, content: 86_400))
        let clock = clock
        let provider = CachingProvider(MeteredProvider(upstream, ledger: ledger), cache: cache, grid: CoordinateGrid(meters: 100),
                                       longest: 7 * 86_400, clock: { clock.now })
        let first = try await provider.search(query)
        let second = try await provider.search(query)
        #expect(second == first)
        #expect(upstream.calls == 1)
        clock.advance(86_401)  // past the provider's one day for content
        _ = try await provider.search(query)
        #expect(upstream.calls == 2)
        // Both paid calls in this month's spend (the second on the next day).
        #expect(try await ledger.report().providers.first { $0.provider == "google" }?.month.spent == Self.price + Self.price)
    }

    @Test func termsThatAllowNoCachingAreObeyed() async throws {
        let (cache, ledger) = try stores()
        // Foursquare's terms: nothing but ids may be kept.
        let upstream = SearchingProvider(name: "foursquare", pricePerCall: Self.price,
                                         cacheTerms: CacheTerms(ids: nil, coordinates: 0, content: 0))
        let provider = CachingProvider(MeteredProvider(upstream, ledger: ledger), cache: cache, grid: CoordinateGrid(meters: 100),
                                       longest: 7 * 86_400)
        _ = try await provider.search(query)
        _ = try await provider.search(query)
        #expect(upstream.calls == 2)
        #expect(try await cache.stats().entries == 0)
    }
}
