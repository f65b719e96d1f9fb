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

    public init(accept: Double = 0.8, review: Double = 0.6, maxDistance: Double = 150, chainDistance: Double = 75,
                defaultRegion: String? = nil) {
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

    public func compare(_ a: MatchRecord, _ b: MatchRecord) -> MatchResult {
        compare(prepare(a), prepare(b))
    }

    public func compare(_ a: PreparedRecord, _ b: PreparedRecord) -> MatchResult {
        let evidence = evaluate(a, b)
        return MatchResult(score: evidence.score, verdict: verdict(evidence.score), reasons: reasons(evidence, a, b))
    }

    /// The score alone: the hot path of file matching and benchmarks.
    public func score(_ a: PreparedRecord, _ b: PreparedRecord) -> Double {
        evaluate(a, b).score
    }

    public func verdict(_ score: Double) -> MatchVerdict {
        score >= thresholds.accept ? .match : score >= thresholds.review ? .review : .nonMatch
    }

    // MARK: Evidence

    enum Comparison { case unknown, equal, different }
    enum Limit { case none, chainBranch, tooFar, tooFarDespiteIdentity, noLocation }

    struct Evidence {
        var name = 0.0
        var genericConflict = false
        var numberConflict = false
        var phone = Comparison.unknown
        var houseNumber = Comparison.unknown
        var street: Double?
        var addressEqual = false
        var distance: Double?
        var category = Comparison.unknown
        var city = Comparison.unknown
        var limit = Limit.none
        var score = 0.0
    }

    func evaluate(_ a: PreparedRecord, _ b: PreparedRecord) -> Evidence {
        var e = Evidence()
        let setScore = TokenSet.ratio(a.core, b.core)
        let sortScore = EditDistance.ratio(a.core.sorted, b.core.sorted)
        // One name's words inside the other's ("Stockmann" in "Stockmann Herkku") is token-set
        // perfect, yet as often a neighbouring sub-venue as the same place: the extra words count
        // against it, so only an equal phone or address lifts such a pair to `match`.
        let sameWords = a.core.spans.count == b.core.spans.count && setScore >= 1
        if sameWords {
            e.name = 1
        } else if setScore >= 1 {
            e.name = max(0, sortScore - 0.2)
        } else {
            e.name = max(0.5 * setScore + 0.5 * sortScore, EditDistance.ratio(a.coreOrdered, b.coreOrdered))
        }
        e.genericConflict = a.genericClasses != 0 && b.genericClasses != 0 && a.genericClasses & b.genericClasses == 0
        e.numberConflict = !a.numbers.isEmpty && !b.numbers.isEmpty && a.numbers != b.numbers

        if let pa = a.phone, let pb = b.phone { e.phone = pa == pb ? .equal : .different }
        if let ha = a.houseNumber, let hb = b.houseNumber { e.houseNumber = ha == hb ? .equal : .different }
        if !a.street.isEmpty && !b.street.isEmpty {
            let similarity = max(EditDistance.ratio(a.street, b.street), EditDistance.jaroWinkler(a.street, b.street))
            e.street = similarity
            e.addressEqual = similarity >= 0.85 && e.houseNumber != .different
                && (e.houseNumber == .equal || (a.houseNumber == nil && b.houseNumber == nil))
        }
        if let ca = a.coordinate, let cb = b.coordinate { e.distance = GeoMath.distance(ca, cb) }
        if let ca = a.category, let cb = b.category { e.category = ca == cb ? .equal : .different }
        if let ca = a.city, let cb = b.city { e.city = ca == cb ? .equal : .different }

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
            } else if d > thresholds.chainDistance {
                s -= 0.1 + 0.1 * min(1, (d - thresholds.chainDistance) / max(1, thresholds.maxDistance - thresholds.chainDistance))
            }
        }
        switch e.category { case .equal: s += 0.03; case .different: s -= 0.05; case .unknown: break }
        if e.city == .different { s -= 0.1 }
        s = min(1, max(0, s))

        let identity = e.phone == .equal || e.addressEqual
        if let d = e.distance {
            if d > thresholds.maxDistance {
                e.limit = identity ? .tooFarDespiteIdentity : .tooFar
            } else if d > thresholds.chainDistance && !identity {
                e.limit = .chainBranch
            }
        } else if e.phone == .unknown && e.street == nil && e.city != .equal {
            e.limit = .noLocation
        }
        switch e.limit {
        case .none: break
        case .chainBranch, .tooFarDespiteIdentity, .noLocation: s = min(s, below(thresholds.accept))
        case .tooFar: s = min(s, below(thresholds.review))
        }
        e.score = s
        return e
    }

    /// The largest score that still falls short of `threshold`.
    private func below(_ threshold: Double) -> Double { max(0, threshold.nextDown) }

    // MARK: Reasons

    private func reasons(_ e: Evidence, _ a: PreparedRecord, _ b: PreparedRecord) -> [MatchReason] {
        var reasons: [MatchReason] = []
        let nameAgreement: MatchAgreement = e.name >= 0.9 ? .agrees : e.name >= 0.7 ? .partial : .disagrees
        reasons.append(MatchReason(signal: .name, agreement: nameAgreement,
                                   detail: "core names '\(a.coreName)' and '\(b.coreName)' score \(format(e.name))"))
        if e.genericConflict {
            reasons.append(MatchReason(signal: .name, agreement: .disagrees,
                                       detail: "the names announce different kinds of place"))
        }
        if e.numberConflict {
            reasons.append(MatchReason(signal: .name, agreement: .disagrees, detail: "the names carry different numbers"))
        }
        switch e.phone {
        case .equal: reasons.append(MatchReason(signal: .phone, agreement: .agrees, detail: "same number \(a.phone ?? "")"))
        case .different:
            reasons.append(MatchReason(signal: .phone, agreement: .disagrees,
                                       detail: "\(a.phone ?? "") vs \(b.phone ?? "") (weak: businesses have several numbers)"))
        case .unknown: break
        }
        switch e.houseNumber {
        case .equal: reasons.append(MatchReason(signal: .houseNumber, agreement: .agrees, detail: "both \(a.houseNumber ?? "")"))
        case .different:
            reasons.append(MatchReason(signal: .houseNumber, agreement: .disagrees,
                                       detail: "\(a.houseNumber ?? "") vs \(b.houseNumber ?? "")"))
        case .unknown: break
        }
        if let street = e.street {
            let agreement: MatchAgreement = street >= 0.85 ? .agrees : street >= 0.6 ? .partial : .disagrees
            reasons.append(MatchReason(signal: .address, agreement: agreement, detail: "streets score \(format(street))"))
        }
        if let d = e.distance {
            let agreement: MatchAgreement = d <= 25 ? .agrees : d <= thresholds.chainDistance ? .partial : .disagrees
            reasons.append(MatchReason(signal: .distance, agreement: agreement, detail: "\(Int(d.rounded())) m apart"))
        }
        switch e.category {
        case .equal: reasons.append(MatchReason(signal: .category, agreement: .agrees, detail: a.category ?? ""))
        case .different:
            reasons.append(MatchReason(signal: .category, agreement: .disagrees, detail: "\(a.category ?? "") vs \(b.category ?? "")"))
        case .unknown: break
        }
        if e.city == .different {
            reasons.append(MatchReason(signal: .city, agreement: .disagrees, detail: "\(a.city ?? "") vs \(b.city ?? "")"))
        }
        let chain = Int(thresholds.chainDistance), far = Int(thresholds.maxDistance)
        switch e.limit {
        case .none: break
        case .chainBranch:
            reasons.append(MatchReason(signal: .location, agreement: .limits,
                                       detail: "more than \(chain) m apart without an equal phone or address: possibly another branch"))
        case .tooFar:
            reasons.append(MatchReason(signal: .location, agreement: .limits,
                                       detail: "more than \(far) m apart without an equal phone or address"))
        case .tooFarDespiteIdentity:
            reasons.append(MatchReason(signal: .location, agreement: .limits,
                                       detail: "phone or address agree but the places are more than \(far) m apart"))
        case .noLocation:
            reasons.append(MatchReason(signal: .location, agreement: .limits,
                                       detail: "no coordinates, address, phone or city on both sides to tell branches apart"))
        }
        return reasons
    }

    private func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}

