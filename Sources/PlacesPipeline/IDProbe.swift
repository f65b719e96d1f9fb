import BudgetLedger
import Foundation
import PlacesCore
import PlacesMatching

/// Settling a doubtful cheap answer for free before paying for it.
///
/// A bare name ("Vama" beside the one "Vama Bakery" the cheap source lists) or a name one letter off stays
/// `review`: the place meant may be a namesake the cheap source lacks, and nothing in the question tells. The
/// costly provider knows (its coverage includes the cheap source's), and Google answers one question about it
/// for free: Text Search with the IDs-only field mask (`places.id`, billed $0, ids cacheable indefinitely).
/// Two such questions (five probes at most), restricted to a square around the user:
///
/// 1. the distinctive words typed (``PlaceNormalizer/distinctiveWords(of:localities:)``: without kind words,
///    articles, company forms and the city): exactly one id means the costly source knows one place those
///    words fit here;
/// 2. the cheap candidate's own name: its first (most relevant) id is that candidate as the costly source
///    lists it.
///
/// Real searches add loosely related results, so when (1) gives two ids or more the words are asked again over
/// a square twice as wide: an id of (1) that the wider search does not return is no place the words fit (one
/// inside the first square would come back), and is dropped (``run(_:candidate:on:halfSide:nearReach:grid:steps:probes:)``).
/// The square's corners reach farther from the user than any place the paid answer could make the answer, so
/// when two ids or more remain the words are asked once more over two rectangles around the user's own point
/// that together hold every place within the square's reach of it: an id neither returns is farther, and is
/// dropped too. Over 1 km only a place named by the word typed could be the paid answer beyond the matcher's
/// 150 m, so there the rectangles hold 150 m, and farther ids stay only if they come back for the word typed
/// with one letter added ("Vici" asked as "Viciq"), which a place named "Vici" fits by a slip and "Visi" does not.
///
/// When the one id of (1) is the first of (2), the only place the words fit is the cheap candidate, and it is
/// accepted without the paid call. When no id is left for a candidate whose name may be the one typed (a slip
/// the costly source does not forgive: "Rri Bakery" beside "Rari Bakery"), the paid call is not made either: its
/// answer comes from the same search, so it could hold no place the words fit, and the matcher accepts no other
/// (it forgives no more than the costly source must for any probe to be sound), so it would be `review` at best;
/// the cheap candidate is answered `review` for nothing (``Finding/nothingFits``), unless a phone or street address
/// was typed, which the paid answer's own could corroborate. Anything else (two ids or more, another first id, no
/// id for a candidate that only holds the words, a failed probe) pays as before. Probe (2) is what makes this
/// sound: the count alone would accept the cheap candidate when the one place the costly source finds for the
/// words is another (the namesake meant, whose name fits the words where the candidate's does not by the costly
/// source's own rules).
///
/// **Why the distinctive words only.** The place meant carries each distinctive word typed, or a word one
/// slip from it ("Vamq Bakery" for "Vama Bakery"), whatever else it is called; a probe on those words therefore
/// finds every such place the costly source knows, the candidate and any namesake it lacks alike. A kind word
/// adds nothing to tell them apart and, searched for, fits every "… Bakery" of the square, so (1) would never
/// count one. Where it fails: a slip in the kind word itself ("Vama Bakrey") leaves the distinctive word
/// exact, and the probe then asks for it alone, as for a bare name; a place meant that does not carry the
/// distinctive word typed (a nickname, a word the user misremembers by more than one slip) is outside what any
/// probe on the words can find, and the costly source's own answer would not name it either.
///
/// Only a candidate in doubt because of its name is probed: scored again as if its own name had been typed,
/// it must be a `match`, so distance, phone, address and kind of place already agree. It is either `review`
/// for the question, or holds every word typed ("Kasa" for "Kasa Gallery", which the matcher scores
/// `nonMatch` because "Gallery" is no kind word it strips).
enum IDProbe {
    /// The cheap candidate a probe may settle, and the score it earns when settled.
    struct Candidate: Sendable {
        var place: Place
        var provider: String
        /// The candidate's score for the question as typed: the answer's when the probe finds no place at all.
        var score: CandidateScore
        /// The candidate's score with its own name typed: what the question scores once the probe shows the
        /// words typed name it and nothing else.
        var settledScore: CandidateScore
        /// The matcher found the candidate's name may be the one typed (`review`), rather than only holding every
        /// word typed: a namesake farther off then shares its core name, which bounds the square (``halfSide``).
        var nameFits = true
    }

