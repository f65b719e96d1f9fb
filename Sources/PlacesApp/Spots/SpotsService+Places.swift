import Foundation
import PlacesCore
import PlacesMatching
import PlacesPipeline
import SpotStore

/// What the user types on top of any `add` form.
public struct SpotAttributes: Sendable, Hashable {
    public var name: String?
    public var category: String?
    public var tags: [String]
    public var notes: String?
    public var rating: SpotRating?

    public init(name: String? = nil, category: String? = nil, tags: [String] = [], notes: String? = nil, rating: SpotRating? = nil) {
        self.name = name
        self.category = category
        self.tags = tags
        self.notes = notes
        self.rating = rating
    }

    /// Applies what the user typed over what a lookup or import brought.
    public func apply(to spot: inout Spot) {
        if let name { spot.name = name }
        if let category { spot.category = PlaceCategory.normalize(category) ?? category }
        for tag in tags where !spot.tags.contains(tag) { spot.tags.append(tag) }
        if let notes { spot.notes = notes }
        if let rating { spot.rating = rating }
    }
}

/// A lookup's answer before it is saved: the place and how well it matched what was asked.
public struct SpotLookupMatch: Sendable {
    public var place: Place
    public var score: Double
    /// The pipeline's verdict: `match` or `review`.
    public var verdict: String
    public var reasons: [String]
    public var cost: MicroDollars
    /// What answered: `cache` or the provider's name; kept as the snapshot's source.
    public var source: String
}

/// `add --lookup` found nothing that names the place.
public struct SpotLookupMiss: Error, Sendable {
    public var name: String
    public var near: Coordinate
    /// Why a paid provider was not asked, when the budget stopped the lookup.
    public var budgetNote: String?
}

/// Why one spot's refresh left its snapshot as it was.
public enum RefreshSkipped: Error, Sendable, Hashable {
    /// The run's spending cap was used up by earlier spots.
    case spendingCapReached
    /// The lookup found no confident answer this time (`budgetNote` when the budget stopped it).
    case noConfidentAnswer(budgetNote: String?)
}

/// The spot operations that need places looked up: saving a known place, a looked-up one or a raw point,
/// and refreshing attached snapshots.
extension SpotsService {
    /// `add --from ID`: the place's details become the spot's snapshot.
    public func spot(from id: PlaceID, attributes: SpotAttributes, app: PlacesApplication, now: Date = Date()) async throws -> Spot {
        let place = try await app.details(id)
        var spot = Spot(saving: place, fetchedFrom: place.id.provider, at: now)
        attributes.apply(to: &spot)
        return spot
    }

    /// `add --lookup NAME --near LAT,LON`: runs the lookup pipeline (cache, local index, paid providers under
    /// budget), asked as every lookup is, and returns its answer, or `nil` with the outcome when the pipeline
    /// found nothing that names the place.
    public func lookup(name: String, near: Coordinate, app: PlacesApplication,
                       maxCost: MicroDollars? = nil) async throws -> Result<SpotLookupMatch, SpotLookupMiss> {
        let outcome = try await app.lookup(.asking(MatchQuery(name: name, near: near), maxCost: maxCost))
        guard let place = outcome.place, let match = outcome.match, match.verdict != .nonMatch else {
            return .failure(SpotLookupMiss(name: name, near: near, budgetNote: outcome.budgetNote))
        }
        return .success(SpotLookupMatch(place: place, score: match.score, verdict: match.verdict.rawValue, reasons: match.reasons,
                                        cost: outcome.cost, source: outcome.cache == .hit ? "cache" : place.id.provider))
    }

