import Foundation
import PlacesCore
import PlacesHours
import ProviderHTTP

/// Foursquare Places (the new API at `places-api.foursquare.com`, version header `2025-06-17`).
///
/// Premium fields (`hours`, `rating`) are asked for only when the caller wants them, because
/// asking for them bills the Premium SKU.
public struct FoursquareProvider: PlaceProvider {
    public let name = "foursquare"
    public let capabilities: ProviderCapabilities = [.textSearch, .details, .match]
    public let cacheTerms: CacheTerms
    public let client: HTTPClient
    public let prices: PriceTable

    public static let apiVersion = "2025-06-17"
    /// Pro $15/1,000 and Premium $18.75/1,000 after the free calls; override under `[providers.foursquare.prices]`.
    public static let defaultPrices = PriceTable(provider: "foursquare", dollarsPerThousand: ["pro": 15, "premium": 18.75])
    /// Only ids may be cached.
    public static let defaultCacheTerms = CacheTerms(ids: nil, coordinates: 0, content: 0)

    static let proFields = ["fsq_place_id", "name", "latitude", "longitude", "location", "categories", "tel", "website"]

    public init(client: HTTPClient, prices: PriceTable = FoursquareProvider.defaultPrices,
                cacheTerms: CacheTerms = FoursquareProvider.defaultCacheTerms) {
        self.client = client
        self.prices = prices
        self.cacheTerms = cacheTerms
    }

    static func needsPremium(_ fields: Set<PlaceField>) -> Bool { fields.contains(.hours) || fields.contains(.rating) }

    /// The `fields` parameter: the Pro set, plus `hours`/`rating` only when asked for.
    public static func fieldsParameter(for fields: Set<PlaceField>) -> String {
        var names = proFields
        if fields.contains(.hours) { names.append("hours") }
        if fields.contains(.rating) { names.append("rating") }
        return names.joined(separator: ",")
    }

    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        guard capabilities.supports(operation) else { return .free }
        return prices.quote(Self.needsPremium(fields) ? "premium" : "pro")
    }

    private func get(_ path: String, _ query: [(String, String?)]) async throws(ProviderError) -> HTTPResponse {
        var headers = ["X-Places-Api-Version": Self.apiVersion]
        if let key = client.configuration.secrets.first { headers["Authorization"] = "Bearer \(key)" }
        return try await client.send(HTTPRequest(
            method: .get, url: HTTPRequest.url(base: client.baseURL, path: path, query: query), headers: headers))
    }

    private static func ll(_ coordinate: Coordinate?) -> String? {
        coordinate.map { "\($0.latitude),\($0.longitude)" }
    }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        let response = try await get("/places/search", [
            ("query", query.text), ("ll", Self.ll(query.near)),
            ("radius", query.near == nil ? nil : query.radius.map { String(Int(min($0, 100_000))) }),
            ("limit", String(min(max(query.limit, 1), 50))), ("fields", Self.fieldsParameter(for: query.fields)),
        ])
        try requireFound(response)
        let now = Date()
        return try client.checked(client.decode(FoursquareWire.SearchResponse.self, from: response).results.map { convert($0, at: now) })
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        guard query.id.provider == name else { throw ProviderError.unsupported(name, .details) }
        let id = query.id.nativeID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query.id.nativeID
        let response = try await get("/places/\(id)", [("fields", Self.fieldsParameter(for: query.fields))])
        if response.status == 404 { return nil }
        return try client.checked(convert(try client.decode(FoursquareWire.Place.self, from: response), at: Date()))
    }

    /// `places/match` answers one place with a `match_score`; no match is an empty list.
    public func match(_ query: MatchQuery) async throws -> [Place] {
        let response = try await get("/places/match", [
            ("name", query.name), ("address", query.address), ("city", query.city),
            ("cc", query.countryCode?.uppercased()), ("ll", Self.ll(query.near)),
            ("fields", Self.fieldsParameter(for: query.fields)),
        ])
        if response.status == 404 { return [] }
        let reply = try client.decode(FoursquareWire.MatchResponse.self, from: response)
        return try client.checked(reply.place.map { [convert($0, at: Date())] } ?? [])
    }

    private func requireFound(_ response: HTTPResponse) throws(ProviderError) {
        if response.status == 404 {
            throw client.error(.badRequest, "endpoint not found (404); check base_url in [providers.foursquare]", status: 404)
        }
    }

    func convert(_ wire: FoursquareWire.Place, at date: Date) -> Place {
        let location = wire.location
        let address = PostalAddress(
            street: location?.address, postcode: location?.postcode, city: location?.locality,
            region: location?.region, countryCode: location?.country?.uppercased())
        let labels = (wire.categories ?? []).map(\.name)
        // Malformed hours are unknown (nil), never a guessed "closed" day; `display` is kept either way.
        let periods = wire.hours?.regular.flatMap { try? ProviderHours.foursquare(regular: $0) }
        return Place(
            id: PlaceID(provider: name, nativeID: wire.fsq_place_id), name: wire.name,
            coordinate: Coordinate(latitude: wire.latitude, longitude: wire.longitude),
            address: address.isEmpty ? nil : address, formattedAddress: location?.formatted_address,
            phone: wire.tel.map { PhoneNumber.e164($0, defaultRegion: address.countryCode) ?? $0 },
            website: wire.website, categories: labels, category: labels.lazy.compactMap(PlaceCategory.normalize).first,
            openingHoursText: wire.hours?.display, openingPeriods: periods,
            // Foursquare rates out of 10; the model uses Google's and Yelp's 5-point scale.
            rating: wire.rating.map { $0 / 2 }
        ).attributed(to: name, at: date)
    }
}

// Foursquare's own snake_case member names, kept verbatim.
enum FoursquareWire {
    struct Location: Decodable {
        var address: String?
        var locality: String?
        var region: String?
        var postcode: String?
        var country: String?
        var formatted_address: String?
    }

    struct Category: Decodable {
        var name: String
    }

    struct Hours: Decodable {
        var display: String?
        /// `nil` when absent or when an entry does not even decode: unknown hours, not a failed reply.
        var regular: [ProviderHours.FoursquareDay]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            display = try container.decodeIfPresent(String.self, forKey: .display)
            regular = try? container.decodeIfPresent([ProviderHours.FoursquareDay].self, forKey: .regular)
        }

        enum CodingKeys: String, CodingKey { case display, regular }
    }

    struct Place: Decodable {
        var fsq_place_id: String
        var name: String
        var latitude: Double
        var longitude: Double
        var location: Location?
        var categories: [Category]?
        var tel: String?
        var website: String?
        var hours: Hours?
        var rating: Double?
    }

    struct SearchResponse: Decodable {
        var results: [Place]
    }

    struct MatchResponse: Decodable {
        var place: Place?
        var match_score: Double?
    }
}