    /// The provider answers a probe, and for nothing.
    static func offered(by provider: any PlaceProvider) -> Bool {
        provider.capabilities.supports(.probe) && provider.price(of: .probe, fields: [.id]).cost == .zero
    }

    /// The probe's reach either side of the point: ``LookupPolicy/probeHalfSide`` when every word typed is a
    /// word of the candidate's name, folded ("mito" of "Mito Bistro"), the matcher found its name may be the one
    /// typed, and the candidate lies within it (a namesake farther off then shares the words and the core name
    /// with the candidate, so the paid answer could not make it the answer);
    /// ``LookupPolicy/probeHalfSideForOtherWords`` otherwise. A candidate that only holds the words ("Kasa
    /// Gallery" for "Kasa") is no namesake of a "Kasa" 400 m off in the matcher's eyes, so that one could be
    /// the paid answer: the square reaches as far as an exact name is accepted.
    static func halfSide(_ query: MatchQuery, _ candidate: Candidate, policy: LookupPolicy) -> Double {
        let inside = query.near.map { GeoMath.distance($0, candidate.place.coordinate) <= policy.probeHalfSide } ?? false
        return inside && candidate.nameFits && holdsEveryWordTyped(query.name, candidate.place.name)
            ? policy.probeHalfSide : policy.probeHalfSideForOtherWords
    }

    /// Every word typed, folded, is a word of the name ("Kasa" of "Kasa Gallery").
    static func holdsEveryWordTyped(_ typed: String, _ name: String) -> Bool {
        let words = Set(TextFolding.fold(name).split { !$0.isLetter && !$0.isNumber })
        let asked = TextFolding.fold(typed).split { !$0.isLetter && !$0.isNumber }
        return !asked.isEmpty && asked.allSatisfy(words.contains)
    }

    /// The one candidate of an answer that a probe may settle, and `nil` when there is none: the best-scored
    /// candidate that is `review`, or `nonMatch` while holding every word typed and more; not ambiguous; a
    /// `match` when scored with its own name as the question's; carrying every required field.
    static func candidate(_ query: MatchQuery, scored: [(place: Place, score: CandidateScore)], provider: String,
                          scorer: any CandidateScorer, required: Set<PlaceField>, merger: PlaceMerger,
                          clock: () -> Date) -> Candidate? {
        guard query.near != nil,
              let best = scored.first(where: {
                  $0.score.verdict == .review
                      || ($0.score.verdict == .nonMatch && holdsEveryWordTyped(query.name, $0.place.name))
              }),
              !best.score.ambiguous, TextFolding.fold(best.place.name) != TextFolding.fold(query.name) else { return nil }
        var asNamed = query
        asNamed.name = best.place.name
        let places = scored.map(\.place)
        guard let index = places.firstIndex(where: { $0.id == best.place.id }) else { return nil }
        let rescored = scorer.score(asNamed, candidates: places)[index]
        guard rescored.verdict == .match,
              let merged = merger.merge([best.place], fetchedAt: clock()),
              required.allSatisfy(merged.has) else { return nil }
        var settled = rescored
        settled.reasons.append("+ name: the words typed fit no other place (free id probe)")
        return Candidate(place: best.place, provider: provider, score: best.score, settledScore: settled,
                         nameFits: best.score.verdict == .review)
    }

    /// What the probes showed.
    enum Finding: Equatable {
        /// The words fit the cheap candidate alone: it is the answer, and the costly source is not paid.
        case settled
        /// The words fit no place within the reach of the point, and the candidate's name may be the one typed:
        /// the paid answer could not be accepted, so the costly source is not paid and the candidate stays `review`.
        case nothingFits
        /// Nothing settled (another place fits, or a probe failed): the costly source is paid as without a probe.
        case unsettled
    }

    /// Google's largest page of Text Search results: a probe answered with this many ids may have left some out.
    static let pageSize = 20