/// RapidFuzz's `token_set_ratio` (0…1) over pre-tokenised names. Words are ordered by hash rather
/// than alphabetically, so a value can differ from RapidFuzz's in the last digits when words differ.
enum TokenSet {
    static func ratio(_ a: TokenizedName, _ b: TokenizedName) -> Double {
        a.sorted.withUnsafeBufferPointer { ca in
            b.sorted.withUnsafeBufferPointer { cb in
                a.spans.withUnsafeBufferPointer { sa in
                    b.spans.withUnsafeBufferPointer { sb in ratio(ca, sa, cb, sb) }
                }
            }
        }
    }

    private static func ratio(_ ca: UnsafeBufferPointer<UInt8>, _ sa: UnsafeBufferPointer<TokenizedName.Span>,
                              _ cb: UnsafeBufferPointer<UInt8>, _ sb: UnsafeBufferPointer<TokenizedName.Span>) -> Double {
        if sa.isEmpty || sb.isEmpty { return sa.isEmpty && sb.isEmpty ? 1 : 0 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ca.count + cb.count + 2) { buffer in
            var sectLength = 0, sectCount = 0
            var abLength = 0, baLength = 0
            let abBase = 0, baBase = ca.count + 1
            func append(_ source: UnsafeBufferPointer<UInt8>, _ span: TokenizedName.Span, base: Int, length: inout Int) {
                if length > 0 { buffer[base + length] = TextCode.space; length += 1 }
                for k in 0..<Int(span.count) { buffer[base + length + k] = source[Int(span.start) + k] }
                length += Int(span.count)
            }
            var i = 0, j = 0
            while i < sa.count || j < sb.count {
                if j == sb.count || (i < sa.count && sa[i].hash < sb[j].hash) {
                    append(ca, sa[i], base: abBase, length: &abLength); i += 1
                } else if i == sa.count || sb[j].hash < sa[i].hash {
                    append(cb, sb[j], base: baBase, length: &baLength); j += 1
                } else {
                    sectLength += Int(sa[i].count) + (sectCount > 0 ? 1 : 0)
                    sectCount += 1; i += 1; j += 1
                }
            }
            if sectCount > 0 && (abLength == 0 || baLength == 0) { return 1 }
            let lcs = EditDistance.lcs(UnsafeBufferPointer(rebasing: buffer[abBase..<abBase + abLength]),
                                       UnsafeBufferPointer(rebasing: buffer[baBase..<baBase + baLength]))
            let distance = abLength + baLength - 2 * lcs
            let separator = sectLength > 0 ? 1 : 0
            let sectAB = sectLength + separator + abLength, sectBA = sectLength + separator + baLength
            var result = sectAB + sectBA > 0 ? 1 - Double(distance) / Double(sectAB + sectBA) : 0
            if sectLength == 0 { return result }
            result = max(result, 1 - Double(separator + abLength) / Double(sectLength + sectAB))
            result = max(result, 1 - Double(separator + baLength) / Double(sectLength + sectBA))
            return result
        }
    }
}
