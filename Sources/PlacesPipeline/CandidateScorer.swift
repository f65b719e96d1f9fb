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
        let asked = MatchRecord(query: query)
        // The question's name as typed, and without a category phrase ("Ateneum Art Museum" → "Ateneum"), which is
        // compared only with candidates whose categories the phrase names.
        let phrase = CategoryWords.find(in: SearchText.words(query.name)).flatMap { $0.rest.isEmpty ? nil : $0 }
        var questions: [(name: String?, prepared: PreparedRecord)] = [(nil, matcher.prepare(asked))]
        if let phrase {
            var stripped = asked
            stripped.name = phrase.rest.joined(separator: " ")
            questions.append((stripped.name, matcher.prepare(stripped)))
        }
        var questionNames: [String?] = []
        let records = candidates.map { place in
            // Found by another of its names ("Old Market Hall" for Vanha Kauppahalli, its name:en), the question
            // gave that name, so it is the one to compare; by its main name alone it scored 0.38 and the lookup
            // answered "no place matching". A name that begins or ends with the place's own city is compared
            // without it too ("Helsinki Senate Square" asked as "Senate Square"). Of every pair of a question's name
            // and a candidate's, the one that agrees best is compared: the main name and the name as typed on ties.
            let record = MatchRecord(place: place)
            let kindSaid = phrase.map { phrase in phrase.keywords.contains(where: Self.kinds(of: place).contains) } ?? false
            var best: (question: String?, record: MatchRecord, similarity: Double)?
            for name in Self.namesToCompare(place) {
                var byName = record
                byName.name = name
                let candidate = matcher.prepare(byName)
                for question in questions.prefix(kindSaid ? 2 : 1) {
                    let similarity = matcher.nameSimilarity(question.prepared, candidate)
                    if similarity > best?.similarity ?? -1 { best = (question.name, byName, similarity) }
                }
            }
            questionNames.append(best?.question)
            return best?.record ?? record
        }
        return matcher.compare(query: asked, candidates: records, questionNames: questionNames).map { result in
            let verdict: LookupVerdict = switch result.verdict {
            case .match: .match
            case .review: .review
            case .nonMatch: .nonMatch
            }
            return CandidateScore(score: result.score, verdict: verdict, reasons: result.reasons.map { "\($0)" },
                                  ambiguous: result.ambiguous, branchBeyondReach: result.branchBeyondReach)
        }
    }

    /// The kinds a place's categories say, as category phrases name them ("shop=department_store" → "department store").
    static func kinds(of place: Place) -> Set<String> {
        Set(([place.category].compactMap { $0 } + place.categories).map { category in
            String(category.split(separator: "=").last ?? "").lowercased().replacingOccurrences(of: "_", with: " ")
        })
    }

    /// The candidate's main name, the other name the search matched, and each without the place's city at its
    /// start or end, main name first.
    static func namesToCompare(_ place: Place) -> [String] {
        var names = [place.name]
        if let other = place.searchMatch?.matchedName, other != place.name { names.append(other) }
        if let city = place.address?.city, !city.isEmpty {
            let cityWords = SearchText.words(city)
            for name in names {
                let words = name.split(separator: " ")
                guard words.count > cityWords.count else { continue }
                if SearchText.words(words.prefix(cityWords.count).joined(separator: " ")) == cityWords {
                    names.append(words.dropFirst(cityWords.count).joined(separator: " "))
                } else if SearchText.words(words.suffix(cityWords.count).joined(separator: " ")) == cityWords {
                    names.append(words.dropLast(cityWords.count).joined(separator: " "))
                }
            }
        }
        return names
    }
}