    /// Two rectangles around `point` that together hold every place within `reach` metres of it: `reach` either
    /// side one way and `reach` / √2 the other (a point of the circle lies within `reach` / √2 of the centre
    /// along one axis at least), each 1 % larger so the flat rectangle's edges do not cut the curved distance.
    static func cross(_ text: String, around point: Coordinate, reach: Double) -> [ProbeQuery] {
        let (long, short) = (reach * 1.01, reach / 2.squareRoot() * 1.01)
        return [ProbeQuery(text: text, center: point, halfSide: long, halfHeight: short, limit: pageSize),
                ProbeQuery(text: text, center: point, halfSide: short, halfHeight: long, limit: pageSize)]
    }

    /// Asks `provider` the probes through its decorators (metered at $0, cached), notes each in `steps`, and says
    /// what they showed (``Finding``). A failed probe settles nothing and is no failure of the lookup: the
    /// paid call that follows is asked as before.
    ///
    /// 1. The distinctive words over the square around the point snapped to the grid.
    /// 2. Only when (1) gave two ids or more: the same words over a square twice as wide, same centre. A place
    ///    the words fit inside the first square is inside the second and fits there too, so the costly source
    ///    returns it again unless that page is full; an id of (1) missing from (2) is a loosely related result
    ///    (real searches add them), not a place the words fit, and is dropped. A full page drops nothing. So
    ///    the ids kept still include every place the words fit in the square, and "exactly one" means what it
    ///    meant without the rule.
    /// 3. Only when two ids or more remain: the same words over the cross of two rectangles centred on the user's
    ///    own point (not the snapped one), `halfSide` either side one way and `halfSide` / √2 the other, each
    ///    1 % larger for the flat-earth corners. Together they hold the disc of radius `halfSide` around the
    ///    user, the farthest from the user that the paid answer could make a place the answer: the matcher's
    ///    150 m for a name alone (a namesake farther off shares the words with the candidate, so it is no exact
    ///    name only it holds), its 1 km for an exact name no other candidate shares. The first square, centred
    ///    on the snapped point, reaches past that disc in its corners (up to 1.4 × `halfSide` and the snap's
    ///    71 m): an id of (1) neither rectangle returns lies outside the disc, where the paid answer could not
    ///    take it, and is dropped. A full page drops nothing. The candidate stays if it is within the disc;
    ///    if not, it is dropped too and the lookup pays (its id is no longer the one kept).
    ///
    ///    Over 1 km (`halfSide` beyond `nearReach`, the matcher's 150 m) the disc is narrower for most places: beyond
    ///    150 m the matcher accepts a place only as an exact name no other candidate shares (its core name the one
    ///    typed), never by a slip or a start ("Visi Café" 900 m off for "Vici Bar"). So when the words typed are
    ///    one word of four letters or more, the rectangles hold `nearReach`, and an id outside them stays only if
    ///    the costly source also returns it for the word with one letter added ("Viciq"): a place with the word
    ///    "Vici" fits that by one slip, as the costly source must forgive for the probe to be sound at all, while
    ///    "Visi" (two slips from it) does not. A search that forgives more keeps more ids, and pays.
    /// 4. The candidate's own name over the first square: its first id must be the one id kept.
    ///
    /// Dropping cannot accept a candidate for a namesake ("rojosu" typed beside the museum Rojosu, the cheap source
    /// listing only "Rojosu Hotelli"): the candidate lies inside the first square (checked before any probe), the
    /// costly source lists it under a name carrying the words, so its id is in (1) and in the wider answer alike
    /// and is never dropped; the namesake's id stays too, and two ids pay.
    static func run(_ query: MatchQuery, candidate: Candidate, on provider: any PlaceProvider, halfSide: Double,
                    nearReach: Double, grid: CoordinateGrid, steps: inout [LookupStep],
                    probes: inout [String: Int]) async throws -> Finding {
        guard let near = query.near else { return .unsettled }
        let center = grid.snap(near)
        let area = "within \(Int(halfSide)) m"
        // The square is centred on the point snapped to the grid (so repeats share the cached probes), not on the
        // user: a candidate 150 m from the user may lie outside it. The one id the words fit inside may then be a
        // namesake that the probe on the candidate's own name also ranks first (a tie on the words, the candidate
        // listed under another name), and the candidate would be accepted for it: such a candidate is not settled.
        let (low, high) = ProbeQuery(text: query.name, center: center, halfSide: halfSide).corners
        let at = candidate.place.coordinate
        guard (low.latitude...high.latitude).contains(at.latitude), (low.longitude...high.longitude).contains(at.longitude) else {
            steps.append(LookupStep(.probed, provider: provider.name,
                                    "no free id probe: \(candidate.place.name) lies outside the square \(area) of the point; paying",
                                    cost: .zero))
            return .unsettled
        }
        func ask(_ probe: ProbeQuery) async throws -> [String]? {
            let text = probe.text
            do {
                probes[provider.name, default: 0] += 1
                return try await provider.probe(probe)
            } catch let unavailable as StorageUnavailable {
                throw unavailable
            } catch {
                let message = (error as? ProviderError)?.message ?? (error as? MeteredCallFailure).map { "\($0.underlying)" }
                    ?? "\(error)"
                steps.append(LookupStep(.probed, provider: provider.name,
                                        "free probe for \"\(text)\" failed (\(message)); paying as without it", cost: .zero))
                return nil
            }
        }
        let words = PlaceNormalizer.distinctiveWords(of: query.name,
                                                     localities: [query.city, candidate.place.address?.city].compactMap { $0 })
        guard let typed = try await ask(ProbeQuery(text: words, center: center, halfSide: halfSide, limit: pageSize)) else { return .unsettled }
        var fitting = typed
        var dropped = 0
        if typed.count >= 2 && typed.count < pageSize {
            guard let wider = try await ask(ProbeQuery(text: words, center: center, halfSide: 2 * halfSide, limit: pageSize)) else {
                return .unsettled
            }
            if wider.count < pageSize {
                fitting = typed.filter(wider.contains)
                dropped = typed.count - fitting.count
            }
        }
        var farther = 0
        let word = TextFolding.fold(words)
        let onlyNamedFarOff = halfSide > nearReach && word.count >= 4 && word.allSatisfy(\.isLetter)
        let reach = onlyNamedFarOff ? nearReach : halfSide
        if fitting.count >= 2 && typed.count < pageSize {
            var within = Set<String>()
            var asked = cross(words, around: near, reach: reach)
            if onlyNamedFarOff {
                asked.append(ProbeQuery(text: words + "q", center: center, halfSide: halfSide, limit: pageSize))
            }
            for probe in asked {
                guard let answer = try await ask(probe) else { return .unsettled }
                guard answer.count < pageSize else { within = Set(fitting); break }
                within.formUnion(answer)
            }
            farther = fitting.count - fitting.filter(within.contains).count
            fitting = fitting.filter(within.contains)
        }
        let beyond = onlyNamedFarOff ? "farther than \(Int(reach)) m from the point and not named \"\(words)\"" : "farther than \(Int(reach)) m from the point"
        let unrelated = (dropped == 0 ? "" : " once \(dropped) loosely related result(s) missing from a square twice as wide are dropped")
            + (farther == 0 ? "" : "\(dropped == 0 ? " once" : " and") \(farther) place(s) \(beyond) are dropped")
        // A phone or street address typed could be corroborated by the paid answer's own, which the name alone
        // cannot be: then it pays as before.
        if fitting.isEmpty && candidate.nameFits && query.phone == nil && query.address == nil {
            steps.append(LookupStep(.probed, provider: provider.name,
                                    "free id probe: no place fits \"\(words)\" \(area)\(unrelated), so the paid search could name none "
                                        + "either; not paying", cost: .zero))
            return .nothingFits
        }
        guard fitting.count == 1 else {
            let count = fitting.isEmpty ? "no place" : "more than one place"
            steps.append(LookupStep(.probed, provider: provider.name,
                                    "free id probe: \(count) fits \"\(words)\" \(area)\(unrelated); paying", cost: .zero))
            return .unsettled
        }
        guard let named = try await ask(ProbeQuery(text: candidate.place.name, center: center, halfSide: halfSide, limit: 1)) else {
            return .unsettled
        }
        guard named.first == fitting[0] else {
            steps.append(LookupStep(.probed, provider: provider.name,
                                    "free id probe: one place fits \"\(words)\" \(area)\(unrelated), but not the one listed as "
                                        + "\"\(candidate.place.name)\"; paying", cost: .zero))
            return .unsettled
        }
        steps.append(LookupStep(.probed, provider: provider.name,
                                "free id probe: one place fits \"\(words)\" \(area)\(unrelated), the one listed as \"\(candidate.place.name)\"",
                                cost: .zero))
        return .settled
    }
}
