import Foundation
import PlacesCore

/// Whether two records name the same place.
public enum MatchVerdict: String, Sendable, Codable {
    case match
    /// Plausible but not certain: a person (or a paid provider) should decide.
    case review
    case nonMatch = "non-match"
}

/// Which piece of evidence a ``MatchReason`` is about.
public enum MatchSignal: String, Sendable, Hashable, Codable {
    case name, phone, address, houseNumber = "house_number", distance, category, city, location
}

public enum MatchAgreement: String, Sendable, Hashable, Codable {
    case agrees, partial, disagrees
    /// The evidence decided a limit on the score rather than adding to it.
    case limits
}

/// One line of "why": which signal agreed or disagreed, with the numbers that decided it.
public struct MatchReason: Sendable, Hashable, Codable, CustomStringConvertible {
    public var signal: MatchSignal
    public var agreement: MatchAgreement
    public var detail: String

    public init(signal: MatchSignal, agreement: MatchAgreement, detail: String) {
        self.signal = signal
        self.agreement = agreement
        self.detail = detail
    }

    public var description: String {
        let mark = switch agreement { case .agrees: "+"; case .partial: "~"; case .disagrees: "-"; case .limits: "!" }
        return "\(mark) \(signal.rawValue): \(detail)"
    }
}

public struct MatchResult: Sendable, Codable {
    /// 0…1; compare with ``MatchThresholds``.
    public var score: Double
    public var verdict: MatchVerdict
    public var reasons: [MatchReason]
    /// Another candidate of the same answer, a different place, fits the question as well as this one
    /// ("Kalmari" when "Kalmari Grill" and "Kalmari Pizzeria" share a building): the words typed cannot
    /// tell them apart. Set only by ``PlaceMatcher/compare(query:candidates:)``.
    public var ambiguous: Bool
    /// One of several candidates named as typed, none near enough to be taken for the one meant: a chain's
    /// branches ("Fazer Cafe" 200 m from the nearest of three). Each is a `review`; a source that knows a nearer
    /// branch may still answer. Set only by ``PlaceMatcher/compare(query:candidates:)``.
    public var branchBeyondReach: Bool

    public init(score: Double, verdict: MatchVerdict, reasons: [MatchReason], ambiguous: Bool = false,
                branchBeyondReach: Bool = false) {
        self.score = score
        self.verdict = verdict
        self.reasons = reasons
        self.ambiguous = ambiguous
        self.branchBeyondReach = branchBeyondReach
    }
}

/// Where scores turn into verdicts, and how far apart two listings of one place may be.
public struct MatchThresholds: Sendable, Hashable {
    /// At or above: `match`.
    public var accept: Double
    /// At or above (and below `accept`): `review`.
    public var review: Double
    /// Beyond this many metres two records are different places unless phone or address agree,
    /// and even then only `review`.
    public var maxDistance: Double
    /// Beyond this many metres the same name is likely another branch of a chain: no `match`
    /// without an equal phone or address.
    public var chainDistance: Double
    /// ISO region national phone numbers are read in when a record has no country.
    public var defaultRegion: String?

    /// How far from the point a lookup gives an exact name may be when no other candidate shares it:
    /// phone GPS and a typed neighbourhood are often more than `chainDistance` off, and without a
    /// namesake there is no other branch to confuse it with.
    public var uniqueNameDistance: Double

    public init(accept: Double = 0.8, review: Double = 0.6, maxDistance: Double = 150, chainDistance: Double = 75,
                uniqueNameDistance: Double = 1_000, defaultRegion: String? = nil) {
        self.uniqueNameDistance = uniqueNameDistance
        self.accept = accept
        self.review = review
        self.maxDistance = maxDistance
        self.chainDistance = chainDistance
        self.defaultRegion = defaultRegion
    }

    public static let `default` = MatchThresholds()
}

/// The place-aware similarity: names (core words, token set and sort over bit-parallel edit distance),
/// phones in E.164, street and house number, distance and category, combined into one score and a verdict.
///
/// ```swift
/// let matcher = PlaceMatcher(thresholds: .init(defaultRegion: "US"))
/// let result = matcher.compare(
///     MatchRecord(id: "a", name: "Joe's Pizza", phone: "212-366-1182"),
///     MatchRecord(id: "b", name: "Joes Pizza", phone: "+1 212 366 1182"))
/// result.verdict  // .match
/// ```
///
/// For many comparisons, prepare each record once with ``prepare(_:)`` and call
/// ``score(_:_:)`` (no reasons, no allocation) or ``compare(_:_:)-(PreparedRecord,PreparedRecord)``.
public struct PlaceMatcher: Sendable {
    public var thresholds: MatchThresholds

    public init(thresholds: MatchThresholds = .default) {
        self.thresholds = thresholds
    }

    public func prepare(_ record: MatchRecord) -> PreparedRecord {
        PreparedRecord(record, defaultRegion: thresholds.defaultRegion)
    }

