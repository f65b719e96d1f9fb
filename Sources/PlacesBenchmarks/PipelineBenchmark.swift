import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PlacesMatching
import PlacesPipeline

/// `places-bench pipeline [lookups] [places] [accept-threshold]`: replays a realistic lookup workload through the
/// real pipeline (real matcher, real SQLite cache and ledger) against in-process fake providers,
/// and compares what it spends with two baselines run on the same workload.
///
/// The world: `places` distinct places in Helsinki with generated names. The cheap source (free,
/// like the local index) knows 80 % of them; for the rest it returns the nearest other business (a
/// different name) 60 m away, which must not be accepted. The costly source (priced like Google Text
/// Search Enterprise, $35 / 1,000) knows every place. Lookups repeat with a Zipf-like law (s = 1).
enum PipelineBenchmark {
    static func run(arguments: [String]) async throws {
        let lookups = arguments.first.flatMap(Int.init) ?? 10_000
        let placeCount = arguments.dropFirst().first.flatMap(Int.init) ?? 2_000
        let accept = arguments.dropFirst(2).first.flatMap(Double.init) ?? MatchThresholds.default.accept
        let scorer = MatcherScorer(matcher: PlaceMatcher(thresholds: MatchThresholds(accept: accept)))
        let world = PipelineBenchWorld(placeCount: placeCount, cheapShare: 0.8)
        let workload = world.zipfWorkload(lookups: lookups, exponent: 1.0)
        let price = MicroDollars.perThousand(dollars: 35)
        print("pipeline.lookups \(lookups) count")
        print("pipeline.distinct_places \(placeCount) count")
        print("pipeline.accept_threshold \(accept) score")
        print("pipeline.distinct_places_asked \(Set(workload.map(\.truth)).count) count")

        let always = try await replay("always_costly", world: world, workload: workload, price: price, scorer: scorer,
                                      useCheap: false, useCache: false)
        let noCache = try await replay("cheap_first_no_cache", world: world, workload: workload, price: price, scorer: scorer,
                                       useCheap: true, useCache: false)
        let full = try await replay("pipeline", world: world, workload: workload, price: price, scorer: scorer,
                                    useCheap: true, useCache: true)
        let saving = 1 - Double(full.spent.value) / Double(max(1, always.spent.value))
        print(String(format: "pipeline.saving_vs_always_costly %.2f %%", saving * 100))
        print(String(format: "pipeline.saving_vs_cheap_first_no_cache %.2f %%",
                     (1 - Double(full.spent.value) / Double(max(1, noCache.spent.value))) * 100))
        print("pipeline.target_95_percent_saving \(saving >= 0.95 ? "met" : "missed")")

        // Cache-hit latency: every distinct question is cached now; ask them again in-process.
        let (pipeline, directory) = try makePipeline(world: world, price: price, scorer: scorer, useCheap: true, useCache: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for item in workload.prefix(2_000) { _ = try await pipeline.lookup(item.request) }
        var nanos: [UInt64] = []
        nanos.reserveCapacity(lookups)
        let clock = ContinuousClock()
        for item in workload {
            let start = clock.now
            let outcome = try await pipeline.lookup(item.request)
            let elapsed = clock.now - start
            if outcome.cache == .hit {
                nanos.append(UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000))
            }
        }
        let micros = nanos.sorted().map { Double($0) / 1_000 }
        print("pipeline.cache_hit_samples \(micros.count) count")
        print(String(format: "pipeline.cache_hit_p50 %.1f us", percentile(micros, 50)))
        print(String(format: "pipeline.cache_hit_p99 %.1f us", percentile(micros, 99)))
        print("pipeline.target_p50_under_200us \(percentile(micros, 50) < 200 ? "met" : "missed")")
    }

    struct ReplayResult {
        var paidCalls: Int
        var spent: MicroDollars
    }

