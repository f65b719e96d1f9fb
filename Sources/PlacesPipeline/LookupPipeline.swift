import BudgetLedger
import Foundation
import LookupCache
import PlacesCore

/// The lookup policy: what `[pipeline]` and `[cache]` in config.toml decide.
public struct LookupPolicy: Sendable {
    /// Coordinates in cache keys are snapped to this grid, so nearby repeats hit.
    public var grid: CoordinateGrid
    /// The longest an answer is cached; each entry gets the shorter of this and its providers' terms.
    public var answerTTL: TimeInterval
    /// How long "no such place" is remembered.
    public var negativeTTL: TimeInterval
    /// Providers `--offline` may use (the local index).
    public var offlineProviders: Set<String>
    public var merger: PlaceMerger
    /// `[pipeline] pay_when_ambiguous`: every lookup pays for an ambiguous question as if it asked to
    /// (``LookupRequest/payWhenAmbiguous``).
    public var payWhenAmbiguous: Bool
    /// Before paying for a question whose one cheap candidate is in doubt only because of the words typed, ask
    /// the paid provider's free id probe whether those words fit one place only, and it (``IDProbe``).
    public var freeProbes: Bool
    /// Metres either side of the point that the probe's square reaches when every word typed is a word of the
    /// candidate's name ("Mito" for "Mito Bistro"), the matcher found the names may be one (`review`), and the
    /// candidate is inside it: the matcher's farthest match for a name alone
    /// (``PlacesMatching/MatchThresholds/maxDistance``, 150 m). A place farther off is accepted from the paid
    /// answer only as an exact name no other candidate shares, and the cheap candidate, which the paid source
    /// knows too, shares the words; so any place the paid answer could make the answer lies inside. A wider
    /// square would only add places the words do not mean (one-letter neighbours of a short name).
    public var probeHalfSide: Double
    /// The same for other words (a slip, a word cut short) or a candidate farther off: as far as the matcher accepts an exact name no
    /// other candidate shares (``PlacesMatching/MatchThresholds/uniqueNameDistance``, 1 km), since a place
    /// named exactly as typed 400 m away would be the paid answer, and the cheap candidate does not share
    /// its name.
    public var probeHalfSideForOtherWords: Double

    public init(grid: CoordinateGrid = CoordinateGrid(meters: 100), answerTTL: TimeInterval = 7 * 86_400,
                negativeTTL: TimeInterval = 6 * 3_600, offlineProviders: Set<String> = ["local"],
                merger: PlaceMerger = PlaceMerger(), payWhenAmbiguous: Bool = false, freeProbes: Bool = true,
                probeHalfSide: Double = 150, probeHalfSideForOtherWords: Double = 1_000) {
        self.payWhenAmbiguous = payWhenAmbiguous
        self.freeProbes = freeProbes
        self.probeHalfSide = probeHalfSide
        self.probeHalfSideForOtherWords = probeHalfSideForOtherWords
        self.grid = grid
        self.answerTTL = answerTTL
        self.negativeTTL = negativeTTL
        self.offlineProviders = offlineProviders
        self.merger = merger
    }
}

/// Cheap first, fuzzy-checked, costly fallback under a budget, behind a TTL cache.
///
/// The pipeline orders the chain, scores, merges and decides; money is not its business. Providers are
/// tried in increasing price for the requested fields (the configured chain order breaks ties). Each
/// answer's candidates are scored against the question; a confident `match` that carries every requested
/// field ends the lookup. Every paid call goes through a ``MeteredProvider`` (the provider factory wraps
/// network providers in one), which reserves in the ``BudgetLedger`` first and refunds a failure that is
/// not billed; a call the budget denies ends that provider's turn. Concurrent identical lookups in one
/// process share one run. Before a paid call, a cheap candidate in doubt only because of the words typed is
/// put to the paid provider's free id probe when it has one (``IDProbe``).
///
/// ```swift
/// let pipeline = LookupPipeline(providers: [local, yelp, google], scorer: MatcherScorer(matcher: matcher),
///                               cache: cache, ledger: ledger)
/// let outcome = try await pipeline.lookup(LookupRequest(query: MatchQuery(name: "Maya Bar", near: here,
///                                                                         fields: [.phone, .hours])))
/// ```
public final class LookupPipeline: Sendable {
    public let providers: [any PlaceProvider]
    public let scorer: any CandidateScorer
    public let cache: (any LookupCacheStore)?
    public let policy: LookupPolicy
    private let clock: @Sendable () -> Date
    private let flights = SingleFlight<LookupOutcome>()
    /// Decoded cache-hit payloads, so a repeated hit skips `JSONDecoder` (see ``DecodedPayloadMemo``).
    private let decodedHits = DecodedPayloadMemo<CachedLookup>()
    /// The server's in-process front of the cache (``CacheHitFront``): repeated hits answered without a store read.
    public let hitFront: CacheHitFront<LookupOutcome>?