    /// Prepares many records on all cores, in order.
    public func prepare(_ records: [MatchRecord]) -> [PreparedRecord] {
        let chunkSize = 2_048
        let chunkCount = (records.count + chunkSize - 1) / chunkSize
        let chunks = ChunkResults<PreparedRecord>(count: chunkCount)
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = chunk * chunkSize..<min(records.count, (chunk + 1) * chunkSize)
            chunks.set(chunk, records[range].map(prepare))
        }
        return chunks.joined()
    }

    public func compare(_ a: MatchRecord, _ b: MatchRecord) -> MatchResult {
        compare(prepare(a), prepare(b))
    }

    public func compare(_ a: PreparedRecord, _ b: PreparedRecord) -> MatchResult {
        let evidence = evaluate(a, b)
        return MatchResult(score: evidence.score, verdict: verdict(evidence.score), reasons: reasons(evidence, a, b))
    }

    /// The verdict on each candidate one source returned for a query, in order.
    ///
    /// Like ``compare(_:_:)-(MatchRecord,MatchRecord)`` for each, with what a set of candidates tells
    /// about a question that a single pair cannot:
    ///
    /// - A candidate whose core name equals the query's and that no other candidate of its kind shares (no
    ///   namesake, so no other branch to confuse it with; a street is not a venue's namesake) may be up to
    ///   ``MatchThresholds/uniqueNameDistance`` from the query's point instead of
    ///   ``MatchThresholds/chainDistance``. Chains keep the short distance,
    ///   or need an equal phone or address.
    /// - A locality typed after the name ("Kiasma Helsinki") is the question's city when it is the
    ///   candidate's city (or the query's own `city`), not part of the name; see
    ///   ``PlaceNormalizer/trailingLocality(of:localities:)``. Without a point, an exact name no other
    ///   candidate shares in the city the user named is then corroborated by that city.
    /// - A name one typo away from the candidate's ("Klamari Grill") reads as the candidate's name when
    ///   no candidate has the name as typed; distance, phone or address must still agree.
    ///
    /// Two candidates that both fit the query about equally well and are not one place listed twice make
    /// the question ambiguous ("Kalmari" when "Kalmari Grill" and "Kalmari Pizzeria" share a building):
    /// both are then at most `review`, and a better source or the user decides.
    /// - Parameter questionNames: per candidate, the question's name as compared with it when it is not the name
    ///   typed (`nil`: as typed): the name without words that only say the kind of place the candidate is.
    public func compare(query: MatchRecord, candidates: [MatchRecord], questionNames: [String?] = []) -> [MatchResult] {
        let asked = prepare(query)
        let prepared = candidates.map(prepare)
        var withoutLocality: [String: PreparedRecord] = [:]
        var renamed: [String: PreparedRecord] = [:]
        let questions = candidates.indices.map { i -> PreparedRecord in
            let candidate = candidates[i]
            if i < questionNames.count, let name = questionNames[i] {
                if let known = renamed[name] { return known }
                var record = query
                record.name = name
                let question = prepare(record)
                renamed[name] = question
                return question
            }
            guard let split = PlaceNormalizer.trailingLocality(of: query.name, localities: [candidate.city, query.city].compactMap { $0 }),
                  !PlaceNormalizer.normalize(candidate.name).split(separator: " ")
                    .contains(where: { split.locality.split(separator: " ").contains($0) }) else { return asked }
            if let known = withoutLocality[split.locality] { return known }
            var record = query
            record.name = split.name
            record.city = query.city ?? split.locality
            let question = prepare(record)
            withoutLocality[split.locality] = question
            return question
        }
        var evidence = prepared.indices.map { i in evaluate(questions[i], prepared[i]) }
        let typed = evidence.contains { $0.name >= 0.9 }
        for i in prepared.indices {
            let q = questions[i]
            // A street or a part of a city named like a venue ("Simonkatu", the street and the restaurant on it) is not
            // another branch of it; which of the two the question means is settled below, where two that fit
            // equally make it ambiguous.
            let namesake = {
                prepared.indices.contains(where: {
                    $0 != i && prepared[$0].isArea == prepared[i].isArea && self.nameScore(prepared[i], prepared[$0]) >= 0.9
                })
            }
            if evidence[i].limit == .chainBranch || evidence[i].limit == .tooFar, evidence[i].name >= 1,
               let d = evidence[i].distance, d <= thresholds.uniqueNameDistance, !namesake() {
                evidence[i] = evaluate(q, prepared[i], distanceTolerance: thresholds.uniqueNameDistance)
                evidence[i].uniqueName = true
            } else if evidence[i].limit == .nameOnly, evidence[i].name >= 1, evidence[i].city == .equal,
                      evidence[i].phone != .different, evidence[i].houseNumber != .different, !namesake() {
                evidence[i] = evaluate(q, prepared[i], cityCorroborates: true)
            } else if !typed, evidence[i].name < 0.9, oneTypoApart(q, prepared[i]) {
                evidence[i] = evaluate(q, prepared[i], nameFloor: 0.9)
            }
        }
        // What each candidate scores before the kind-word rule below: the fit of the words typed.
        let fit = evidence.map(\.score)
        for i in prepared.indices {
            // "Vakasu" may be the museum or the café in it; the candidate's name says a kind of place
            // the question does not, and nothing but the name ties them.
            let q = questions[i]
            if q.kindClasses == 0 && q.categoryKey == 0 && prepared[i].kindClasses != 0
                && evidence[i].phone != .equal && !evidence[i].addressEqual && evidence[i].score >= thresholds.accept {
                evidence[i].kindUnasked = true
                evidence[i].score = below(thresholds.accept)
            }
        }
        for i in prepared.indices {
            // The other way round: "Mito Bistro" asked beside the restaurant "Mito". The bistro may be a
            // venue of its own that the source lacks, and the candidate's category, which says
            // "restaurant" for both, cannot tell. Nor can a candidate whose name only starts a longer word
            // typed ("Mito" for "Mitokondria"): the typed word may be a place the source lacks, and one
            // letter added is also how a typo reads. Only an equal phone or street address settles these.
            guard evidence[i].score >= thresholds.accept, evidence[i].phone != .equal, !evidence[i].addressEqual else {
                continue
            }
            let q = questions[i], candidate = prepared[i]
            // A class word alone that the candidate's category says ("Restaurant Zetor" for the restaurant Zetor)
            // only describes it; a specific kind ("Mito Bistro") may still be a venue of its own.
            let missing = q.kindClasses & ~candidate.kindClasses
            let saidByCategory = q.kindWords == 0 && missing & ~candidate.categoryClass == 0
            if missing != 0 && !saidByCategory {
                evidence[i].kindMissing = true
                evidence[i].score = below(thresholds.accept)
            } else if typedWordExtendsName(q, candidate) {
                evidence[i].typedWordLonger = true
                evidence[i].score = below(thresholds.accept)
            }
        }
        // Candidates that fit the words typed. One that adds no kind word the question lacks ("Kalmari" the
        // museum, asked "Kalmari") and lacks none it names outranks those that do ("Kalmari Grill"); among
        // those that do, two different places fitting about equally make the question ambiguous just as two
        // full matches do.
        let fitting = evidence.indices.filter { fit[$0] >= thresholds.accept }
        let plain = fitting.filter { !evidence[$0].kindUnasked && !evidence[$0].kindMissing && !evidence[$0].typedWordLonger }
        let contenders = plain.isEmpty ? fitting : plain
        if let best = contenders.max(by: { fit[$0] < fit[$1] }) {
            let rivals = contenders.filter {
                $0 != best && fit[$0] >= fit[best] - 0.05
                    && evaluate(prepared[best], prepared[$0]).score < thresholds.accept
            }
            if !rivals.isEmpty {
                for i in rivals + [best] {
                    evidence[i].ambiguous = true
                    evidence[i].score = min(evidence[i].score, below(thresholds.accept))
                }
            }
        }
        // Several places bear the name typed, none near enough to be taken for the one meant ("Fazer Cafe" asked
        // 200 m from the nearest of a chain's three cafés of that name within 450 m): each is a branch the
        // question may mean, a `review` rather than no answer ("no such place", cached for hours).
        if !evidence.contains(where: { $0.score >= thresholds.review }) {
            let branches = prepared.indices.filter { i in
                evidence[i].name >= 1 && [.chainBranch, .tooFar].contains(evidence[i].limit)
                    && (evidence[i].distance ?? .infinity) <= thresholds.uniqueNameDistance
            }
            if branches.count >= 2 {
                for i in branches {
                    evidence[i].branchBeyondReach = true
                    evidence[i].score = thresholds.review
                }
            }
        }
        return prepared.indices.map { i in
            MatchResult(score: evidence[i].score, verdict: verdict(evidence[i].score),
                        reasons: reasons(evidence[i], questions[i], prepared[i]), ambiguous: evidence[i].ambiguous,
                        branchBeyondReach: evidence[i].branchBeyondReach)
        }
    }

    /// The two core names differ in one word only, and that word by one typo: two neighbouring letters
    /// swapped ("Klamari" / "Kalmari", four letters or more), or one letter dropped, added or changed (five
    /// or more, where one letter is a small part of the word). The first letter must agree, as people
    /// rarely mistype it; shorter words must be equal ("Kuu" and "Kuusi" stay two names).
    func oneTypoApart(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        a.withName { nameA in b.withName { nameB in NameSimilarity.oneTypoApart(nameA, nameB) } }
    }

    /// A word of the candidate's core name is the start of a longer word typed that the candidate's name
    /// does not have ("Mito" / "Mitokondria Bistro").
    func typedWordExtendsName(_ query: PreparedRecord, _ candidate: PreparedRecord) -> Bool {
        query.withName { typed in candidate.withName { name in NameSimilarity.wordExtended(by: typed, of: name) } }
    }

    /// The score alone: the hot path of file matching and benchmarks.
    public func score(_ a: PreparedRecord, _ b: PreparedRecord) -> Double {
        evaluate(a, b).score
    }

    /// The score, and the unbounded evidence sum that orders pairs of equal score (one-to-one assignment).
    func scoreAndStrength(_ a: PreparedRecord, _ b: PreparedRecord) -> (score: Double, strength: Double) {
        let evidence = evaluate(a, b)
        return (evidence.score, evidence.strength)
    }

    /// The name signal alone (0…1): core words by token set and sort over bit-parallel edit
    /// distance. The benchmark compares it with RapidFuzz's `token_set_ratio`.
    public func nameSimilarity(_ a: PreparedRecord, _ b: PreparedRecord) -> Double {
        nameScore(a, b)
    }

    public func verdict(_ score: Double) -> MatchVerdict {
        score >= thresholds.accept ? .match : score >= thresholds.review ? .review : .nonMatch
    }

    // MARK: Evidence

    enum Comparison { case unknown, equal, different }
    enum Limit {
        case none, chainBranch, tooFar, tooFarDespiteIdentity, nameOnly, kindDisagrees, differentKind, otherCountry
        /// Both names carry a qualifier, and the two share no word: another branch, or another room of one house.
        case otherQualifier
        /// One name adds a kind word no category explains, and only distance ties the two.
        case kindUnexplained
    }

    struct Evidence {
        var name = 0.0
        var genericConflict = false
        /// The names' kinds are in different families (a hotel and its bar): not outweighed by phone or address.
        var familyConflict = false
        var numberConflict = false
        /// Each name keeps a distinctive word the other has nothing like ("Silta Books" / "Karhu Books").
        var distinctiveConflict = false
        var phone = Comparison.unknown
        var houseNumber = Comparison.unknown
        var street: Double?
        var addressEqual = false
        var distance: Double?
        var category = Comparison.unknown
        /// The categories fall in different families (bank / bar, museum / restaurant).
        var categoryConflict = false
        /// One name's generic word names a kind of place the other's category is not ("Nordea Bar" / the bank "Nordea").
        var kindWordConflict = false
        /// One name adds a kind word ("Ateneum Bistro" / "Ateneum") and no category on either side says that
        /// kind: a venue in or beside the other place as often as the same place.
        var kindUnexplained = false
        /// Equal phone and street address made a contained or word-sharing name a match.
        var sharedIdentity = false
        /// An equal phone, and no address that disagrees, made a name holding every word of the other a match.
        var phoneAndHeldName = false
        /// An exact name no other candidate shares, judged with the wider distance tolerance.
        var uniqueName = false
        /// The names are one typo apart and were scored as the same name.
        var typo = false
        /// An exact name no other candidate shares, in the city the question names.
        var cityCorroborates = false
        /// Another candidate, a different place, fits the query about as well.
        var ambiguous = false
        /// One of several candidates named as typed, all beyond the distance that would take one for the place meant.
        var branchBeyondReach = false
        /// The candidate's name adds a kind of place ("Café") the question did not name.
        var kindUnasked = false
        /// The question names a kind of place ("Bistro") the candidate's name does not.
        var kindMissing = false
        /// The candidate's name only starts a longer word typed ("Mito" / "Mitokondria").
        var typedWordLonger = false
        /// The sum of the evidence before it is bounded to 0…1: among pairs that both score 1, the one
        /// with more agreeing evidence is the better pair.
        var strength = 0.0
        var city = Comparison.unknown
        var limit = Limit.none
        var score = 0.0
    }

    /// The name signal: the names as written, or without their qualifiers ("Le Bistro (Los Angeles)" / "Le
    /// Bistro"), whichever agrees better; but not without two qualifiers that share no word ("Sketch (The
    /// Gallery)" and "Sketch (The Lecture Room)" are two rooms of one house, "Le Bistro (Pasadena)" and "Le
    /// Bistro (Los Angeles)" two branches).
    func nameScore(_ a: PreparedRecord, _ b: PreparedRecord) -> Double {
        let full = a.withName { nameA in b.withName { nameB in NameSimilarity.score(nameA, nameB) } }
        guard full < 1, a.primary != nil || b.primary != nil, !Self.qualifiersDiffer(a, b) else { return full }
        return max(full, a.withPrimaryName { nameA in b.withPrimaryName { nameB in NameSimilarity.score(nameA, nameB) } })
    }

    func distinctiveWordsDisagree(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        a.withName { nameA in b.withName { nameB in NameSimilarity.distinctiveWordsDisagree(nameA, nameB) } }
    }

    /// The two core names share at least one word, equal or alike (a typo: "Bramwell" / "Bramewll").
    func sharesWord(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        a.withName { nameA in
            b.withName { nameB in
                nameA.words.contains { wa in
                    nameB.words.contains { wb in
                        (wb.hash == wa.hash && wb.count == wa.count)
                            || NameSimilarity.wordsAlike(nameA.word(wa), nameB.word(wb))
                    }
                }
            }
        }
    }

    func streetScore(_ a: PreparedRecord, _ b: PreparedRecord) -> Double {
        a.bytes.withUnsafeBufferPointer { ab in
            b.bytes.withUnsafeBufferPointer { bb in
                let sa = UnsafeBufferPointer(rebasing: ab[(a.sortedCount + a.orderedCount)...])
                let sb = UnsafeBufferPointer(rebasing: bb[(b.sortedCount + b.orderedCount)...])
                return TextCode.equal(sa, sb) ? 1 : EditDistance.ratio(sa, sb)
            }
        }
    }

    /// The evidence of one pair and its score.
    /// - Parameter distanceTolerance: how far apart the two may be before the chain rule applies, when
    ///   more than ``MatchThresholds/chainDistance``: the lookup passes ``MatchThresholds/uniqueNameDistance``
    ///   for an exact name no other candidate shares.
    /// - Parameter nameFloor: the least the name signal counts for: the lookup passes 0.9 for a name one
    ///   typo from the candidate's (see ``oneTypoApart(_:_:)``).
    /// - Parameter cityCorroborates: the lookup found the candidate in the city the question names, with an
    ///   exact name no other candidate shares: that city stands in for a distance, phone or address.
    func evaluate(_ a: PreparedRecord, _ b: PreparedRecord, distanceTolerance: Double? = nil, nameFloor: Double = 0,
                  cityCorroborates: Bool = false) -> Evidence {
        var e = Evidence()
        let otherQualifier = Self.qualifiersDiffer(a, b)
        let chainDistance = max(thresholds.chainDistance, distanceTolerance ?? 0)
        let maxDistance = max(thresholds.maxDistance, distanceTolerance ?? 0)
        e.name = max(nameScore(a, b), nameFloor)
        e.typo = nameFloor > 0 && e.name == nameFloor
        e.cityCorroborates = cityCorroborates
        e.genericConflict = Self.genericWordsConflict(a, b)
        e.familyConflict = e.genericConflict && Self.genericFamiliesConflict(a, b)
        e.numberConflict = a.numbersKey != 0 && b.numbersKey != 0 && a.numbersKey != b.numbersKey

        if a.phoneKey != 0 && b.phoneKey != 0 { e.phone = a.phoneKey == b.phoneKey ? .equal : .different }
        if a.houseKey != 0 && b.houseKey != 0 { e.houseNumber = a.houseKey == b.houseKey ? .equal : .different }
        if a.streetCount > 0 && b.streetCount > 0 {
            let similarity = streetScore(a, b)
            e.street = similarity
            e.addressEqual = similarity >= 0.85 && e.houseNumber != .different
                && (e.houseNumber == .equal || (a.houseKey == 0 && b.houseKey == 0))
        }
        e.distance = a.distance(to: b)
        if a.categoryKey != 0 && b.categoryKey != 0 {
            e.category = a.categoryKey == b.categoryKey ? .equal : .different
            if let fa = a.categoryFamily, let fb = b.categoryFamily, fa != fb { e.categoryConflict = true }
        }
        if a.cityKey != 0 && b.cityKey != 0 { e.city = a.cityKey == b.cityKey ? .equal : .different }
        if a.kindClasses != b.kindClasses {
            e.kindWordConflict = Self.extraWordNamesOtherKind(a, b, samePhone: e.phone == .equal)
                || Self.extraWordNamesOtherKind(b, a, samePhone: e.phone == .equal)
            e.kindUnexplained = Self.kindWordUnexplained(a, b) || Self.kindWordUnexplained(b, a)
        }

        var s = e.name
        if e.genericConflict { s -= 0.1 }
        if e.numberConflict { s -= 0.3 }
        switch e.phone { case .equal: s += 0.2; case .different: s -= 0.05; case .unknown: break }
        if e.addressEqual { s += 0.1 }
        if e.houseNumber == .different { s -= 0.15 }
        if let street = e.street, street < 0.6 { s -= 0.1 }
        if let d = e.distance {
            if d <= 25 {
                s += 0.05
            } else if d > chainDistance {
                s -= 0.1 + 0.1 * min(1, (d - chainDistance) / max(1, maxDistance - chainDistance))
            }
        }
        switch e.category { case .equal: s += 0.03; case .different: s -= 0.05; case .unknown: break }
        if e.categoryConflict { s -= 0.25 }
        if e.kindWordConflict { s -= 0.3 }
        // A city is weak evidence: "W. Springfield" and "Springfield" may list one restaurant.
        if e.city == .different { s -= 0.05 }
        e.strength = s
        s = min(1, max(0, s))

        let identity = e.phone == .equal || e.addressEqual
        // Equal phone and equal street address with house number: one name containing the other, or
        // sharing its distinctive word, is then the same place ("Nick's" / "Nick's Famous Pizza").
        // With an equal phone and no address that disagrees, one name holding every word of the other is
        // too: a guide's short name and another's long one ("Oyster Bar" / "Grand Central Oyster Bar",
        // "The Grill" / "Grill on the Alley", whose only shared word is a kind word).
        // Scored below a full name match, so one-to-one assignment still pairs two venues of one
        // hotel with their own counterparts.
        if e.phone == .equal && s < thresholds.accept + 0.05 && !otherQualifier
            && !e.genericConflict && !e.numberConflict && !e.categoryConflict && !e.kindWordConflict {
            if e.addressEqual && e.houseNumber == .equal && sharesWord(a, b) {
                e.sharedIdentity = true
            } else if e.houseNumber != .different && (e.street ?? 1) >= 0.6 && Self.oneNameHoldsTheOther(a, b) {
                e.phoneAndHeldName = true
            }
            if e.sharedIdentity || e.phoneAndHeldName { s = thresholds.accept + 0.05 }
        }
        // Shared generic and locality words ("Books", "Helsinki") lift the name score of two different
        // businesses; only words that agree make a match. Checked only when it could decide the verdict.
        if s >= thresholds.accept && !identity && distinctiveWordsDisagree(a, b) {
            e.distinctiveConflict = true
            s = min(s, below(thresholds.accept))
        }
        let venueQuery = { (record: PreparedRecord) in
            record.hasAddress || record.phoneKey != 0 || (record.categoryFamily != nil && record.categoryFamily != .area)
        }
        if a.isArea != b.isArea && venueQuery(a.isArea ? b : a) {
            e.limit = .differentKind
        } else if a.countryKey != 0 && b.countryKey != 0 && a.countryKey != b.countryKey {
            e.limit = .otherCountry
        } else if let d = e.distance {
            if d > maxDistance {
                e.limit = identity ? .tooFarDespiteIdentity : .tooFar
            } else if d > chainDistance && !identity {
                e.limit = .chainBranch
            }
        } else if !identity && !cityCorroborates {
            e.limit = .nameOnly
        }
        // Different kinds of place are at most worth a look; two names that each announce a kind need
        // an equal phone or address as well.
        if e.limit == .none
            && (e.categoryConflict || e.kindWordConflict || e.familyConflict || (e.genericConflict && !identity)) {
            e.limit = .kindDisagrees
        } else if e.limit == .none && e.kindUnexplained && !identity {
            e.limit = .kindUnexplained
        } else if e.limit == .none && otherQualifier {
            e.limit = .otherQualifier
        }
        switch e.limit {
        case .none: break
        case .chainBranch, .tooFarDespiteIdentity, .nameOnly, .kindDisagrees, .kindUnexplained, .otherQualifier:
            s = min(s, below(thresholds.accept))
        case .tooFar, .differentKind, .otherCountry: s = min(s, below(thresholds.review))
        }
        e.score = s
        return e
    }

    /// Both names carry a qualifier, and the two share no word.
    static func qualifiersDiffer(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        !a.qualifierWordKeys.isEmpty && !b.qualifierWordKeys.isEmpty && Set(a.qualifierWordKeys).isDisjoint(with: b.qualifierWordKeys)
    }

    /// Every word of one name (kind words included; articles, connecting words and company forms not) is a
    /// word of the other.
    static func oneNameHoldsTheOther(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        let (short, long) = a.nameWordKeys.count <= b.nameWordKeys.count ? (a.nameWordKeys, b.nameWordKeys) : (b.nameWordKeys, a.nameWordKeys)
        guard !short.isEmpty else { return false }
        var index = long.startIndex
        for key in short {
            while index < long.endIndex && long[index] < key { index += 1 }
            guard index < long.endIndex && long[index] == key else { return false }
            index += 1
        }
        return true
    }

    /// Both names announce a kind of place, and not the same one: different classes ("Cafe X" / "X Bar"),
    /// a hotel and a venue in it ("Grand Hotel" / "Grand Hotel Bar"), two venues of one hotel ("Grand Hotel
    /// Cafe" / "Grand Hotel Dining Room"), or different specific words of one class ("X Grill" / "X Pizzeria").
    static func genericWordsConflict(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        let (ka, kb) = (a.kindClasses, b.kindClasses)
        guard ka != 0 && kb != 0 else { return false }
        if ka & kb == 0 { return true }
        return a.kindWords != 0 && b.kindWords != 0 && a.kindWords & b.kindWords == 0
    }

    /// The kinds two names announce are in different families (a hotel and its bar, a café and a bookshop):
    /// two places even at one address and phone.
    static func genericFamiliesConflict(_ a: PreparedRecord, _ b: PreparedRecord) -> Bool {
        let fa = PreparedRecord.families(ofClasses: a.kindClasses), fb = PreparedRecord.families(ofClasses: b.kindClasses)
        return fa != 0 && fb != 0 && fa & fb == 0
    }

    /// A generic word only `named` has says a kind of venue that `other`'s category is not: "Ateneum Bistro"
    /// beside the museum "Ateneum" is the museum's restaurant, "Nordea Bar" is not the bank. Across families
    /// (food / culture / finance…) that always tells two places apart; within one ("Oakhurst Bistro" beside
    /// the café "Oakhurst") only when the phone does not say they are one business.
    static func extraWordNamesOtherKind(_ named: PreparedRecord, _ other: PreparedRecord, samePhone: Bool) -> Bool {
        let extra = named.kindClasses & ~other.kindClasses
        guard extra != 0, let family = other.categoryFamily, family != .area else { return false }
        let extraFamilies = PreparedRecord.families(ofClasses: extra)
        if extraFamilies != 0 && extraFamilies & family.bit == 0 { return true }
        return !samePhone && other.categoryClass != 0 && extra & other.categoryClass == 0
    }

    /// `named` adds a kind word to a name that has none ("Ateneum Bistro" / "Ateneum"), and neither record's
    /// category says that kind: the bare name may be the museum the bistro is in, or a decoy beside it.
    /// A category that agrees explains the word ("Maya Bar & Grill", a bar, is the "Maya" asked for); one
    /// that disagrees is ``extraWordNamesOtherKind(_:_:samePhone:)``'s case.
    static func kindWordUnexplained(_ named: PreparedRecord, _ other: PreparedRecord) -> Bool {
        guard other.kindClasses == 0, named.kindClasses != 0, other.categoryKey == 0 else { return false }
        if named.categoryClass & named.kindClasses != 0 { return false }
        if let family = named.categoryFamily, PreparedRecord.families(ofClasses: named.kindClasses) & family.bit != 0 {
            return false
        }
        return true
    }

    /// A score a visible step short of `threshold` (0.79 under 0.8), so a capped score reads as capped.
    private func below(_ threshold: Double) -> Double { max(0, threshold - 0.01) }

    // MARK: Reasons

    private func reasons(_ e: Evidence, _ a: PreparedRecord, _ b: PreparedRecord) -> [MatchReason] {
        var reasons: [MatchReason] = []
        func add(_ signal: MatchSignal, _ agreement: MatchAgreement, _ detail: String) {
            reasons.append(MatchReason(signal: signal, agreement: agreement, detail: detail))
        }
        let nameAgreement: MatchAgreement = e.name >= 0.9 ? .agrees : e.name >= 0.7 ? .partial : .disagrees
        add(.name, nameAgreement, "core names '\(a.coreName)' and '\(b.coreName)' score \(format(e.name))")
        if e.genericConflict {
            add(.name, .disagrees, "the names announce different kinds of place")
        }
        if e.numberConflict {
            add(.name, .disagrees, "the names carry different numbers")
        }
        if e.distinctiveConflict {
            add(.name, .limits, "each name has a distinctive word the other lacks, and no equal phone or address")
        }
        switch e.phone {
        case .equal: add(.phone, .agrees, "same number \(a.normalizedPhone ?? "")")
        case .different:
            add(.phone, .disagrees, "\(a.normalizedPhone ?? "") vs \(b.normalizedPhone ?? "") (weak: businesses have several numbers)")
        case .unknown: break
        }
        switch e.houseNumber {
        case .equal: add(.houseNumber, .agrees, "both \(a.houseNumber ?? "")")
        case .different:
            add(.houseNumber, .disagrees, "\(a.houseNumber ?? "") vs \(b.houseNumber ?? "")")
        case .unknown: break
        }
        if let street = e.street {
            let agreement: MatchAgreement = street >= 0.85 ? .agrees : street >= 0.6 ? .partial : .disagrees
            add(.address, agreement, "streets score \(format(street))")
        }
        if e.uniqueName {
            add(.name, .agrees, "exact name and no namesake among the candidates: within \(Int(thresholds.uniqueNameDistance)) m is near enough")
        }
        if e.typo {
            add(.name, .partial, "one typo apart: read as the same name, so distance, phone or address must agree")
        }
        if e.cityCorroborates {
            add(.city, .agrees, "exact name, no namesake among the candidates, in the city the question names")
        }
        if e.kindUnasked {
            add(.name, .limits, "the name adds a kind of place the question does not name: possibly a venue in or beside it")
        }
        if e.kindMissing {
            add(.name, .limits, "the question names a kind of place the name lacks, and no equal phone or address: possibly a venue the source lacks")
        }
        if e.typedWordLonger {
            add(.name, .limits, "the name only starts a longer word typed, and no equal phone or address: possibly a place the source lacks")
        }
        if e.ambiguous {
            add(.name, .limits, "another candidate, a different place, fits the question about as well")
        }
        if e.branchBeyondReach {
            add(.name, .limits, "other places bear this name too, none near enough to be the one meant: a chain's branches")
        }
        if let d = e.distance {
            let agreement: MatchAgreement = d <= 25 ? .agrees : d <= thresholds.chainDistance ? .partial : .disagrees
            add(.distance, agreement, "\(Int(d.rounded())) m apart")
        }
        switch e.category {
        case .equal: add(.category, .agrees, a.category ?? "")
        case .different:
            add(.category, .disagrees, "\(a.category ?? "") vs \(b.category ?? "")")
        case .unknown: break
        }
        if e.categoryConflict {
            add(.category, .disagrees, "different kinds of place")
        }
        if e.kindWordConflict {
            add(.name, .disagrees, "a generic word in one name says a kind of place the other's category is not")
        }
        if e.sharedIdentity {
            add(.address, .agrees, "equal phone and street address, and the names share a word")
        }
        if e.phoneAndHeldName {
            add(.phone, .agrees, "equal phone, and one name holds every word of the other")
        }
        if e.city == .different {
            add(.city, .disagrees, "\(a.city ?? "") vs \(b.city ?? "")")
        }
        let chain = Int(thresholds.chainDistance), far = Int(thresholds.maxDistance)
        switch e.limit {
        case .none: break
        case .chainBranch:
            add(.location, .limits, "more than \(chain) m apart without an equal phone or address: possibly another branch")
        case .tooFar:
            add(.location, .limits, "more than \(far) m apart without an equal phone or address")
        case .tooFarDespiteIdentity:
            add(.location, .limits, "phone or address agree but the places are more than \(far) m apart")
        case .nameOnly:
            add(.location, .limits, "only the name agrees: no distance, equal phone or equal address corroborates it")
        case .kindDisagrees:
            add(.category, .limits, "the names or categories say different kinds of place")
        case .kindUnexplained:
            add(.name, .limits, "one name adds a kind of place no category explains, and only distance agrees: possibly a venue in or beside the other")
        case .differentKind:
            add(.category, .limits, "a city, region or country cannot be a place with a street address, phone or venue category")
        case .otherCountry:
            add(.location, .limits, "in different countries")
        case .otherQualifier:
            add(.name, .limits, "both names carry a qualifier, and not the same one: another branch or room")
        }
        return reasons
    }

    private func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