    /// `add --at LAT,LON --name NAME`: a raw point, with the nearest known address (reverse geocoded) when there is one.
    public func spot(at coordinate: Coordinate, attributes: SpotAttributes, app: PlacesApplication?, now: Date = Date()) async -> Spot {
        var spot = Spot(name: attributes.name ?? "", coordinate: coordinate, createdAt: now)
        if let app, let answer = try? await app.reverse(coordinate) {
            let street = answer.nearestDistance.flatMap { $0 <= 100 ? answer.nearest : nil }
                .flatMap { $0.formattedAddress ?? $0.address?.formatted }
            spot.address = street ?? [answer.city, answer.region, answer.countryCode].compactMap { $0 }.joined(separator: ", ")
            if spot.address?.isEmpty == true { spot.address = nil }
        }
        attributes.apply(to: &spot)
        return spot
    }

    /// One spot's refresh: what changed between the old snapshot and the new answer.
    public struct RefreshResult: Sendable {
        public var spot: Spot
        public var changes: [String]
        /// Why this spot was not refreshed: a ``RefreshSkipped``, or the failure that stopped its lookup.
        public var error: (any Error)?
        public var cost: MicroDollars = .zero
    }

    /// Re-runs each spot's attached lookup through the pipeline, so fresh cache entries answer for free
    /// (TTL) and paid providers are asked only within the budget and `maxCost` for the whole run.
    /// Spots without an attached place are left alone. Each spot is saved in its own transaction.
    public func refresh(_ spots: [Spot], app: PlacesApplication, maxCost: MicroDollars? = nil, now: Date = Date()) async -> [RefreshResult] {
        var results: [RefreshResult] = []
        var spent = MicroDollars.zero
        for spot in spots {
            guard let old = spot.snapshot?.place else { continue }
            do {
                let remaining = maxCost.map { $0 - spent }
                if let remaining, remaining < .zero { throw RefreshSkipped.spendingCapReached }
                let query = MatchQuery(name: old.name, near: old.coordinate, address: old.formattedAddress ?? old.address?.formatted,
                                       city: old.address?.city, countryCode: old.address?.countryCode, phone: old.phone)
                let outcome = try await app.lookup(.asking(query, maxCost: remaining))
                spent = spent + outcome.cost
                guard let fresh = outcome.place, outcome.match?.verdict != .nonMatch else {
                    throw RefreshSkipped.noConfidentAnswer(budgetNote: outcome.budgetNote)
                }
                let changes = Self.changes(from: old, to: fresh)
                let snapshot = SpotSnapshot(place: fresh, fetchedAt: now, source: outcome.cache == .hit ? "cache" : fresh.id.provider)
                let saved = try await store.update(spot.id.storeKey, now: now) { stored in
                    stored.snapshot = snapshot
                    for id in [fresh.id] + fresh.alternateIDs where !stored.placeIDs.contains(where: { $0.provider == id.provider }) {
                        stored.placeIDs.append(id)
                    }
                }
                results.append(RefreshResult(spot: saved, changes: changes, cost: outcome.cost))
            } catch {
                results.append(RefreshResult(spot: spot, changes: [], error: error))
            }
        }
        return results
    }

    /// Human lines for the fields a person cares about when a saved place changes.
    static func changes(from old: Place?, to new: Place) -> [String] {
        guard let old else { return ["first snapshot"] }
        var lines: [String] = []
        func compare(_ label: String, _ a: String?, _ b: String?) {
            if a != b { lines.append("\(label): \(a ?? "none") → \(b ?? "none")") }
        }
        compare("name", old.name, new.name)
        compare("phone", old.phone, new.phone)
        compare("website", old.website, new.website)
        compare("hours", old.openingHoursText, new.openingHoursText)
        compare("address", old.formattedAddress ?? old.address?.formatted, new.formattedAddress ?? new.address?.formatted)
        compare("status", old.status?.rawValue, new.status?.rawValue)
        let moved = GeoMath.distance(old.coordinate, new.coordinate)
        if moved > 25 { lines.append("moved \(Int(moved.rounded())) m") }
        if new.status == .closedPermanently && old.status != .closedPermanently { lines.append("closed permanently") }
        return lines
    }
}
