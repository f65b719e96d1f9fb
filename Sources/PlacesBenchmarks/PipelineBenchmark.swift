import BudgetLedger
import Foundation
import LookupCache
import PlacesCore
import PlacesMatching
import PlacesPipeline

/// `places-bench pipeline [lookups] [places] [shares]` (shares: cheap coverage, default `0.5,0.8,0.95`):
/// the honest lookup benchmark. It replays lookups as people make them through the real pipeline (real
/// matcher, real SQLite cache and ledger) against in-process fake providers that answer the way real ones
/// do, and compares what the pipeline spends with references run on the same lookups:
///
/// - **always costly**: the costly provider only, behind the same cache;
/// - **cheap first, no cache**: the pipeline's chain without its cache;
/// - **pipeline** (default) and **pipeline, paying when ambiguous** (`payWhenAmbiguous`);
/// - **oracle**: pays once per distinct question (cache key) whose place the cheap source does not know,
///   and nothing else: the least any pipeline with this cache could spend. It knows what no pipeline
///   can: which places the cheap source lacks.
///
/// **Ambiguous questions.** A question that two or more places within 150 m of the user fit equally well
/// (its words fit each equally, and none is named by exactly the words typed: "Kalmari" beside Kalmari
/// Grill and Kalmari Pizzeria) cannot be settled by any source. The costly provider answers it as a real
/// one does, with its own guess (the fitting place nearest the user), right only when that guess is the
/// place meant; `ambiguous_settled_by_paying` counts how often. When the cheap source lists two or more of
/// the fitting places (`ambiguous_seen_by_cheap`: what a pipeline can see), the oracle neither pays for the
/// question nor counts it wrong; the pipeline by default answers it `review` with the fitting places and
/// pays nothing (`ambiguous_answered_review`), and with `payWhenAmbiguous` asks the costly provider anyway.
///
/// The query generator is independent of the matcher's rules: names are typed the way people type them
/// (the slips below, from the misspelling literature), not the way the matcher forgives them, and nothing
/// in the matcher was tuned to this generator's typo model.
///
/// The world is `places` businesses in central Helsinki. Some come in families that share a distinctive word
/// and stand 5–40 m apart ("Kalmari Grill", "Kalmari Pizzeria"), some have a namesake 60–150 m away, as often
/// as in the real Helsinki extract (``FamilyRates``), and a name carries its kind word ("Mito Bistro") as often
/// as real names do (``NameShapes``); the rest go by the distinctive word alone ("Mito"). Each lookup is one person
/// asking for one place (Zipf popularity, s = 1) from 0–60 m away, typing its name as people do: exact,
/// lower case without accents, with one typo (a swapped, dropped, doubled or changed letter anywhere in
/// the distinctive word), with the kind word in Finnish ("Kalmari Grilli"), without the kind word, only
/// the start of the distinctive word, or with "Helsinki" added. Both providers return up to five places
/// near the user whose names share words with the question, so near decoys of the same family come back
/// too. The cheap source (free, like the local index) knows a stated share of the places, lists some
/// under their Finnish names and has no phones; both give each place's city, as the local index, Google,
/// Yelp and Foursquare do; the costly one (priced like Google Text Search Enterprise, $35 / 1,000) knows
/// every place, and answers the pipeline's free id probe (Google Text Search with ids only, $0) by a rule of
/// its own, with unrelated results in one request of five (``PipelineBenchProvider/probe(_:)``); the probes
/// are counted (`free_id_probes`) and cost nothing. The run is repeated for cheap-source coverage of 50 %, 80 %
/// and 95 %.
enum PipelineBenchmark {
    static let price = MicroDollars.perThousand(dollars: 35)
    static let required: Set<PlaceField> = [.id, .name, .coordinate]

