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

    enum CodingKeys: String, CodingKey, CaseIterable {
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

extension LookupJSON {
    /// A key of the one object a lookup writes: the place's keys and the lookup's own, merged.
    enum MergedKey {
        case place(PlaceJSON.CodingKeys)
        case lookup(CodingKeys)
        /// `row_id` and `failure` of a `lookup --batch` line, which joins the lookup's keys.
        case batch(BatchLineJSON.CodingKeys)

        var name: String {
            switch self {
            case .place(let key): key.rawValue
            case .lookup(let key): key.rawValue
            case .batch(let key): key.rawValue
            }
        }
    }

    /// Both key sets in sorted order, worked out once. `provenance` is the place's key: the lookup writes
    /// `{}` under it when the place has none (see ``encode(to:)``).
    static let keysInWriteOrder: [MergedKey] =
        (PlaceJSON.CodingKeys.allCases.map(MergedKey.place)
            + CodingKeys.allCases.filter { $0 != .provenance }.map(MergedKey.lookup)
            + BatchLineJSON.CodingKeys.allCases.map(MergedKey.batch))
        .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }

    /// Writes the bytes ``encode(to:)`` gives through ``PlacesJSON/encoder(pretty:)``.
    public func write(into writer: inout JSONWriter) { write(into: &writer, batchRow: nil) }

    func write(into writer: inout JSONWriter, batchRow: BatchLineJSON?) {
        writer.beginObject()
        for key in Self.keysInWriteOrder {
            switch key {
            case .batch(.rowID):
                guard let batchRow else { continue }
                writer.key("row_id"); writer.value(batchRow.rowID)
            case .batch(.failure):
                guard let failure = batchRow?.failure else { continue }
                writer.key("failure"); writer.value(failure)
            case .place(.provenance) where place?.provenance == nil:
                writer.key("provenance")
                writer.emptyObject()
            case .place(let placeKey):
                place?.write(placeKey, into: &writer)
            case .lookup(let lookupKey):
                write(lookupKey, into: &writer)
            }
        }
        writer.endObject()
    }

    private func write(_ key: CodingKeys, into writer: inout JSONWriter) {
        switch key {
        case .found: writer.key(key.rawValue); writer.value(found)
        case .match:
            writer.key(key.rawValue)
            if let match {
                writer.beginObject()
                writer.key("score"); writer.value(match.score)
                writer.key("verdict"); writer.value(match.verdict)
                writer.endObject()
            } else {
                writer.null()
            }
        case .ambiguous: writer.key(key.rawValue); writer.value(ambiguous)
        case .didYouMean:
            guard ambiguous else { return }
            writer.key(key.rawValue)
            writer.beginArray()
            for candidate in didYouMean {
                writer.beginObject()
                if let distanceM = candidate.distanceM { writer.key("distance_m"); writer.value(distanceM) }
                writer.key("id"); writer.value(candidate.id)
                writer.key("name"); writer.value(candidate.name)
                writer.endObject()
            }
            writer.endArray()
        case .costUSD: writer.key(key.rawValue); writer.value(costUSD)
        case .cache: writer.key(key.rawValue); writer.value(cache)
        case .budgetExhausted: writer.key(key.rawValue); writer.value(budgetExhausted)
        case .stale: writer.key(key.rawValue); writer.value(stale)
        case .calls: writer.key(key.rawValue); writer.value(calls)
        case .errors: writer.key(key.rawValue); writer.value(errors)
        case .steps:
            guard let steps else { return }
            writer.key(key.rawValue); writer.value(steps)
        case .provenance: return  // written as the place's key
        }
    }
}

extension PlacesJSON {
    /// The one function that renders a lookup result, for the CLI and the server alike.
    public static func lookup(_ outcome: LookupOutcome, reference: Coordinate? = nil, explain: Bool = false,
                              pretty: Bool = false) throws -> Data {
        var writer = JSONWriter(pretty: pretty, capacity: 2_048)
        LookupJSON(outcome, reference: reference, explain: explain).write(into: &writer)
        return writer.data
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

    enum CodingKeys: String, CodingKey, CaseIterable {
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

extension BatchLineJSON {
    /// `row_id` and `failure` join the lookup's keys in one object, sorted.
    public func write(into writer: inout JSONWriter) {
        guard let lookup else {
            writer.beginObject()
            if let failure { writer.key("failure"); writer.value(failure) }
            writer.key("row_id"); writer.value(rowID)
            writer.endObject()
            return
        }
        lookup.write(into: &writer, batchRow: self)
    }
}

extension PlacesJSON {
    public static func batchLine(_ result: BatchRowResult) throws -> Data {
        var writer = JSONWriter()
        BatchLineJSON(result).write(into: &writer)
        return writer.data
    }
}
