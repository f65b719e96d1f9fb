import Foundation
import PlaceIndex
import PlacesCore

/// The free local provider: answers from the OSM + GeoNames index on this machine, with no network
/// and no cost, which is why the lookup pipeline asks it first.
public struct LocalProvider: PlaceProvider {
    public let index: PlaceIndexStore

    public init(index: PlaceIndexStore) { self.index = index }

    public var name: String { "local" }

    public var capabilities: ProviderCapabilities { [.textSearch, .nearby, .details, .reverse, .suggest, .match] }

    /// Open data: ODbL and CC BY allow keeping it for ever (with attribution).
    public var cacheTerms: CacheTerms { .unlimited }

    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote { .free }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        try index.search(text: query.text, near: query.near, radius: query.radius, category: query.category, limit: query.limit)
    }

    public func nearby(_ query: NearbyQuery) async throws -> [Place] {
        try index.nearby(center: query.center, radius: query.radius, category: query.category, brand: query.brand,
                         limit: query.limit)
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        try index.place(id: query.id)
    }

    /// The nearest address or POI within 100 m, the GeoNames city the point belongs to, its country and
    /// IANA time zone; `nil` when the index knows nothing near the point.
    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? {
        let answer = try index.reverse(query.coordinate)
        guard answer.nearest != nil || answer.city != nil else { return nil }
        let attribution = [
            answer.nearest.map { _ in OSMPlaceExtractor.attribution },
            answer.city.map { _ in LocalImporter.geoNamesAttribution },
        ].compactMap { $0 }.joined(separator: "; ")
        return ReverseGeocode(
            coordinate: query.coordinate, nearest: answer.nearest, nearestDistance: answer.nearestDistance,
            city: answer.city?.name, cityID: answer.city?.placeID, region: nil,
            countryCode: answer.city?.countryCode ?? answer.nearest?.address?.countryCode,
            timeZone: answer.city?.timeZone, attribution: attribution)
    }

    public func suggest(_ query: SuggestQuery) async throws -> [Suggestion] {
        try index.suggest(prefix: query.prefix, near: query.near, limit: query.limit).map { place in
            // A street or a square has no address of its own (only the city around it, when one was found): what it
            // is ("street") says more than nothing.
            Suggestion(text: place.name, secondaryText: place.formattedAddress ?? place.categoryLabel,
                       placeID: place.id, coordinate: place.coordinate)
        }
    }

    /// Candidates for one specific place: the name searched near the given point (any-word matching
    /// when every word does not match, so "Maya Bar and Grill" still finds "Maya Bar & Grill").
    public func match(_ query: MatchQuery) async throws -> [Place] {
        try index.search(text: query.name, near: query.near, radius: nil, category: nil, limit: 5)
    }
}
