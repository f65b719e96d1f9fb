import PlacesCore
import PlacesMatching

/// Judges whether a provider's candidate is the place the user asked for.
///
/// The pipeline depends on this protocol rather than on the matcher directly, so tests and
/// benchmarks can plug in labelled truth, and the matcher's own types stay out of the cache format.
public protocol CandidateScorer: Sendable {
    func score(_ query: MatchQuery, _ candidate: Place) -> CandidateScore
}

/// The production scorer: the fuzzy matcher (name, distance, phone, address).
public struct MatcherScorer: CandidateScorer {
    public let matcher: PlaceMatcher

    public init(matcher: PlaceMatcher) { self.matcher = matcher }

    public func score(_ query: MatchQuery, _ candidate: Place) -> CandidateScore {
        let result = matcher.compare(MatchRecord(query: query), MatchRecord(place: candidate))
        let verdict: LookupVerdict = switch result.verdict {
        case .match: .match
        case .review: .review
        case .nonMatch: .nonMatch
        }
        return CandidateScore(score: result.score, verdict: verdict, reasons: result.reasons.map { "\($0)" })
    }
}