/// The name signal over prepared words, with no allocation.
///
/// Equal word sets score 1. When one name's words are a strict subset of the other's ("Stockmann" /
/// "Stockmann Herkku"), RapidFuzz's `token_set_ratio` says 100, but the extra words usually mean a
/// neighbouring sub-venue: the score is the intersection-vs-longer ratio minus 0.2, so only an equal
/// phone or address makes such a pair a match. Otherwise it is the better of two edit-distance ratios:
/// the intersection followed by each side's remaining words (token-set alignment, which forgives word
/// order), and the core names as written (which forgives a typo that moves a word break).
enum NameSimilarity {
    static func score(_ a: NameView, _ b: NameView) -> Double {
        let (sortedA, wordsA, sortedB, wordsB) = (a.sorted, a.words, b.sorted, b.words)
        // A name of punctuation only has no words, and agrees with nothing.
        if wordsA.isEmpty || wordsB.isEmpty { return 0 }
        if TextCode.equal(sortedA, sortedB) { return 1 }
        // No word in common (most pairs a matcher looks at): the token-set alignment below would copy each side's
        // words, in order, into exactly the sorted names it already has, so their edit distance is taken in place;
        // and when each name as written is its sorted words, the names as written are those same bytes.
        if !wordsA.contains(where: { wa in wordsB.contains { $0.hash == wa.hash && $0.count == wa.count } }) {
            let total = sortedA.count + sortedB.count
            let lcs = EditDistance.lcs(sortedA, sortedB)
            let aligned = 1 - Double(total - 2 * lcs) / Double(total)
            if aligned >= 1 { return aligned }
            if TextCode.equal(a.ordered, sortedA) && TextCode.equal(b.ordered, sortedB) {
                return max(aligned, Double(2 * lcs) / Double(total))
            }
            return max(aligned, EditDistance.ratio(a.ordered, b.ordered))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: sortedA.count + sortedB.count + 2) { buffer in
            var sectLength = 0, sectCount = 0
            var abLength = 0, baLength = 0
            let baBase = sortedA.count + 1
            @inline(__always)
            func append(_ source: UnsafeBufferPointer<UInt8>, _ span: WordSpan, base: Int, length: inout Int) {
                if length > 0 { buffer[base + length] = TextCode.space; length += 1 }
                let start = Int(span.start)
                for k in 0..<Int(span.count) { buffer[base + length + k] = source[start + k] }
                length += Int(span.count)
            }
            var i = 0, j = 0
            while i < wordsA.count || j < wordsB.count {
                let order: Int
                if j == wordsB.count { order = -1 } else if i == wordsA.count { order = 1 } else {
                    order = compare(sortedA, wordsA[i], sortedB, wordsB[j])
                }
                if order < 0 {
                    append(sortedA, wordsA[i], base: 0, length: &abLength); i += 1
                } else if order > 0 {
                    append(sortedB, wordsB[j], base: baBase, length: &baLength); j += 1
                } else {
                    sectLength += Int(wordsA[i].count) + (sectCount > 0 ? 1 : 0)
                    sectCount += 1; i += 1; j += 1
                }
            }
            let separator = sectCount > 0 ? 1 : 0
            if sectCount > 0 && (abLength == 0 || baLength == 0) {
                let extra = separator + abLength + baLength
                return max(0, 1 - Double(extra) / Double(2 * sectLength + extra) - 0.2)
            }
            let lcs = EditDistance.lcs(UnsafeBufferPointer(rebasing: buffer[0..<abLength]),
                                       UnsafeBufferPointer(rebasing: buffer[baBase..<baBase + baLength]))
            let distance = abLength + baLength - 2 * lcs
            let aligned = 1 - Double(distance) / Double(2 * (sectLength + separator) + abLength + baLength)
            if aligned >= 1 { return aligned }
            return max(aligned, EditDistance.ratio(a.ordered, b.ordered))
        }
    }