    static func run(arguments: [String]) async throws {
        let lookups = arguments.first.flatMap(Int.init) ?? 10_000
        let placeCount = arguments.dropFirst().first.flatMap(Int.init) ?? 2_000
        let shares = arguments.dropFirst(2).first.map { $0.split(separator: ",").compactMap { Double($0) } } ?? [0.5, 0.8, 0.95]
        let scorer = MatcherScorer(matcher: PlaceMatcher())
        print("pipeline.lookups \(lookups) count")
        print("pipeline.places \(placeCount) count")
        var worstRatio = 0.0
        var totalWrong = 0
        var summaries: [String] = []
        for share in shares {
            let label = "cheap_\(Int((share * 100).rounded()))"
            let world = PipelineBenchWorld(placeCount: placeCount, cheapShare: share)
            let workload = world.workload(lookups: lookups, exponent: 1.0)
            print("\(label).places_known_to_cheap \(world.cheapKnows.filter { $0 }.count) count")
            let rates = world.familyRates()
            print(String(format: "%@.world.sibling_60m_share %.3f (Helsinki extract %.3f)", label, rates.sibling60m,
                         FamilyRates.measuredSibling60m))
            print(String(format: "%@.world.bare_name_unique_150m_share %.3f (Helsinki extract %.3f)", label,
                         rates.bareNameUnique150m, FamilyRates.measuredBareNameUnique150m))
            print(String(format: "%@.world.kind_word_share %.3f (Helsinki extract %.3f)", label, world.kindWordShare,
                         NameShapes.kindWordShare))
            print("\(label).distinct_places_asked \(Set(workload.map(\.truth)).count) count")
            // Typed without the kind word while other places share the word ("Kalmari" for one of Kalmari Grill
            // and Kalmari Pizzeria): a question no source can settle, which the oracle still counts as free.
            let shared = workload.filter { $0.typing == "without_kind_word" && world.familySize[$0.truth] > 1 }.count
            print("\(label).without_kind_word_naming_several_places \(shared) count")
            let ambiguous = workload.filter { $0.fitting.count > 1 }
            print("\(label).ambiguous_lookups \(ambiguous.count) count (\(Set(ambiguous.map { keys.cacheKey($0.request) }).count) distinct questions)")
            let seen = workload.filter(\.ambiguousToCheap)
            print("\(label).ambiguous_seen_by_cheap \(seen.count) count (\(Set(seen.map { keys.cacheKey($0.request) }).count) distinct questions)")
            let settled = ambiguous.filter { $0.fitting.first == $0.truth }.count
            print("\(label).ambiguous_settled_by_paying \(settled) of \(ambiguous.count) count (the costly provider's guess is the place meant)")

            await bareNameRule(label, world: world, workload: workload)
            let always = try await replay("\(label).always_costly_cached", world: world, workload: workload, scorer: scorer,
                                          useCheap: false, useCache: true)
            let noCache = try await replay("\(label).cheap_first_no_cache", world: world, workload: workload, scorer: scorer,
                                           useCheap: true, useCache: false)
            let full = try await replay("\(label).pipeline", world: world, workload: workload, scorer: scorer,
                                        useCheap: true, useCache: true)
            let paying = try await replay("\(label).pipeline_pay_when_ambiguous", world: world, workload: workload,
                                          scorer: scorer, useCheap: true, useCache: true, payWhenAmbiguous: true)
            let oracle = oracleSpend(world: world, workload: workload)
            let perThousand = 1_000 / Double(workload.count)
            print("\(label).oracle.paid_calls \(oracle.value / price.value) count")
            print(String(format: "%@.oracle.dollars_per_1000 %.4f USD", label, oracle.dollars * perThousand))
            let ratio = Double(full.spent.value) / Double(max(1, oracle.value))
            print(String(format: "%@.pipeline_vs_oracle %.3f x", label, ratio))
            print(String(format: "%@.pipeline_pay_when_ambiguous_vs_oracle %.3f x", label,
                         Double(paying.spent.value) / Double(max(1, oracle.value))))
            for (name, result) in [("always costly, cached", always), ("cheap first, no cache", noCache), ("pipeline", full),
                                   ("pipeline, pay when ambiguous", paying)] {
                summaries.append(String(format: "%@ %@: $%.2f per 1,000, %d wrong, %d ambiguous answered review, %d free id probes",
                                        label, name, result.spent.dollars * perThousand, result.wrong, result.ambiguousReview,
                                        result.probes))
            }
            summaries.append(String(format: "%@ oracle: $%.2f per 1,000; pipeline %.2fx the oracle; paying settles %d of %d ambiguous lookups",
                                    label, oracle.dollars * perThousand, ratio, settled, ambiguous.count))
            print(String(format: "%@.saving_vs_always_costly_cached %.2f %%", label,
                         (1 - Double(full.spent.value) / Double(max(1, always.spent.value))) * 100))
            print(String(format: "%@.saving_vs_cheap_first_no_cache %.2f %%", label,
                         (1 - Double(full.spent.value) / Double(max(1, noCache.spent.value))) * 100))
            worstRatio = max(worstRatio, ratio)
            totalWrong += full.wrong + noCache.wrong + always.wrong
        }
        for line in summaries { print("pipeline.summary " + line) }
        print(String(format: "pipeline.worst_ratio_to_oracle %.3f x", worstRatio))
        print("pipeline.target_at_most_1.1x_oracle \(worstRatio <= 1.1 ? "met" : "missed")")
        print("pipeline.wrong_accepted_all_runs \(totalWrong) count")
        print("pipeline.target_0_wrong \(totalWrong == 0 ? "met" : "missed")")
        try await cacheHitLatency(placeCount: placeCount, lookups: lookups, scorer: scorer)
    }

    struct ReplayResult {
        var spent: MicroDollars
        var wrong: Int
        /// Lookups answered `review` with the places that fit the question equally.
        var ambiguousReview: Int
        /// Free id probes sent to the costly provider.
        var probes: Int
    }

    /// Cache keys as the pipelines compute them: one notion of "the same question" for every run.
    static let keys = LookupPipeline(providers: [], scorer: MatcherScorer(matcher: PlaceMatcher()), cache: nil, ledger: nil)

