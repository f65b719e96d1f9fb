import PlacesCore
import PlacesMatching

/// Judges whether a provider's candidate is the place the user asked for.
///
/// The pipeline depends on this protocol rather than on the matcher directly, so tests and
/// benchmarks can plug in labelled truth, and the matcher's own types stay out of the cache format.
public protocol CandidateScorer: Sendable {
    func score(_ query: MatchQuery, _ candidate: Place) -> CandidateScore
    /// Every candidate one provider returned, in order: a scorer may weigh them against each other
    /// (an exact name with no namesake among them may be further from `near` than a chain's branch).
    func score(_ query: MatchQuery, candidates: [Place]) -> [CandidateScore]
}

extension CandidateScorer {
    public func score(_ query: MatchQuery, candidates: [Place]) -> [CandidateScore] {
        candidates.map { score(query, $0) }
    }
}

/// The production scorer: the fuzzy matcher (name, distance, phone, address).
public struct MatcherScorer: CandidateScorer {
    public let matcher: PlaceMatcher

    public init(matcher: PlaceMatcher) { self.matcher = matcher }

    public func score(_ query: MatchQuery, _ candidate: Place) -> CandidateScore {
        score(query, candidates: [candidate])[0]
    }

    public func score(_ query: MatchQuery, candidates: [Place]) -> [CandidateScore] {
        matcher.compare(query: MatchRecord(query: query), candidates: candidates.map(MatchRecord.init(place:))).map { result in
            let verdict: LookupVerdict = switch result.verdict {
            case .match: .match
            case .review: .review
            case .nonMatch: .nonMatch
            }
            return CandidateScore(score: result.score, verdict: verdict, reasons: result.reasons.map { "\($0)" },
                                  ambiguous: result.ambiguous, branchBeyondReach: result.branchBeyondReach)
        }
    }
}