    private static func replay(_ label: String, world: PipelineBenchWorld, workload: [PipelineBenchLookup], price: MicroDollars,
                               scorer: any CandidateScorer, useCheap: Bool, useCache: Bool) async throws -> ReplayResult {
        let (pipeline, directory) = try makePipeline(world: world, price: price, scorer: scorer, useCheap: useCheap,
                                                     useCache: useCache)
        defer { try? FileManager.default.removeItem(at: directory) }
        var spent = MicroDollars.zero
        var paidCalls = 0
        var accepted = 0
        var wrong = 0
        var cacheHits = 0
        let started = ContinuousClock.now
        for item in workload {
            let outcome = try await pipeline.lookup(item.request)
            spent = spent + outcome.cost
            paidCalls += outcome.calls["costly", default: 0]
            if outcome.cache == .hit { cacheHits += 1 }
            if outcome.isAccepted {
                accepted += 1
                if outcome.place.map(world.truth(of:)) != item.truth {
                    wrong += 1
                    if wrong <= 3 {
                        let got = outcome.place.map { "\($0.name) (\($0.id))" } ?? "-"
                        FileHandle.standardError.write(Data("\(label): wrong match for \(item.request.query.name): \(got), score \(outcome.match?.score ?? 0)\n".utf8))
                    }
                }
            }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let perThousand = 1_000 / Double(workload.count)
        print("\(label).paid_calls \(paidCalls) count")
        print(String(format: "%@.paid_calls_per_1000 %.1f count", label, Double(paidCalls) * perThousand))
        print(String(format: "%@.dollars_per_1000 %.4f USD", label, spent.dollars * perThousand))
        print("\(label).accepted \(accepted) count")
        print("\(label).accepted_wrong \(wrong) count")
        print("\(label).cache_hits \(cacheHits) count")
        print(String(format: "%@.lookups_per_second %.0f 1/s", label, Double(workload.count) / seconds))
        return ReplayResult(paidCalls: paidCalls, spent: spent)
    }

    private static func makePipeline(world: PipelineBenchWorld, price: MicroDollars, scorer: any CandidateScorer, useCheap: Bool,
                                     useCache: Bool) throws -> (LookupPipeline, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-pipeline-\(UUID().uuidString)")
        let cache = useCache ? try LookupCacheStore(path: directory.appendingPathComponent("cache.sqlite")) : nil
        let ledger = try BudgetLedger(path: directory.appendingPathComponent("budget.sqlite"))
        var providers: [any PlaceProvider] = [PipelineBenchProvider(name: "costly", price: price, world: world, knowsAll: true)]
        if useCheap { providers.insert(PipelineBenchProvider(name: "cheap", price: .zero, world: world, knowsAll: false), at: 0) }
        let pipeline = LookupPipeline(providers: providers, scorer: scorer,
                                      cache: cache, ledger: ledger,
                                      policy: LookupPolicy(offlineProviders: ["cheap"]))
        return (pipeline, directory)
    }
}

struct PipelineBenchLookup: Sendable {
    var request: LookupRequest
    var truth: Int
}

/// Generated places with known identities, so every accepted answer can be checked against the truth.
struct PipelineBenchWorld: Sendable {
    let places: [Place]
    let cheapKnows: [Bool]
    let indexByName: [String: Int]