    /// - Parameter ledger: when given, each provider not already metered is wrapped in a ``MeteredProvider``
    ///   on it (tests and benchmarks build providers by hand; the application's providers come metered).
    /// - Parameter hitFront: remembers cache hits in memory while the store's change stamp stays the same
    ///   (`places serve` only; it needs a store with a ``LookupCacheStore/changeStamp()``).
    public init(providers: [any PlaceProvider], scorer: any CandidateScorer, cache: (any LookupCacheStore)?,
                ledger: (any BudgetLedger)?, policy: LookupPolicy = LookupPolicy(), hitFront: CacheHitFront<LookupOutcome>? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.hitFront = cache == nil ? nil : hitFront
        self.providers = providers.map { provider in
            guard let ledger, meteringLayer(of: provider) == nil else { return provider }
            return MeteredProvider(provider, ledger: ledger)
        }
        self.scorer = scorer
        self.cache = cache
        self.policy = policy
        self.clock = clock
    }

    /// Asks `provider` for candidates, through its metering layer when it has one (then the charge is what
    /// the ledger recorded); an unmetered provider is charged its quote.
    static func match(_ query: MatchQuery, on provider: any PlaceProvider) async throws -> Charged<[Place]> {
        if let metered = meteringLayer(of: provider) {
            return try await metered.charged(.match, fields: query.fields) { try await $0.match(query) }
        }
        let quote = provider.price(of: .match, fields: query.fields)
        return Charged(value: try await provider.match(query),
                       charge: Charge(quote: quote, cost: quote.cost, coveredByFreeAllowance: false))
    }

    /// The cache key of a request: the canonical question with its coordinates on the grid.
    public func cacheKey(_ request: LookupRequest) -> String {
        let required = request.requiredFields == request.query.fields
            ? "" : "|req=" + request.requiredFields.sorted().map(\.rawValue).joined(separator: ",")
        return "lookup|" + request.query.canonicalForm(grid: policy.grid) + required
            + (paysWhenAmbiguous(request) ? "|pay-ambiguous" : "")
    }

    /// A fresh cache hit for `key`: from the server's in-memory front while the store's change stamp holds, else
    /// from the store (and then remembered by the front). The stamp is read before the store: a write landing after
    /// it changes the stamp, so what the read returns is never trusted past that write. A hit the front answered or
    /// remembered comes with its ``CacheHitLease``.
    private func freshHit(_ key: String, in cache: any LookupCacheStore) async throws -> (LookupOutcome, CacheHitLease?)? {
        guard let hitFront else {
            guard let entry = try await cache.entry(for: key), let hit = hitOutcome(entry, key: key) else { return nil }
            return (hit, nil)
        }
        let stamp = cache.changeStamp()
        let asked = clock()
        if let remembered = hitFront.answer(for: key, stamp: stamp, now: asked) {
            return (remembered.value, lease(remembered.stamp, until: remembered.expiresAt, now: asked, cache: cache))
        }
        guard let entry = try await cache.entry(for: key), let hit = hitOutcome(entry, key: key) else { return nil }
        let now = clock()
        let remembered = hitFront.remember(hit, for: key, stamp: stamp, expiresAt: entry.expiresAt, now: now)
        return (hit, remembered.map { lease($0.stamp, until: $0.expiresAt, now: now, cache: cache) })
    }