    /// Whether each name keeps a word the other has nothing like: then the words they share are
    /// generic or local ("Silta Books Helsinki" / "Karhu Books Helsinki") and they name two businesses.
    ///
    /// Two words are alike as in libpostal's dedupe: equal; one an abbreviation of the other (same first
    /// letter, in order, at most half as long: "bel" / "belair", "j" / "john"); or, for words of four or
    /// more letters, one edit apart (a transposition counts as one) or Jaro–Winkler ≥ 0.9. Shorter words
    /// must be equal, so "Kuu" and "Kuusi" stay different names.
    static func distinctiveWordsDisagree(_ a: NameView, _ b: NameView) -> Bool {
        let (sortedA, wordsA, sortedB, wordsB) = (a.sorted, a.words, b.sorted, b.words)
        if wordsA.isEmpty || wordsB.isEmpty { return false }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: wordsA.count + wordsB.count) { only in
            var aOnly = 0, bOnly = 0
            let bBase = wordsA.count
            var i = 0, j = 0
            while i < wordsA.count || j < wordsB.count {
                let order: Int
                if j == wordsB.count { order = -1 } else if i == wordsA.count { order = 1 } else {
                    order = compare(sortedA, wordsA[i], sortedB, wordsB[j])
                }
                if order < 0 {
                    only[aOnly] = i; aOnly += 1; i += 1
                } else if order > 0 {
                    only[bBase + bOnly] = j; bOnly += 1; j += 1
                } else {
                    i += 1; j += 1
                }
            }
            if aOnly == 0 || bOnly == 0 { return false }
            var bMatched = 0
            var aUnmatched = false
            for x in 0..<aOnly {
                let wa = wordsA[only[x]]
                let codesA = UnsafeBufferPointer(rebasing: sortedA[Int(wa.start)..<Int(wa.start + wa.count)])
                var found = false
                for y in 0..<bOnly {
                    let raw = only[bBase + y]
                    let wb = wordsB[raw >= 0 ? raw : -1 - raw]
                    let codesB = UnsafeBufferPointer(rebasing: sortedB[Int(wb.start)..<Int(wb.start + wb.count)])
                    if wordsAlike(codesA, codesB) {
                        found = true
                        // Mark the B word as accounted for (negated index), counting it once.
                        if raw >= 0 { only[bBase + y] = -1 - raw; bMatched += 1 }
                    }
                }
                if !found { aUnmatched = true }
            }
            return aUnmatched && bMatched < bOnly
        }
    }

    static func wordsAlike(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        let (short, long) = x.count <= y.count ? (x, y) : (y, x)
        if short.isEmpty { return false }
        // Numbers are never abbreviations: "1" and "12" are different addresses or branches.
        if 2 * short.count <= long.count && short[0] == long[0] && !TextCode.isDigit(short[0])
            && isSubsequence(short, of: long) {
            return true
        }
        guard short.count >= 4 else { return short.elementsEqual(long) }
        if long.count - short.count <= 1 && withinOneEdit(short, long) { return true }
        return EditDistance.jaroWinkler(x, y) >= 0.9
    }

    /// See ``PlaceMatcher/oneTypoApart(_:_:)``.
    static func oneTypoApart(_ a: NameView, _ b: NameView) -> Bool {
        let (sortedA, wordsA, sortedB, wordsB) = (a.sorted, a.words, b.sorted, b.words)
        var onlyA: WordSpan?, onlyB: WordSpan?
        var i = 0, j = 0
        while i < wordsA.count || j < wordsB.count {
            let order: Int
            if j == wordsB.count { order = -1 } else if i == wordsA.count { order = 1 } else {
                order = compare(sortedA, wordsA[i], sortedB, wordsB[j])
            }
            if order < 0 {
                if onlyA != nil { return false }
                onlyA = wordsA[i]; i += 1
            } else if order > 0 {
                if onlyB != nil { return false }
                onlyB = wordsB[j]; j += 1
            } else {
                i += 1; j += 1
            }
        }
        guard let onlyA, let onlyB else { return false }
        let x = a.word(onlyA), y = b.word(onlyB)
        let (short, long) = x.count <= y.count ? (x, y) : (y, x)
        guard short.count >= 4, long.count - short.count <= 1, short[0] == long[0],
              !short.contains(where: TextCode.isDigit), !long.contains(where: TextCode.isDigit) else { return false }
        if long.count >= 5 { return withinOneEdit(short, long) }
        // Four letters: only a swap of neighbours, which keeps every letter ("Kalo" / "Klao", not "Kalo" / "Kali").
        var k = 0
        while k < short.count && short[k] == long[k] { k += 1 }
        return k + 1 < short.count && short[k] == long[k + 1] && short[k + 1] == long[k]
            && UnsafeBufferPointer(rebasing: short[(k + 2)...]).elementsEqual(UnsafeBufferPointer(rebasing: long[(k + 2)...]))
    }

    /// See ``PlaceMatcher/typedWordExtendsName(_:_:)``: some word of `name` (two letters or more) is a
    /// strict prefix of a word of `typed` that `name` does not have.
    static func wordExtended(by typed: NameView, of name: NameView) -> Bool {
        typed.words.contains { typedSpan in
            let word = typed.word(typedSpan)
            return !name.words.contains { name.word($0).elementsEqual(word) }
                && name.words.contains { nameSpan in
                    let start = name.word(nameSpan)
                    return start.count >= 2 && start.count < word.count && word.prefix(start.count).elementsEqual(start)
                }
        }
    }

    static func isSubsequence(_ short: UnsafeBufferPointer<UInt8>, of long: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        for c in long where k < short.count && c == short[k] { k += 1 }
        return k == short.count
    }

    /// Optimal-string-alignment distance ≤ 1, for lengths equal or one apart (`short` not longer).
    static func withinOneEdit(_ short: UnsafeBufferPointer<UInt8>, _ long: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        while k < short.count && short[k] == long[k] { k += 1 }
        if k == short.count { return true }
        if short.count == long.count {
            // One substitution, or one transposition of neighbours.
            if k + 1 < short.count && short[k] == long[k + 1] && short[k + 1] == long[k]
                && UnsafeBufferPointer(rebasing: short[(k + 2)...]).elementsEqual(UnsafeBufferPointer(rebasing: long[(k + 2)...])) {
                return true
            }
            return UnsafeBufferPointer(rebasing: short[(k + 1)...]).elementsEqual(UnsafeBufferPointer(rebasing: long[(k + 1)...]))
        }
        // One insertion into the shorter word.
        return UnsafeBufferPointer(rebasing: short[k...]).elementsEqual(UnsafeBufferPointer(rebasing: long[(k + 1)...]))
    }

    /// Alphabetical order of two words (by their codes).
    @inline(__always)
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ wa: WordSpan, _ b: UnsafeBufferPointer<UInt8>, _ wb: WordSpan) -> Int {
        if wa.hash == wb.hash && wa.count == wb.count { return 0 }
        let n = Int(min(wa.count, wb.count))
        let sa = Int(wa.start), sb = Int(wb.start)
        for k in 0..<n where a[sa + k] != b[sb + k] { return a[sa + k] < b[sb + k] ? -1 : 1 }
        return wa.count == wb.count ? 0 : wa.count < wb.count ? -1 : 1
    }
}

/// Per-chunk results written from `concurrentPerform` workers.
final class ChunkResults<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [[Element]]

    init(count: Int) { chunks = Array(repeating: [], count: count) }

    func set(_ index: Int, _ elements: [Element]) {
        lock.lock()
        chunks[index] = elements
        lock.unlock()
    }

    func joined() -> [Element] {
        lock.lock()
        defer { lock.unlock() }
        return chunks.flatMap { $0 }
    }
}