    init(placeCount: Int, cheapShare: Double) {
        let first = ["Aalto", "Helmi", "Kuu", "Lumi", "Meri", "Sisu", "Tähti", "Kivi", "Ranta", "Puisto", "Satama",
                     "Kaari", "Linna", "Torni", "Silta", "Vihreä", "Sininen", "Punainen", "Kultainen", "Hopea",
                     "Pohjola", "Karhu", "Kettu", "Ilves", "Joutsen", "Lokki", "Kuusi", "Koivu", "Tammi", "Vaahtera",
                     "Maya", "Luna", "Nova", "Bella", "Roma", "Oslo", "Riga", "Tallinn", "Nordic", "Baltic"]
        let second = ["Bar", "Café", "Bistro", "Grill", "Kitchen", "Deli", "Bakery", "Books", "Studio", "Pharmacy",
                      "Market", "Garden", "Lounge", "Pizzeria", "Sushi", "Tavern", "Gallery", "Salon", "Florist", "Records"]
        let third = ["", " Helsinki", " Kamppi", " Kallio", " Töölö", " Punavuori", " Eira", " Vallila"]
        var generator = SplitMix64(seed: 42)
        var places: [Place] = []
        var cheap: [Bool] = []
        var index: [String: Int] = [:]
        var i = 0
        outer: for c in third {
            for b in second {
                for a in first {
                    guard i < placeCount else { break outer }
                    let name = "\(a) \(b)\(c)"
                    let coordinate = Coordinate(latitude: 60.15 + generator.unit() * 0.06, longitude: 24.88 + generator.unit() * 0.12)
                    places.append(Place(id: PlaceID(provider: "truth", nativeID: String(i)), name: name, coordinate: coordinate,
                                        phone: String(format: "+3589%07d", i), category: b.lowercased()))
                    cheap.append(generator.unit() < cheapShare)
                    index[TextFolding.fold(name)] = i
                    i += 1
                }
            }
        }
        self.places = places
        cheapKnows = cheap
        indexByName = index
    }

    /// The generated place an answer really is; decoys are nobody (-1).
    func truth(of place: Place) -> Int {
        place.id.nativeID.contains("decoy") ? -1 : Int(place.id.nativeID.split(separator: "-").last ?? "") ?? -1
    }

    /// Lookups whose place ranks follow a Zipf law: the k-th most popular place is asked ~1/k^s as often.
    func zipfWorkload(lookups: Int, exponent: Double) -> [PipelineBenchLookup] {
        var generator = SplitMix64(seed: 7)
        var order = Array(places.indices)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(generator.next() % UInt64(i + 1))) }
        let weights = (1...places.count).map { 1 / pow(Double($0), exponent) }
        var cumulative: [Double] = []
        var total = 0.0
        for w in weights { total += w; cumulative.append(total) }
        return (0..<lookups).map { _ in
            let u = generator.unit() * total
            var lo = 0, hi = cumulative.count - 1
            while lo < hi { let mid = (lo + hi) / 2; if cumulative[mid] < u { lo = mid + 1 } else { hi = mid } }
            let truth = order[lo]
            let place = places[truth]
            // The user is standing within a few metres of the place (same 100 m cache cell most of the time).
            let near = Coordinate(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude)
            let query = MatchQuery(name: place.name, near: near, fields: [.id, .name, .coordinate, .phone])
            return PipelineBenchLookup(request: LookupRequest(query: query), truth: truth)
        }
    }
}

/// A fake provider over the generated world: `knowsAll` answers every place; otherwise it knows
/// its share and answers the rest with a decoy: another generated business, moved 60 m from the one asked for.
struct PipelineBenchProvider: PlaceProvider {
    let name: String
    let price: MicroDollars
    let world: PipelineBenchWorld
    let knowsAll: Bool
    var capabilities: ProviderCapabilities { [.match] }
    var cacheTerms: CacheTerms { .unlimited }

    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        price == .zero ? .free : PriceQuote(sku: "\(name).search", cost: price)
    }

    func match(_ query: MatchQuery) async throws -> [Place] {
        guard let i = world.indexByName[TextFolding.fold(query.name)] else { return [] }
        var place = world.places[i]
        place.id = PlaceID(provider: name, nativeID: "\(name)-\(i)")
        if knowsAll || world.cheapKnows[i] { return [place] }
        // The nearest other business of the same kind: what a cheap source that lacks the place finds.
        let other = world.places[(i + 7) % world.places.count]
        place.id = PlaceID(provider: name, nativeID: "\(name)-decoy-\(i)")
        place.name = other.name
        place.phone = other.phone
        place.coordinate = Coordinate(latitude: place.coordinate.latitude + 0.00055, longitude: place.coordinate.longitude)
        return [place]
    }
}