    private func lease(_ stamp: UInt64, until expiry: Date, now: Date, cache: any LookupCacheStore) -> CacheHitLease {
        CacheHitLease(stamp: stamp, lifetime: expiry.timeIntervalSince(now), currentStamp: { cache.changeStamp() },
                      repeated: { PipelineMetrics.lookupCacheHits.increment() })
    }

    public func lookup(_ request: LookupRequest) async throws -> LookupOutcome {
        try await leasedLookup(request).outcome
    }

    /// ``lookup(_:)``, with the lease of a cache hit the server's front answered or remembered (`nil` for anything
    /// else: a miss, a shared flight, a process without a front), for `places serve` to repeat the reply it builds.
    public func leasedLookup(_ request: LookupRequest) async throws -> (outcome: LookupOutcome, lease: CacheHitLease?) {
        // Fast path: a fresh hit needs neither the single-flight table nor a task.
        let key = cacheKey(request)
        if let cache, let hit = try await freshHit(key, in: cache) {
            PipelineMetrics.lookupCacheHits.increment()
            return hit
        }
        let flightKey = key + "|max=\(request.maxCost?.value ?? -1)|offline=\(request.offline)"
        let (outcome, leader) = try await flights.run(flightKey) { [self] in
            // Across processes sharing the cache, one fills the key and the others find its answer (run re-reads).
            guard let cache else { return try await run(request) }
            return try await cache.withFillLock(key: key, timeout: Self.fillLockTimeout) { try await self.run(request) }
        }
        if cache != nil {
            // Once per lookup, followers of a shared flight included: hits and misses add up to the lookups.
            if outcome.stopReason == .cacheHit { PipelineMetrics.lookupCacheHits.increment() } else {
                PipelineMetrics.lookupCacheMisses.increment()
            }
        }
        guard !leader else { return (outcome, nil) }
        var shared = outcome
        shared.coalesced = true
        shared.cost = .zero
        shared.calls = [:]
        shared.probes = [:]
        return (shared, nil)
    }

    /// How long a lookup may wait for another process filling the same key, plus its own run: a few provider
    /// calls, each bounded by its timeout and retries.
    static let fillLockTimeout: Duration = .seconds(120)

    /// Whether paid providers are asked for an ambiguous question: the request or the policy says so.
    func paysWhenAmbiguous(_ request: LookupRequest) -> Bool { request.payWhenAmbiguous || policy.payWhenAmbiguous }

    /// The providers a request may use, cheapest first for its fields.
    public func chain(for request: LookupRequest) -> [(provider: any PlaceProvider, quote: PriceQuote)] {
        providers.enumerated()
            .filter { !request.offline || policy.offlineProviders.contains($0.element.name) }
            .filter { $0.element.capabilities.supports(.match) }
            .map { (offset: $0.offset, provider: $0.element, quote: $0.element.price(of: .match, fields: request.query.fields)) }
            .sorted { ($0.quote.cost, $0.offset) < ($1.quote.cost, $1.offset) }
            .map { ($0.provider, $0.quote) }
    }

