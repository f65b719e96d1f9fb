import Foundation
import PlacesCore
import PlacesPipeline

/// The JSON of one lookup: the place's usual JSON shape plus how it was found.
///
/// `places lookup --json` prints it and the server's LOOKUP returns it, both through
/// ``PlacesJSON/lookup(_:reference:explain:pretty:)``. With no answer, the place keys are absent
/// and `found` is false; the lookup keys are always present.
public struct LookupJSON: Encodable, Sendable {
    public struct MatchJSON: Encodable, Sendable {
        public var score: Double
        public var verdict: String
    }

    /// One place an ambiguous question may mean, for `did_you_mean`.
    public struct CandidateJSON: Encodable, Sendable {
        public var id: String
        public var name: String
        public var distanceM: Double?

        enum CodingKeys: String, CodingKey {
            case id, name
            case distanceM = "distance_m"
        }
    }

    public var place: PlaceJSON?
    public var found: Bool
    public var match: MatchJSON?
    /// Several nearby places fit the question equally well; `didYouMean` lists them and none was paid for.
    public var ambiguous: Bool
    public var didYouMean: [CandidateJSON]
    public var costUSD: Double
    public var cache: String
    public var budgetExhausted: Bool
    public var stale: Bool
    public var calls: [String: Int]
    public var errors: [String]
    public var steps: [String]?

    public init(_ outcome: LookupOutcome, reference: Coordinate? = nil, explain: Bool = false) {
        place = outcome.place.map { PlaceJSON($0, reference: reference) }
        found = outcome.place != nil
        match = outcome.match.map { MatchJSON(score: ($0.score * 1_000).rounded() / 1_000, verdict: $0.verdict.rawValue) }
        ambiguous = !outcome.ambiguousCandidates.isEmpty
        didYouMean = outcome.ambiguousCandidates.map { place in
            CandidateJSON(id: place.id.description, name: place.name,
                          distanceM: reference.map { GeoMath.distance($0, place.coordinate).rounded() })
        }
        costUSD = outcome.cost.dollars
        cache = outcome.cache.rawValue
        budgetExhausted = outcome.budgetExhausted
        stale = outcome.cache == .stale
        calls = outcome.calls
        errors = outcome.errors
        steps = explain ? outcome.steps.map(\.description) : nil
    }

    enum CodingKeys: String, CodingKey {
        case found, match, ambiguous, cache, stale, calls, errors, steps
        case didYouMean = "did_you_mean"
        case costUSD = "cost_usd"
        case budgetExhausted = "budget_exhausted"
        case provenance
    }

    public func encode(to encoder: any Encoder) throws {
        try place?.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(found, forKey: .found)
        try c.encode(match, forKey: .match)
        try c.encode(ambiguous, forKey: .ambiguous)
        if ambiguous { try c.encode(didYouMean, forKey: .didYouMean) }
        try c.encode(costUSD, forKey: .costUSD)
        try c.encode(cache, forKey: .cache)
        try c.encode(budgetExhausted, forKey: .budgetExhausted)
        try c.encode(stale, forKey: .stale)
        try c.encode(calls, forKey: .calls)
        try c.encode(errors, forKey: .errors)
        try c.encodeIfPresent(steps, forKey: .steps)
        // Always present, so scripts can read where each field came from without checking.
        if place?.provenance == nil { try c.encode([String: FieldSource](), forKey: .provenance) }
    }
}

extension PlacesJSON {
    /// The one function that renders a lookup result, for the CLI and the server alike.
    public static func lookup(_ outcome: LookupOutcome, reference: Coordinate? = nil, explain: Bool = false,
                              pretty: Bool = false) throws -> Data {
        try encode(LookupJSON(outcome, reference: reference, explain: explain), pretty: pretty)
    }
}

/// One line of `places lookup --batch` output: the input row's id, then the lookup JSON.
public struct BatchLineJSON: Encodable, Sendable {
    public var rowID: String
    public var lookup: LookupJSON?
    public var failure: String?

    public init(_ result: BatchRowResult) {
        rowID = result.row.id
        lookup = result.outcome.map { LookupJSON($0, reference: result.row.query.near) }
        failure = result.failure
    }

    enum CodingKeys: String, CodingKey {
        case rowID = "row_id"
        case failure
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rowID, forKey: .rowID)
        try c.encodeIfPresent(failure, forKey: .failure)
        try lookup?.encode(to: encoder)
    }
}

extension PlacesJSON {
    public static func batchLine(_ result: BatchRowResult) throws -> Data {
        try encode(BatchLineJSON(result))
    }
}