    private static func replay(_ label: String, world: PipelineBenchWorld, workload: [PipelineBenchLookup],
                               scorer: any CandidateScorer, useCheap: Bool, useCache: Bool,
                               payWhenAmbiguous: Bool = false) async throws -> ReplayResult {
        let (pipeline, directory) = try makePipeline(world: world, scorer: scorer, useCheap: useCheap, useCache: useCache)
        defer { try? FileManager.default.removeItem(at: directory) }
        var spent = MicroDollars.zero
        var paidCalls = 0, probeCalls = 0, accepted = 0, wrong = 0, doubtful = 0, unanswered = 0, cacheHits = 0
        var ambiguousReview = 0, paidForAmbiguous = 0, ambiguousAccepted = 0, ambiguousAcceptedRight = 0
        // Paid calls the oracle would not make (the cheap source knew the place), by how the name was typed.
        var avoidable: [String: Int] = [:]
        // What each way of typing got: accepted, review, nothing.
        var outcomes: [String: (accepted: Int, review: Int, none: Int)] = [:]
        let started = ContinuousClock.now
        for item in workload {
            var request = item.request
            request.payWhenAmbiguous = payWhenAmbiguous
            let outcome = try await pipeline.lookup(request)
            spent = spent + outcome.cost
            paidCalls += outcome.calls["costly", default: 0]
            probeCalls += outcome.probes["costly", default: 0]
            let isAmbiguous = item.fitting.count > 1
            if useCheap && outcome.calls["costly", default: 0] > 0 && world.cheapKnows[item.truth] && !item.ambiguousToCheap {
                avoidable[item.typing, default: 0] += 1
                if let dump = ProcessInfo.processInfo.environment["PIPELINE_BENCH_AVOIDABLE"], label.hasSuffix(".pipeline"),
                   label.hasPrefix(dump) {
                    await explainAvoidable(item, outcome: outcome, world: world, scorer: scorer)
                }
            }
            if isAmbiguous && outcome.calls["costly", default: 0] > 0 { paidForAmbiguous += 1 }
            if !outcome.ambiguousCandidates.isEmpty && !outcome.isAccepted { ambiguousReview += 1 }
            if isAmbiguous && outcome.isAccepted {
                ambiguousAccepted += 1
                if ProcessInfo.processInfo.environment["PIPELINE_BENCH_DEBUG"] != nil && ambiguousAccepted <= 8 {
                    let fits = item.fitting.map { world.places[$0].name }.joined(separator: " | ")
                    FileHandle.standardError.write(Data("\(label): ambiguous \"\(item.request.query.name)\" (\(item.typing)) fits \(fits); accepted \(outcome.place?.name ?? "-")\n".utf8))
                }
                if outcome.place.map(world.truth(of:)) == item.truth { ambiguousAcceptedRight += 1 }
            }
            if outcome.cache == .hit { cacheHits += 1 }
            if outcome.isAccepted {
                outcomes[item.typing, default: (0, 0, 0)].accepted += 1
            } else if outcome.place != nil {
                outcomes[item.typing, default: (0, 0, 0)].review += 1
            } else {
                outcomes[item.typing, default: (0, 0, 0)].none += 1
            }
            if outcome.isAccepted {
                accepted += 1
                if outcome.place.map(world.truth(of:)) != item.truth {
                    wrong += 1
                    if wrong <= 3 {
                        let got = outcome.place.map { "\($0.name) (\($0.id))" } ?? "-"
                        let meant = world.places[item.truth].name
                        FileHandle.standardError.write(Data(
                            "\(label): asked \"\(item.request.query.name)\" for \(meant), accepted \(got), score \(outcome.match?.score ?? 0)\n".utf8))
                        // Where the user, the square's centre, the place meant and the one accepted were, and why.
                        let near = item.request.query.near ?? world.places[item.truth].coordinate
                        let places = [item.truth] + (outcome.place.map { [world.truth(of: $0)] } ?? [])
                        FileHandle.standardError.write(Data(("  user \(near); center \(LookupPolicy().grid.snap(near)); "
                            + places.map { "\(world.places[$0].name) at \(world.places[$0].coordinate), \(Int(GeoMath.distance(near, world.places[$0].coordinate))) m" }.joined(separator: "; ")
                            + "\n  " + outcome.steps.map(\.description).joined(separator: "\n  ") + "\n").utf8))
                    }
                }
            } else if outcome.place != nil {
                doubtful += 1
            } else {
                unanswered += 1
            }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        let perThousand = 1_000 / Double(workload.count)
        print("\(label).paid_calls \(paidCalls) count")
        print("\(label).free_id_probes \(probeCalls) count")
        print(String(format: "%@.dollars_per_1000 %.4f USD", label, spent.dollars * perThousand))
        print("\(label).accepted \(accepted) count")
        print("\(label).accepted_wrong \(wrong) count")
        print("\(label).review_answers \(doubtful) count")
        print("\(label).no_answer \(unanswered) count")
        print("\(label).cache_hits \(cacheHits) count")
        print("\(label).ambiguous_answered_review \(ambiguousReview) count")
        print("\(label).paid_calls_for_ambiguous_lookups \(paidForAmbiguous) count")
        print("\(label).ambiguous_accepted \(ambiguousAccepted) count (\(ambiguousAcceptedRight) the place meant)")
        print("\(label).accepted_review_none_by_typing " + outcomes.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value.accepted)/\($0.value.review)/\($0.value.none)" }.joined(separator: ", "))
        print(String(format: "%@.lookups_per_second %.0f 1/s", label, Double(workload.count) / seconds))
        if useCheap {
            print("\(label).paid_calls_the_cheap_source_could_answer \(avoidable.values.reduce(0, +)) count ("
                  + avoidable.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
        return ReplayResult(spent: spent, wrong: wrong, ambiguousReview: ambiguousReview, probes: probeCalls)
    }

    /// What accepting a bare name would cost: the rule "a name typed without its kind word ("Kalmari")
    /// is the one place the cheap source returns whose distinctive word it is ("Kalmari Grill")", judged
    /// against the truth, by how far that place is from the user. The question carries nothing else
    /// (no phone, no address), so distance is the only evidence such a rule could add. Printed so the
    /// matcher's refusal (`review`, then pay) can be checked against what accepting would do.
    private static func bareNameRule(_ label: String, world: PipelineBenchWorld, workload: [PipelineBenchLookup]) async {
        let cheap = PipelineBenchProvider(name: "cheap", price: .zero, world: world, cheap: true)
        let bands = [10.0, 25, 40, 60, 150]
        var right = Array(repeating: 0, count: bands.count), wrong = right
        for item in workload where item.typing == "without_kind_word" {
            let typed = TextFolding.fold(item.request.query.name)
            let candidates = ((try? await cheap.match(item.request.query)) ?? [])
                .filter { TextFolding.fold(world.stems[world.truth(of: $0)]) == typed }
            guard candidates.count == 1, let near = item.request.query.near else { continue }
            let distance = GeoMath.distance(near, candidates[0].coordinate)
            guard let band = bands.firstIndex(where: { distance <= $0 }) else { continue }
            if world.truth(of: candidates[0]) == item.truth { right[band] += 1 } else { wrong[band] += 1 }
        }
        var cumulativeRight = 0, cumulativeWrong = 0
        let text = bands.indices.map { i -> String in
            cumulativeRight += right[i]
            cumulativeWrong += wrong[i]
            return "within \(Int(bands[i])) m \(cumulativeRight) right / \(cumulativeWrong) wrong"
        }
        print("\(label).bare_name_single_venue_rule_would_accept " + text.joined(separator: ", "))

        // Typos, the same way: "when no candidate has the distinctive word as typed, the name is the one cheap
        // candidate within 75 m whose distinctive word is one slip (a swapped, dropped, doubled or changed
        // letter, anywhere) from the word typed, and whose kind word is the one typed" — the rule the matcher
        // keeps narrower (first letter as typed, words of four letters or more, no changed letter in four).
        // Judged on every lookup, not only the ones typed with a slip: a name typed right that the cheap
        // source lacks may be one slip from a neighbour's.
        var typoRight = 0, typoWrong = 0
        for item in workload {
            let asked = PipelineBenchProvider.words(item.request.query.name)
            guard let word = TextFolding.fold(item.request.query.name).split(separator: " ").first.map({ Array($0) }),
                  let near = item.request.query.near else { continue }
            let kindWord = asked.count > 1 ? asked.last : nil
            let returned = (try? await cheap.match(item.request.query)) ?? []
            if returned.contains(where: { Array(TextFolding.fold(world.stems[world.truth(of: $0)])) == word }) { continue }
            let candidates = returned.filter { place in
                let i = world.truth(of: place)
                let stem = Array(TextFolding.fold(world.stems[i]))
                let kind = world.kindWord(i)
                return GeoMath.distance(near, place.coordinate) <= 75
                    && (stem == word || PipelineBenchProvider.oneEditApart(stem, word))
                    && (kindWord.map { Array(TextFolding.fold(kind)) == $0 } ?? kind.isEmpty)
            }
            guard candidates.count == 1 else { continue }
            if world.truth(of: candidates[0]) == item.truth { typoRight += 1 } else { typoWrong += 1 }
        }
        print("\(label).any_slip_typo_rule_would_accept \(typoRight) right / \(typoWrong) wrong")
    }

    /// A paid call the cheap source could have spared: what it returned, how the scorer judged each candidate,
    /// and what the free probes found (`PIPELINE_BENCH_AVOIDABLE=cheap_95` prints these to stderr for one
    /// coverage share).
    private static func explainAvoidable(_ item: PipelineBenchLookup, outcome: LookupOutcome, world: PipelineBenchWorld,
                                         scorer: any CandidateScorer) async {
        let cheap = PipelineBenchProvider(name: "cheap", price: .zero, world: world, cheap: true)
        let candidates = (try? await cheap.match(item.request.query)) ?? []
        let scores = scorer.score(item.request.query, candidates: candidates)
        var line = "avoidable \(item.typing) asked \"\(item.request.query.name)\" for \(world.places[item.truth].name)"
            + " (fits \(item.fitting.count)):"
        for (place, score) in zip(candidates, scores) {
            let d = item.request.query.near.map { Int(GeoMath.distance($0, place.coordinate)) } ?? -1
            line += " [\(place.name) \(d) m \(score.verdict) \(String(format: "%.2f", score.score))"
                + " \(score.reasons.filter { $0.hasPrefix("!") || $0.hasPrefix("-") }.joined(separator: "; "))]"
        }
        let probed = outcome.steps.filter { $0.kind == .probed }
        line += probed.isEmpty ? " {not probed}" : probed.map { " {\($0.message)}" }.joined()
        // The places the first probe found: what stood beside the candidate.
        if let first = probed.first, first.message.contains("more than one place"), let near = item.request.query.near {
            let costly = PipelineBenchProvider(name: "costly", price: price, world: world, cheap: false)
            let words = PlaceNormalizer.distinctiveWords(of: item.request.query.name, localities: ["Helsinki"])
            let halfSide = first.message.contains("within 150 m") ? 150.0 : 1_000
            let ids = (try? await costly.probe(ProbeQuery(text: words, center: LookupPolicy().grid.snap(near), halfSide: halfSide,
                                                          limit: 20))) ?? []
            line += " found:" + ids.map { id in
                let i = Int(id.split(separator: "-").last ?? "") ?? -1
                let d = Int(GeoMath.distance(near, world.places[i].coordinate))
                return " <\(world.places[i].name) \(d) m\(world.cheapKnows[i] ? " cheap" : "")\(i == item.truth ? " TRUTH" : "")>"
            }.joined()
        }
        let answer = outcome.place.map { "\(outcome.isAccepted ? "accepted" : "review") \($0.name)\(world.truth(of: $0) == item.truth ? " TRUTH" : "")" }
        line += " => \(answer ?? "no answer")"
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// One paid call per distinct question whose place the cheap source lacks, unless the cheap source
    /// shows the question is ambiguous (no source settles it): the cache keys come from a pipeline with the same policy, so the
    /// oracle and the pipeline share one notion of "the same question".
    private static func oracleSpend(world: PipelineBenchWorld, workload: [PipelineBenchLookup]) -> MicroDollars {
        var paid = Set<String>()
        for item in workload where !world.cheapKnows[item.truth] && !item.ambiguousToCheap {
            paid.insert(keys.cacheKey(item.request))
        }
        return MicroDollars(price.value * Int64(paid.count))
    }

    /// Cache-hit latency: every distinct question is cached now; ask them again in-process.
    private static func cacheHitLatency(placeCount: Int, lookups: Int, scorer: any CandidateScorer) async throws {
        let world = PipelineBenchWorld(placeCount: placeCount, cheapShare: 0.8)
        let workload = world.workload(lookups: lookups, exponent: 1.0)
        let (pipeline, directory) = try makePipeline(world: world, scorer: scorer, useCheap: true, useCache: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for item in workload { _ = try await pipeline.lookup(item.request) }
        var micros: [Double] = []
        micros.reserveCapacity(lookups)
        let clock = ContinuousClock()
        for item in workload {
            let start = clock.now
            let outcome = try await pipeline.lookup(item.request)
            let elapsed = clock.now - start
            if outcome.cache == .hit { micros.append(elapsed / .microseconds(1)) }
        }
        micros.sort()
        print("pipeline.cache_hit_samples \(micros.count) count")
        print(String(format: "pipeline.cache_hit_p50 %.1f us", percentile(micros, 50)))
        print(String(format: "pipeline.cache_hit_p99 %.1f us", percentile(micros, 99)))
        print("pipeline.target_p50_under_200us \(percentile(micros, 50) < 200 ? "met" : "missed")")
    }

    private static func makePipeline(world: PipelineBenchWorld, scorer: any CandidateScorer, useCheap: Bool,
                                     useCache: Bool) throws -> (LookupPipeline, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-bench-pipeline-\(UUID().uuidString)")
        let cache = useCache ? try SQLiteLookupCacheStore(path: directory.appendingPathComponent("cache.sqlite")) : nil
        let ledger = try SQLiteBudgetLedger(path: directory.appendingPathComponent("budget.sqlite"))
        var providers: [any PlaceProvider] = [PipelineBenchProvider(name: "costly", price: price, world: world, cheap: false)]
        if useCheap { providers.insert(PipelineBenchProvider(name: "cheap", price: .zero, world: world, cheap: true), at: 0) }
        let pipeline = LookupPipeline(providers: providers, scorer: scorer, cache: cache, ledger: ledger,
                                      policy: LookupPolicy(offlineProviders: ["cheap"]))
        return (pipeline, directory)
    }
}

struct PipelineBenchLookup: Sendable {
    var request: LookupRequest
    var truth: Int
    /// How the name was typed ("exact", "typo", "finnish"…), for the breakdown of avoidable paid calls.
    var typing: String
    /// The places the question fits equally well, nearest the user first (see ``PipelineBenchWorld/fitting(_:near:)``):
    /// two or more make it ambiguous.
    var fitting: [Int]
    /// The question is ambiguous and the cheap source lists two or more of the places that fit it: the
    /// ambiguity a pipeline can see.
    var ambiguousToCheap: Bool
}

/// How often a generated place has namesakes, from the real Helsinki extract (`bash bench/decoy_rates.sh`, which
/// runs `bench/decoy_rates.py` over the index `places` builds from the repository's copy): 141 of 1,436 named
/// POIs (9.8 %) have another POI within 60 m whose name shares a distinctive word with theirs, and a distinctive
/// word typed alone fits exactly one POI within 150 m for 256 of 317 names with a kind word (80.8 %). Families of
/// two and three near siblings keep their old 2 : 1 ratio; a namesake 60–150 m away brings the share that
/// fit one place within 150 m to the measured one. `places-bench pipeline` prints the rates it generated
/// (`world.sibling_60m_share`, `world.bare_name_unique_150m_share`) beside the measured ones.
enum FamilyRates {
    static let twoNear = 0.0297
    static let threeNear = 0.0148
    static let farNamesake = 0.06
    static let measuredSibling60m = 141.0 / 1_436
    static let measuredBareNameUnique150m = 256.0 / 317
}

/// How often a real name carries a word saying its kind of place ("Bistro", "Cafe", "Ravintola", "Bar",
/// "Pizzeria", "Hotelli"…), over the named places of the benchmark's kinds in the Helsinki extract
/// (`python3 bench/name_shapes.py`): 190 of 437 (43.5 %); "Mito", a restaurant, is as common a shape as
/// "Mito Bistro". The generator gave 92 % before it drew kind words at this share.
enum NameShapes {
    static let kindWordShare = 190.0 / 437
}

/// Generated businesses with known identities, so every accepted answer can be checked against the truth.
struct PipelineBenchWorld: Sendable {
    struct Kind: Sendable {
        var word: String
        var finnish: String
        var category: String
    }

    static let kinds: [Kind] = [
        Kind(word: "Bar", finnish: "Baari", category: "bar"), Kind(word: "Café", finnish: "Kahvila", category: "cafe"),
        Kind(word: "Bistro", finnish: "Bistro", category: "restaurant"), Kind(word: "Grill", finnish: "Grilli", category: "restaurant"),
        Kind(word: "Pizzeria", finnish: "Pizzeria", category: "restaurant"), Kind(word: "Bakery", finnish: "Leipomo", category: "bakery"),
        Kind(word: "Books", finnish: "Kirjat", category: "books"), Kind(word: "Pharmacy", finnish: "Apteekki", category: "pharmacy"),
        Kind(word: "Sushi", finnish: "Sushi", category: "restaurant"), Kind(word: "Gallery", finnish: "Galleria", category: "gallery"),
        Kind(word: "Hotel", finnish: "Hotelli", category: "hotel"), Kind(word: "", finnish: "", category: "museum"),
    ]

    let places: [Place]
    /// Kind of each place (an index into ``kinds``).
    let kindOf: [Int]
    /// Each place's distinctive word.
    let stems: [String]
    let cheapKnows: [Bool]
    /// How many places share each place's distinctive word (its family, itself included).
    let familySize: [Int]
    /// Distinctive words that some place of the family carries alone ("Vakasu" the museum, "Mito" the restaurant).
    let bareStems: Set<String>
    /// The place's name carries its kind word ("Mito Bistro"), as ``NameShapes/kindWordShare`` of real names
    /// do; the others are their distinctive word alone ("Mito", a restaurant).
    let carriesKindWord: [Bool]
    /// Folded full names.
    let indexByName: [String: Int]
    /// The cheap source lists this place under its Finnish name.
    let cheapFinnish: [Bool]
    /// Places by 200 m grid cell, for the providers' "nearest candidates".
    let cells: [Int64: [Int]]

    init(placeCount: Int, cheapShare: Double) {
        var generator = SplitMix64(seed: 42)
        let syllables = ["ka", "lo", "mi", "ra", "su", "te", "vi", "no", "pe", "ha", "jo", "ke", "li", "ma", "ri",
                         "sa", "to", "va", "ni", "po", "hu", "la", "me", "ro", "si"]
        var usedStems = Set<String>()
        var places: [Place] = [], kindOf: [Int] = [], stems: [String] = [], cheap: [Bool] = [], finnish: [Bool] = []
        var carries: [Bool] = []
        // Only kinds with a kind word can carry one (the museum has none): their chance is raised so that
        // the share over all places is the measured one.
        let kindWordChance = NameShapes.kindWordShare * Double(Self.kinds.count) / Double(Self.kinds.filter { !$0.word.isEmpty }.count)
        while places.count < placeCount {
            var stem = ""
            repeat {
                let length = 2 + Int(generator.next() % 2)
                stem = (0..<length).map { _ in syllables[Int(generator.next() % UInt64(syllables.count))] }.joined()
                stem = stem.prefix(1).uppercased() + stem.dropFirst()
            } while usedStems.contains(stem)
            usedStems.insert(stem)
            // A family of businesses sharing the word: near siblings 5–40 m apart, and sometimes a namesake
            // 60–150 m away, as often as in the real extract (see ``FamilyRates``).
            let anchor = Coordinate(latitude: 60.155 + generator.unit() * 0.03, longitude: 24.90 + generator.unit() * 0.08)
            let roll = generator.unit()
            let near = roll < FamilyRates.threeNear ? 3 : roll < FamilyRates.threeNear + FamilyRates.twoNear ? 2 : 1
            let far = generator.unit() < FamilyRates.farNamesake ? 1 : 0
            var kindsLeft = Array(Self.kinds.indices)
            // At most one place of a family goes by the bare word: two places of one name side by side are
            // rare in the real extract (they are one place listed twice).
            var familyHasBare = false
            for member in 0..<(near + far) where places.count < placeCount {
                let kind = kindsLeft.remove(at: Int(generator.next() % UInt64(kindsLeft.count)))
                let hasWord = !Self.kinds[kind].word.isEmpty
                if !hasWord && familyHasBare { continue }
                let carried = hasWord && (familyHasBare || generator.unit() < kindWordChance)
                familyHasBare = familyHasBare || !carried
                let word = carried ? Self.kinds[kind].word : ""
                let metres = member == 0 ? 0 : member < near ? 5 + generator.unit() * 35 : 60 + generator.unit() * 90
                let coordinate = member == 0 ? anchor : Self.move(anchor, metres: metres, generator: &generator)
                let i = places.count
                places.append(Place(id: PlaceID(provider: "truth", nativeID: String(i)), name: word.isEmpty ? stem : "\(stem) \(word)",
                                    coordinate: coordinate, address: PostalAddress(city: "Helsinki", countryCode: "FI"),
                                    phone: String(format: "+3589%07d", i),
                                    categories: [Self.kinds[kind].category], category: Self.kinds[kind].category))
                kindOf.append(kind)
                carries.append(carried)
                stems.append(stem)
                cheap.append(generator.unit() < cheapShare)
                finnish.append(generator.unit() < 0.3)
            }
        }
        var cells: [Int64: [Int]] = [:]
        for (i, place) in places.enumerated() { cells[Self.cell(place.coordinate), default: []].append(i) }
        self.places = places
        self.kindOf = kindOf
        self.stems = stems
        cheapKnows = cheap
        cheapFinnish = finnish
        self.cells = cells
        carriesKindWord = carries
        bareStems = Set(places.indices.filter { !carries[$0] }.map { stems[$0] })
        let stemCounts = Dictionary(stems.map { ($0, 1) }, uniquingKeysWith: +)
        familySize = stems.map { stemCounts[$0] ?? 1 }
        indexByName = Dictionary(places.enumerated().map { (TextFolding.fold($1.name), $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func move(_ c: Coordinate, metres: Double, generator: inout SplitMix64) -> Coordinate {
        let angle = generator.unit() * 2 * .pi
        return Coordinate(latitude: c.latitude + metres * cos(angle) / 111_320,
                          longitude: c.longitude + metres * sin(angle) / (111_320 * cos(c.latitude * .pi / 180)))
    }

    static func cell(_ c: Coordinate) -> Int64 {
        let y = Int64((c.latitude * 111_320 / 200).rounded(.down))
        let x = Int64((c.longitude * 55_600 / 200).rounded(.down))
        return (x << 32) ^ (y & 0xFFFF_FFFF)
    }

    /// The generated place an answer really is.
    func truth(of place: Place) -> Int {
        Int(place.id.nativeID.split(separator: "-").last ?? "") ?? -1
    }

    /// The generated counterparts of ``FamilyRates``' measured rates, by the same definitions as
    /// `bench/decoy_rates.py`: another place within 60 m sharing the distinctive word under another name; the
    /// distinctive word of a name with a kind word, typed alone, fitting only that place within 150 m.
    func familyRates() -> (sibling60m: Double, bareNameUnique150m: Double) {
        var sibling = 0, withKind = 0, unique = 0
        for i in places.indices {
            let near = around(places[i].coordinate).filter { $0 != i && stems[$0] == stems[i] }
                .map { GeoMath.distance(places[i].coordinate, places[$0].coordinate) }
            if near.contains(where: { $0 <= 60 }) { sibling += 1 }
            guard carriesKindWord[i] else { continue }
            withKind += 1
            if !near.contains(where: { $0 <= Self.fitDistance }) { unique += 1 }
        }
        return (Double(sibling) / Double(max(1, places.count)), Double(unique) / Double(max(1, withKind)))
    }

    /// How far from the user a place may be to fit a question.
    static let fitDistance = 150.0

    /// The places within ``fitDistance`` of the user that fit the question best, nearest first, as a source
    /// that lists every place under its name and its Finnish name (as one indexing alternate names does)
    /// sees them. Each word typed fits the listed word it fits best: equal (3), one typo apart (2), the same first four letters (1). The places whose
    /// words fit best in sum; of those, the ones every word of whose name was typed ("Kalmari" the museum,
    /// asked "Kalmari"), when there are any. Two or more make the question ambiguous.
    func fitting(_ name: String, near: Coordinate) -> [Int] {
        let asked = PipelineBenchProvider.words(name)
        var best = 0
        var top: [(place: Int, whole: Bool, distance: Double)] = []
        for i in around(near) {
            let distance = GeoMath.distance(near, places[i].coordinate)
            guard distance <= Self.fitDistance else { continue }
            var sum = 0, whole = false
            for listing in [places[i].name, finnishName(i)] {
                let words = PipelineBenchProvider.words(listing)
                let fit = asked.map { word in words.map { Self.wordFit(word, $0) }.max() ?? 0 }.reduce(0, +)
                let all = words.allSatisfy { listedWord in asked.contains { Self.wordFit($0, listedWord) > 0 } }
                if fit > sum || (fit == sum && all) { (sum, whole) = (fit, all) }
            }
            guard sum > 0, sum >= best else { continue }
            if sum > best { best = sum; top = [] }
            top.append((i, whole, distance))
        }
        let whole = top.filter(\.whole)
        return (whole.isEmpty ? top : whole).sorted { $0.distance < $1.distance }.map(\.place)
    }

    /// The kind word the place's name carries ("Bistro"), "" when it goes by its distinctive word alone.
    func kindWord(_ i: Int) -> String {
        carriesKindWord[i] ? Self.kinds[kindOf[i]].word : ""
    }

    /// The share of places whose name carries a kind word, beside ``NameShapes/kindWordShare``.
    var kindWordShare: Double {
        Double(carriesKindWord.filter { $0 }.count) / Double(max(1, places.count))
    }

    /// The name the cheap source lists a place under, nil when it does not know the place.
    func cheapListing(_ i: Int) -> String? {
        guard cheapKnows[i] else { return nil }
        return cheapFinnish[i] ? finnishName(i) : places[i].name
    }

    /// The place's name with its kind word in Finnish ("Kalmari Grilli").
    func finnishName(_ i: Int) -> String {
        carriesKindWord[i] && !Self.kinds[kindOf[i]].finnish.isEmpty ? "\(stems[i]) \(Self.kinds[kindOf[i]].finnish)" : stems[i]
    }

    static func wordFit(_ a: [Character], _ b: [Character]) -> Int {
        if a == b { return 3 }
        if min(a.count, b.count) >= 4 && PipelineBenchProvider.oneEditApart(a, b) { return 2 }
        return a.prefix(4) == b.prefix(4) ? 1 : 0
    }

    /// The places within about 400 m of a point, or within `reach` metres (in grid cells) when given.
    func around(_ point: Coordinate, reach: Double = 400) -> [Int] {
        let y = Int64((point.latitude * 111_320 / 200).rounded(.down))
        let x = Int64((point.longitude * 55_600 / 200).rounded(.down))
        let cellsOut = Int64(max(2, (reach / 200).rounded(.up)))
        var found: [Int] = []
        for dx in -cellsOut...cellsOut {
            for dy in -cellsOut...cellsOut { found += cells[((x + dx) << 32) ^ ((y + dy) & 0xFFFF_FFFF)] ?? [] }
        }
        return found
    }

    /// Lookups whose places follow a Zipf law, each from a person 0–60 m away typing the name their way.
    func workload(lookups: Int, exponent: Double) -> [PipelineBenchLookup] {
        var generator = SplitMix64(seed: 7)
        var order = Array(places.indices)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(generator.next() % UInt64(i + 1))) }
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...places.count { total += 1 / pow(Double(rank), exponent); cumulative.append(total) }
        return (0..<lookups).map { _ in
            let u = generator.unit() * total
            var lo = 0, hi = cumulative.count - 1
            while lo < hi { let mid = (lo + hi) / 2; if cumulative[mid] < u { lo = mid + 1 } else { hi = mid } }
            let truth = order[lo]
            let near = Self.move(places[truth].coordinate, metres: generator.unit() * 60, generator: &generator)
            var (name, typing) = typed(truth, generator: &generator)
            // A typed name that is another place's exact name asks for that place.
            if name != places[truth].name, let other = indexByName[TextFolding.fold(name)], other != truth {
                (name, typing) = (places[truth].name, "exact")
            }
            let query = MatchQuery(name: name, near: near)
            let fits = fitting(name, near: near)
            return PipelineBenchLookup(request: LookupRequest(query: query, requiredFields: PipelineBenchmark.required),
                                       truth: truth, typing: typing, fitting: fits,
                                       ambiguousToCheap: fits.count > 1 && fits.filter { cheapKnows[$0] }.count > 1)
        }
    }

    /// The name as one person types it, and how. Leaving the kind word out is not done where a place of
    /// the family is called by the bare word: that question names the other place.
    func typed(_ i: Int, generator: inout SplitMix64) -> (String, String) {
        let name = places[i].name, stem = stems[i], word = kindWord(i)
        let roll = generator.unit()
        switch roll {
        case ..<0.40: return (name, "exact")
        case ..<0.55: return (TextFolding.fold(name), "folded")
        case ..<0.65:
            // One slip of the four kinds behind most misspellings (Damerau 1964), anywhere in the distinctive
            // word, the first letter included: two neighbours swapped, a letter dropped, doubled or changed.
            var letters = Array(stem.lowercased())
            let at = Int(generator.next() % UInt64(letters.count))
            switch generator.next() % 4 {
            case 0: letters.swapAt(min(at, letters.count - 2), min(at, letters.count - 2) + 1)
            case 1: letters.remove(at: at)
            case 2: letters.insert(letters[at], at: at)
            default:
                let alphabet = Array("abcdefghijklmnopqrstuvwxyz").filter { $0 != letters[at] }
                letters[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }
            let slipped = String(letters).prefix(1).uppercased() + String(letters).dropFirst()
            return (word.isEmpty ? slipped : "\(slipped) \(word)", "typo")
        case ..<0.75: return (finnishName(i), "finnish")
        case ..<0.85: return (bareStems.contains(stem) ? name : stem, "without_kind_word")
        case ..<0.92: return (word.isEmpty ? String(stem.prefix(4)) : "\(stem.prefix(4)) \(word)", "word_start")
        default: return ("\(name) Helsinki", "with_city")
        }
    }
}

/// A fake provider over the generated world. It returns up to five places it knows near the user whose
/// names share words with the question, the most shared words first and then the nearest, as text search
/// biased to a location does. A word is shared when it starts the same (four letters) or is one typo away
/// (a swapped, dropped, added or changed letter in a word of four letters or more): the local index and the
/// paid providers both forgive a typo. The cheap one lists some places under their Finnish names and
/// without phones. Asked a question several places fit equally well (see ``PipelineBenchWorld/fitting(_:near:)``),
/// the costly one answers as a real one does: with its own guess, the fitting place nearest the user.
struct PipelineBenchProvider: PlaceProvider {
    let name: String
    let price: MicroDollars
    let world: PipelineBenchWorld
    let cheap: Bool
    var capabilities: ProviderCapabilities { cheap ? [.match] : [.match, .idProbe] }
    var cacheTerms: CacheTerms { .unlimited }

    func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        price == .zero || operation == .probe ? .free : PriceQuote(sku: "\(name).search", cost: price)
    }

    /// The costly source's free id probe, modelled on Text Search with an IDs-only mask and a location
    /// restriction, by a rule of its own rather than the matcher's: a place it knows inside the rectangle
    /// fits when a word typed (three letters or more) equals a word of its name, starts one, or is one slip
    /// from one (a swapped, dropped, added or changed letter; both words four letters or more). Ranked by the
    /// words that fit (equal 3, slip 2, start 1, summed), then by distance; at most 20. One request in five
    /// (by a hash of the text and the square) also gets an unrelated place of the square at the end, as a real
    /// search returns loosely related results, so a count of one is not handed out as the truth.
    func probe(_ query: ProbeQuery) async throws -> [String] {
        guard !cheap else { throw ProviderError.unsupported(name, .probe) }
        let asked = Self.words(query.text)
        let (low, high) = query.corners
        let inside = world.around(query.center, reach: max(query.halfSide, query.halfHeight ?? 0)).filter { i in
            let c = world.places[i].coordinate
            return c.latitude >= low.latitude && c.latitude <= high.latitude
                && c.longitude >= low.longitude && c.longitude <= high.longitude
        }
        var ranked: [(fit: Int, distance: Double, place: Int)] = []
        for i in inside {
            let listed = Self.words(world.places[i].name)
            let fit = asked.map { word in listed.map { Self.probeFit(word, $0) }.max() ?? 0 }.reduce(0, +)
            if fit > 0 { ranked.append((fit, GeoMath.distance(query.center, world.places[i].coordinate), i)) }
        }
        var ids = ranked.sorted { ($0.fit, -$0.distance) > ($1.fit, -$1.distance) }.prefix(20).map { "\(name)-\($0.place)" }
        // FNV-1a over the folded text and the square's centre: the same request always gets the same noise.
        var roll: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(TextFolding.fold(query.text).utf8) + Array(String(format: "%.5f,%.5f", query.center.latitude,
                                                                            query.center.longitude).utf8) {
            roll = (roll ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let unrelated = inside.filter { !ranked.map(\.place).contains($0) }
        if roll % 5 == 0, !unrelated.isEmpty, ids.count < 20 {
            ids.append("\(name)-\(unrelated[Int((roll / 5) % UInt64(unrelated.count))])")
        }
        return Array(ids.prefix(max(1, query.limit)))
    }

    /// How a word typed fits a listed word in the probe's rule: equal 3, one slip 2, the start of it 1.
    static func probeFit(_ typed: [Character], _ listed: [Character]) -> Int {
        if typed == listed { return 3 }
        if typed.count >= 4 && listed.count >= 4 && oneEditApart(typed, listed) { return 2 }
        return listed.starts(with: typed) ? 1 : 0
    }

    func match(_ query: MatchQuery) async throws -> [Place] {
        guard let near = query.near else { return [] }
        if !cheap {
            let fitting = world.fitting(query.name, near: near)
            if fitting.count > 1 {
                var guess = world.places[fitting[0]]
                guess.id = PlaceID(provider: name, nativeID: "\(name)-\(fitting[0])")
                return [guess]
            }
        }
        let asked = Self.words(query.name)
        var found: [(shared: Int, distance: Double, place: Place)] = []
        for i in world.around(near) where !cheap || world.cheapKnows[i] {
            var place = world.places[i]
            if cheap, let listing = world.cheapListing(i) { place.name = listing }
            let listed = Self.words(place.name)
            let shared = asked.filter { word in listed.contains { Self.sameWord(word, $0) } }.count
            guard shared > 0 else { continue }
            if cheap { place.phone = nil }
            place.id = PlaceID(provider: name, nativeID: "\(name)-\(i)")
            found.append((shared, GeoMath.distance(near, place.coordinate), place))
        }
        return found.sorted { ($0.shared, -$0.distance) > ($1.shared, -$1.distance) }.prefix(5).map(\.place)
    }

    static func words(_ text: String) -> [[Character]] {
        TextFolding.fold(text).split { !$0.isLetter }.filter { $0.count >= 3 }.map(Array.init)
    }

    static func sameWord(_ a: [Character], _ b: [Character]) -> Bool {
        if a.prefix(4) == b.prefix(4) { return true }
        guard min(a.count, b.count) >= 4 else { return false }
        return oneEditApart(a, b)
    }

    /// Levenshtein distance 1, or one swap of neighbouring letters.
    static func oneEditApart(_ a: [Character], _ b: [Character]) -> Bool {
        if a.count == b.count {
            let differ = a.indices.filter { a[$0] != b[$0] }
            if differ.count == 1 { return true }
            return differ.count == 2 && differ[1] == differ[0] + 1 && a[differ[0]] == b[differ[1]] && a[differ[1]] == b[differ[0]]
        }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard long.count == short.count + 1 else { return false }
        return long.indices.contains { skip in Array(long[..<skip] + long[(skip + 1)...]) == short }
    }
}