    private func run(_ request: LookupRequest) async throws -> LookupOutcome {
        let query = request.query
        let key = cacheKey(request)
        var steps: [LookupStep] = []
        var staleEntry: CachedEntry?

        // Checked again inside the flight: an identical lookup may have just stored the answer.
        if let cache, let entry = try await cache.entry(for: key) {
            if let hit = hitOutcome(entry, key: key) { return hit }
            staleEntry = entry
            steps.append(LookupStep(.cache, "expired \(iso(entry.expiresAt)); kept for stale-if-error"))
        } else {
            steps.append(LookupStep(.cache, cache == nil ? "disabled" : "miss"))
        }

        var matched: [Place] = []
        var bestMatchScore: CandidateScore?
        var bestOther: (place: Place, score: CandidateScore, provider: String)?
        var firstMatchedBy: String?
        var spent = MicroDollars.zero
        var calls: [String: Int] = [:]
        var failures: [ProviderFailure] = []
        var budgetNote: String?
        var stopReason = StopReason.chainExhausted
        var merged: Place?
        var ambiguity: (places: [Place], score: CandidateScore, provider: String)?
        // A chain's branches named as typed, none near enough (``CandidateScore/branchBeyondReach``): the answer
        // when no source answers better.
        var branches: (places: [Place], score: CandidateScore, provider: String)?
        // The one cheap candidate a free probe may settle (``IDProbe/candidate``), found once.
        var probeCandidate: IDProbe.Candidate?
        var probeTried = false
        var probes: [String: Int] = [:]

        if request.offline {
            steps.append(LookupStep(.skipped, "offline: only the cache and \(policy.offlineProviders.sorted().joined(separator: ", "))"))
        }
        for (provider, quote) in chain(for: request) {
            if let ambiguity, quote.cost > .zero, !paysWhenAmbiguous(request) {
                let names = ambiguity.places.map(\.name).joined(separator: ", ")
                steps.append(LookupStep(.skipped, provider: provider.name,
                                        "ambiguous: \(names) fit the question equally; a paid answer would be a guess (pay_when_ambiguous is off)"))
                stopReason = .ambiguous
                break
            }
            if quote.cost > .zero, !probeTried, matched.isEmpty, let candidate = probeCandidate, IDProbe.offered(by: provider) {
                probeTried = true
                let finding = try await IDProbe.run(query, candidate: candidate, on: provider,
                                                    halfSide: IDProbe.halfSide(query, candidate, policy: policy),
                                                    nearReach: policy.probeHalfSide, grid: policy.grid, steps: &steps,
                                                    probes: &probes)
                if finding == .nothingFits {
                    bestOther = (candidate.place, candidate.score, candidate.provider)
                    steps.append(LookupStep(.skipped, provider: provider.name,
                                            "not paid: its answer could not be accepted; \(candidate.place.name) stays review"))
                    continue
                }
                if finding == .settled {
                    matched.append(candidate.place)
                    firstMatchedBy = candidate.provider
                    bestMatchScore = candidate.settledScore
                    merged = policy.merger.merge(matched, fetchedAt: clock())
                    steps.append(LookupStep(.accepted, provider: candidate.provider,
                                            "the probe shows \(candidate.place.name) is the only place the words fit; \(provider.name) not paid"))
                    stopReason = .accepted
                    break
                }
            }
            // Per-lookup cap first: it needs no database.
            if quote.cost > .zero, let maxCost = request.maxCost, spent + quote.cost > maxCost {
                let note = "\(provider.name) skipped: a call costs \(quote.cost), the lookup's cap \(maxCost) leaves \(maxCost - spent)"
                budgetNote = budgetNote ?? note
                steps.append(LookupStep(.budgetDenied, provider: provider.name, note, cost: quote.cost))
                continue
            }
            let candidates: [Place]
            let charged: MicroDollars
            var coveredByFreeAllowance = false
            do {
                let answer = try await Self.match(query, on: provider)
                calls[provider.name, default: 0] += 1
                candidates = answer.value
                charged = answer.charge.cost
                coveredByFreeAllowance = answer.charge.coveredByFreeAllowance
                spent = spent + charged
            } catch let unavailable as StorageUnavailable {
                // The shared ledger is unreachable: no call may be made unmetered, and this is no provider's fault.
                throw unavailable
            } catch let denied as BudgetDenied {
                budgetNote = budgetNote ?? denied.description
                steps.append(LookupStep(.budgetDenied, provider: provider.name, denied.denial.description, cost: quote.cost))
                continue
            } catch {
                let failure = error as? MeteredCallFailure
                let underlying = failure?.underlying ?? error
                let billed = failure?.billed ?? ((underlying as? ProviderError)?.wasBilled ?? false)
                let reserved = failure?.reserved ?? quote.cost
                if billed { spent = spent + reserved }
                if let providerError = underlying as? ProviderError, providerError.kind == .unsupported {
                    steps.append(LookupStep(.skipped, provider: provider.name, providerError.message))
                    continue
                }
                calls[provider.name, default: 0] += 1
                let providerFailure = ProviderFailure(provider: provider.name,
                                                      message: (underlying as? ProviderError)?.message ?? "\(underlying)")
                failures.append(providerFailure)
                let ledgerNote = billed ? " (billed)" : failure.map { $0.reserved > .zero ? " (refunded)" : "" } ?? ""
                steps.append(LookupStep(.failed, provider: provider.name, providerFailure.description + ledgerNote,
                                        cost: billed ? reserved : .zero))
                continue
            }

            let scored = zip(candidates, scorer.score(query, candidates: candidates)).map { (place: $0, score: $1) }
                .sorted { $0.score.score > $1.score.score }
            let quoteNote = quote.cost > .zero
                ? "\(quote.sku)" + (coveredByFreeAllowance ? " (free allowance)" : "") : quote.sku
            steps.append(LookupStep(.called, provider: provider.name, "\(candidates.count) candidate(s), \(quoteNote)",
                                    cost: charged, candidates: scored.prefix(5).map { explained($0.place, $0.score, query) }))
            if let best = scored.first(where: { $0.score.verdict == .match }) {
                matched.append(best.place)
                firstMatchedBy = firstMatchedBy ?? provider.name
                if bestMatchScore.map({ best.score.score > $0.score }) ?? true { bestMatchScore = best.score }
                merged = policy.merger.merge(matched, fetchedAt: clock())
                let missing = request.requiredFields.filter { !(merged?.has($0) ?? false) }.sorted()
                if missing.isEmpty {
                    steps.append(LookupStep(.accepted, provider: provider.name,
                                            "confident match with every requested field"))
                    stopReason = .accepted
                    break
                }
                steps.append(LookupStep(.skipped, provider: provider.name,
                                        "match lacks \(missing.map(\.rawValue).joined(separator: ",")); trying the next provider"))
            } else {
                if let best = scored.first, bestOther.map({ best.score.score > $0.score.score }) ?? true {
                    bestOther = (best.place, best.score, provider.name)
                }
                let fitting = scored.filter { $0.score.ambiguous }
                if ambiguity == nil, fitting.count >= 2 {
                    ambiguity = (fitting.map(\.place), fitting[0].score, provider.name)
                }
                let named = scored.filter { $0.score.branchBeyondReach }
                if branches == nil, named.count >= 2 {
                    branches = (named.map(\.place), named[0].score, provider.name)
                }
                if policy.freeProbes, probeCandidate == nil, ambiguity == nil {
                    probeCandidate = IDProbe.candidate(query, scored: scored, provider: provider.name, scorer: scorer,
                                                       required: request.requiredFields, merger: policy.merger, clock: clock)
                }
            }
        }

        let budgetExhausted = budgetNote != nil && stopReason != .accepted
        var outcome = LookupOutcome(
            place: merged, match: merged == nil ? nil : bestMatchScore, cost: spent, cache: .miss,
            budgetExhausted: budgetExhausted, budgetNote: budgetExhausted ? budgetNote : nil, stopReason: stopReason,
            calls: calls, failures: failures, answeredBy: firstMatchedBy, coalesced: false, steps: steps)
        outcome.probes = probes
        if merged == nil, let found = ambiguity ?? branches.flatMap({ branches in
            bestOther.map { $0.score.score > branches.score.score } == true ? nil : branches
        }) {
            outcome.place = found.places[0]
            outcome.match = found.score
            outcome.answeredBy = found.provider
            outcome.ambiguousCandidates = found.places
        } else if merged == nil, let bestOther, bestOther.score.verdict == .review {
            outcome.place = bestOther.place
            outcome.match = bestOther.score
            outcome.answeredBy = bestOther.provider
        }

        if merged == nil, !failures.isEmpty, let staleEntry, staleEntry.kind == .answer,
           let cached = try? JSONDecoder().decode(CachedLookup.self, from: staleEntry.payload) {
            outcome.place = cached.place
            outcome.match = cached.match
            outcome.cache = .stale
            outcome.answeredBy = "cache"
            outcome.stopReason = .staleServed
            outcome.steps.append(LookupStep(.stopped, "every provider failed; serving the expired entry stored \(iso(staleEntry.storedAt)) as stale"))
            return outcome
        }

        try await store(outcome, merged: merged, key: key, failed: !failures.isEmpty,
                  budgetExhausted: budgetExhausted, steps: &outcome.steps)
        outcome.steps.append(LookupStep(.stopped, stopExplanation(outcome)))
        return outcome
    }

