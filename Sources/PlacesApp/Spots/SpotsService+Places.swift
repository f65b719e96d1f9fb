import Foundation
import PlacesCore
import PlacesMatching
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
    public var verdict: MatchVerdict
    public var reasons: [String]
}

/// The spot operations that need places looked up: saving a known place, a looked-up one or a raw point,
/// and refreshing attached snapshots.
extension SpotsService {
    /// `add --from ID`: the place's details become the spot's snapshot.
    public func spot(from id: PlaceID, attributes: SpotAttributes, service: PlacesService, now: Date = Date()) async throws -> Spot {
        let place = try await service.details(id)
        var spot = Spot(saving: place, fetchedFrom: place.id.provider, at: now)
        attributes.apply(to: &spot)
        return spot
    }

    /// `add --lookup NAME --near LAT,LON`: searches near the point and keeps the candidate the matcher
    /// rates highest; throws when nothing reaches the matcher's `review` threshold.
    public func lookup(name: String, near: Coordinate, service: PlacesService) async throws -> SpotLookupMatch {
        let candidates = try await service.search(SearchQuery(text: name, near: near, radius: 2_000, limit: 10))
        let query = matcher.prepare(MatchRecord(query: MatchQuery(name: name, near: near)))
        let scored = candidates.map { place in (place, matcher.compare(query, matcher.prepare(MatchRecord(place: place)))) }
        guard let best = scored.max(by: { $0.1.score < $1.1.score }), best.1.verdict != .nonMatch else {
            let closest = scored.max(by: { $0.1.score < $1.1.score }).map { " (closest: '\($0.0.name)')" } ?? ""
            throw InputError("no place named '\(name)' found near \(near)\(closest); try another spelling, or save the point with --at LAT,LON --name NAME")
        }
        return SpotLookupMatch(place: best.0, score: best.1.score, verdict: best.1.verdict, reasons: best.1.reasons.map(\.description))
    }

    /// `add --at LAT,LON --name NAME`: a raw point, with the nearest known address (reverse geocoded) when there is one.
    public func spot(at coordinate: Coordinate, attributes: SpotAttributes, service: PlacesService?, now: Date = Date()) async -> Spot {
        var spot = Spot(name: attributes.name ?? "", coordinate: coordinate, createdAt: now)
        if let service, let answer = try? await service.reverse(coordinate) {
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
        public var error: String?
    }

    /// Re-runs the details lookup of each spot's attached place and stores the new snapshot.
    /// Spots without an attached place are left alone. Each spot is saved in its own transaction.
    public func refresh(_ spots: [Spot], service: PlacesService, now: Date = Date()) async -> [RefreshResult] {
        var results: [RefreshResult] = []
        for spot in spots {
            guard let id = spot.snapshot?.place.id ?? spot.placeIDs.first else { continue }
            do {
                let fresh = try await service.details(id)
                let changes = Self.changes(from: spot.snapshot?.place, to: fresh)
                let snapshot = SpotSnapshot(place: fresh, fetchedAt: now, source: fresh.id.provider)
                let saved = try store.update(spot.id.storeKey, now: now) { stored in
                    stored.snapshot = snapshot
                    if !stored.placeIDs.contains(fresh.id) { stored.placeIDs.append(fresh.id) }
                    if stored.address == nil { stored.address = fresh.formattedAddress ?? fresh.address?.formatted }
                }
                results.append(RefreshResult(spot: saved, changes: changes))
            } catch {
                results.append(RefreshResult(spot: spot, changes: [], error: "\((error as? InputError)?.message ?? "\(error)")"))
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
