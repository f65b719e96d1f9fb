import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PlacesMatching
import PlacesPipeline
import ScratchDirectory

/// An in-process provider that answers from a fixed list, counts its calls and can be told to fail.
final class CountingProvider: PlaceProvider, @unchecked Sendable {
    let name: String
    let capabilities: ProviderCapabilities = [.textSearch, .match]
    let cacheTerms: CacheTerms
    let pricePerCall: MicroDollars
    private let lock = NSLock()
    private var places: [Place]
    private var failure: ProviderError?
    private var callCount = 0
    /// Answers every question with all its places, as an index that forgives a slip returns the place typed
    /// one letter off; otherwise only the places whose name holds the first word typed.
    private let answersEveryName: Bool

    init(name: String, pricePerCall: MicroDollars = .zero, cacheTerms: CacheTerms = .unlimited, places: [Place] = [],
         answersEveryName: Bool = false) {
        self.name = name
        self.answersEveryName = answersEveryName
        self.pricePerCall = pricePerCall
        self.cacheTerms = cacheTerms
        self.places = places
    }

    var calls: Int { lock.withLock { callCount } }
    func fail(with error: ProviderError?) { lock.withLock { failure = error } }
    func answer(_ places: [Place]) { lock.withLock { self.places = places } }

    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        pricePerCall == .zero ? .free : PriceQuote(sku: "\(name).match", cost: pricePerCall)
    }

    func match(_ query: MatchQuery) async throws -> [Place] {
        let (places, failure) = lock.withLock { () -> ([Place], ProviderError?) in
            callCount += 1
            return (self.places, self.failure)
        }
        await Task.yield()
        if let failure { throw failure }
        let folded = TextFolding.fold(query.name)
        return places.filter { answersEveryName || TextFolding.fold($0.name).contains(folded.split(separator: " ").first.map(String.init) ?? folded) }
            .map { $0.attributed(to: name, at: Date(timeIntervalSince1970: 1_790_000_000)) }
    }
}

final class PipelineClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_790_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

let maya = Coordinate(latitude: 60.1721, longitude: 24.9450)

/// The same bar as three providers describe it: the local index has no phone or hours, the paid one has both.
func mayaLocal() -> Place {
    Place(id: PlaceID(provider: "osm", nativeID: "node/101"), name: "Maya Bar & Grill", coordinate: maya,
          formattedAddress: "Annankatu 1, Helsinki", categories: ["amenity=bar"], category: "bar",
          attribution: "© OpenStreetMap contributors")
}

func mayaCheap() -> Place {
    Place(id: PlaceID(provider: "yelp", nativeID: "maya-bar-grill-helsinki"), name: "Maya Bar & Grill",
          coordinate: Coordinate(latitude: 60.17212, longitude: 24.94505), formattedAddress: "Annankatu 1, 00120 Helsinki",
          phone: "+358912345678", categories: ["bars"], category: "bar")
}

func mayaCostly() -> Place {
    Place(id: PlaceID(provider: "google", nativeID: "ChIJmaya"), name: "Maya Bar & Grill",
          coordinate: Coordinate(latitude: 60.17211, longitude: 24.94502), formattedAddress: "Annankatu 1, 00120 Helsinki, Finland",
          phone: "+358912345679", website: "https://maya.example", categories: ["bar"], category: "bar",
          openingHoursText: "Mo-Su 16:00-02:00")
}

/// A different business with a similar first word, two kilometres away: a poor candidate.
func mayaElsewhere() -> Place {
    Place(id: PlaceID(provider: "yelp", nativeID: "maya-hair-studio"), name: "Maya Hair Studio",
          coordinate: Coordinate(latitude: 60.19, longitude: 24.96), categories: ["hair"], category: "hairdresser")
}

struct PipelineRig {
    let local: CountingProvider
    let cheap: CountingProvider
    let costly: CountingProvider
    let clock = PipelineClock()
    let cache: any LookupCacheStore
    let ledger: any BudgetLedger
    let pipeline: LookupPipeline

    init(local: [Place] = [], cheap: [Place] = [], costly: [Place] = [mayaCostly()],
         budget: BudgetPolicy = BudgetPolicy(), cachePath: URL? = nil,
         wrapCache: (any LookupCacheStore) -> any LookupCacheStore = { $0 }, hitFront: CacheHitFront<LookupOutcome>? = nil) throws {
        self.local = CountingProvider(name: "local", places: local)
        self.cheap = CountingProvider(name: "yelp", pricePerCall: .zero,
                                      cacheTerms: CacheTerms(ids: nil, coordinates: nil, content: 86_400), places: cheap)
        self.costly = CountingProvider(name: "google", pricePerCall: .perThousand(dollars: 35),
                                       cacheTerms: CacheTerms(ids: nil, coordinates: 30 * 86_400, content: 3 * 86_400),
                                       places: costly)
        let directory = try ScratchDirectory.lastingTheProcess("places-pipeline").url
        let clock = self.clock
        cache = wrapCache(try SQLiteLookupCacheStore(path: cachePath ?? directory.appendingPathComponent("cache.sqlite"), clock: { clock.now }))
        ledger = try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"), policy: budget, clock: { clock.now })
        pipeline = LookupPipeline(providers: [self.costly, self.local, self.cheap],
                                  scorer: MatcherScorer(matcher: PlaceMatcher()), cache: cache, ledger: ledger,
                                  policy: LookupPolicy(answerTTL: 7 * 86_400, negativeTTL: 3_600), hitFront: hitFront,
                                  clock: { clock.now })
    }

    var upstreamCalls: Int { local.calls + cheap.calls + costly.calls }

    func lookup(_ name: String = "Maya Bar & Grill", near: Coordinate? = maya, fields: Set<PlaceField> = PlaceField.defaultSet,
                maxCost: MicroDollars? = nil, offline: Bool = false) async throws -> LookupOutcome {
        try await pipeline.lookup(LookupRequest(query: MatchQuery(name: name, near: near, fields: fields),
                                                maxCost: maxCost, offline: offline))
    }
}

let serverError = ProviderError(provider: "google", kind: .server, message: "503 UNAVAILABLE after 2 retries", httpStatus: 503)