    /// The outcome of a fresh entry. Freshness is checked on the entry the store just returned, before the
    /// decoded payload is taken from ``decodedHits``, so an expired entry is never served from the memo.
    private func hitOutcome(_ entry: CachedEntry, key: String) -> LookupOutcome? {
        guard entry.isFresh(at: clock()),
              let cached = decodedHits.value(for: key, payload: entry.payload, decode: {
                  try? JSONDecoder().decode(CachedLookup.self, from: $0)
              }) else { return nil }
        let steps = [
            LookupStep(.cache, "hit (\(entry.kind.rawValue), stored \(iso(entry.storedAt)), expires \(iso(entry.expiresAt)))"),
            LookupStep(.stopped, "served from the cache; no provider called"),
        ]
        return LookupOutcome(place: cached.place, match: cached.match, cost: .zero, cache: .hit, budgetExhausted: false,
                             budgetNote: nil, stopReason: .cacheHit, calls: [:], failures: [],
                             answeredBy: cached.place == nil ? nil : "cache", coalesced: false, steps: steps,
                             ambiguousCandidates: cached.ambiguousCandidates ?? [])
    }

    /// Caches accepted answers, `review` answers and clean "no such place" answers; never errors, never
    /// answers cut short by the budget. A `review` answer is stored as the answer it is (for no longer than
    /// "no such place" would be), so the next identical lookup shows the same place with the same doubt.
    private func store(_ outcome: LookupOutcome, merged: Place?, key: String, failed: Bool,
                       budgetExhausted: Bool, steps: inout [LookupStep]) async throws {
        guard let cache else { return }
        guard !failed else {
            steps.append(LookupStep(.cache, "not stored: a provider failed, and errors are never cached"))
            return
        }
        guard !budgetExhausted else {
            steps.append(LookupStep(.cache, "not stored: the budget cut the lookup short"))
            return
        }
        if let answer = outcome.place {
            // An accepted answer lives as long as its providers' terms allow; a doubtful one no longer
            // than "no such place" would, so a later lookup soon asks again.
            let accepted = merged != nil
            let sources = Set(answer.provenance.values.map(\.provider))
            let contributors = sources.isEmpty ? [answer.id.provider] : sources
            let termsTTL = providers.filter { contributors.contains($0.name) }.compactMap(\.cacheTerms.wholeAnswer).min()
            let ttl = min(accepted ? policy.answerTTL : policy.negativeTTL, termsTTL ?? .infinity)
            let payload = try JSONEncoder().encode(CachedLookup(place: answer, match: outcome.match,
                                                                ambiguousCandidates: outcome.ambiguousCandidates))
            try await cache.store(key: key, kind: .answer, payload: payload, providers: contributors.sorted(), ttl: ttl)
            let what = accepted ? "answer" : "the review answer"
            steps.append(LookupStep(.cache, ttl > 0 ? "stored \(what) for \(Int(ttl)) s" : "not stored: the providers' terms allow no caching"))
        } else {
            let payload = try JSONEncoder().encode(CachedLookup(place: nil, match: nil))
            let asked = outcome.calls.keys.sorted()
            try await cache.store(key: key, kind: .negative, payload: payload, providers: asked, ttl: policy.negativeTTL)
            steps.append(LookupStep(.cache, "stored \"no such place\" for \(Int(policy.negativeTTL)) s"))
        }
    }

    private func stopExplanation(_ outcome: LookupOutcome) -> String {
        switch outcome.stopReason {
        case .accepted: "accepted \(outcome.place?.id.description ?? "?"); spent \(outcome.cost)"
        case .chainExhausted where outcome.budgetExhausted:
            "budget exhausted: returning the best cheap result; spent \(outcome.cost)"
        case .chainExhausted: "no more providers to ask; spent \(outcome.cost)"
        case .cacheHit, .staleServed: "served from the cache"
        case .ambiguous: "ambiguous: answered review without paying; spent \(outcome.cost)"
        }
    }

    private func explained(_ place: Place, _ score: CandidateScore, _ query: MatchQuery) -> ExplainedCandidate {
        ExplainedCandidate(id: place.id.description, name: place.name,
                           distanceMeters: query.near.map { GeoMath.distance($0, place.coordinate) }, score: score)
    }

    private func iso(_ date: Date) -> String { date.formatted(Self.timestampStyle) }

    private static let timestampStyle = Date.ISO8601FormatStyle()
}
