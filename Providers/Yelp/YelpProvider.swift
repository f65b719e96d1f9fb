import Foundation
import PlacesCore
import PlacesHours
import ProviderHTTP

/// Yelp Fusion: the cheap primary for businesses, with its own reconciliation endpoint
/// (`businesses/matches`) behind ``match(_:)``.
public struct YelpProvider: PlaceProvider {
    public let name = "yelp"
    public let capabilities: ProviderCapabilities = [.textSearch, .details, .match]
    public let cacheTerms: CacheTerms
    public let client: HTTPClient
    public let prices: PriceTable

    /// Plan-based pricing, roughly $6–15 per 1,000 calls; override under `[providers.yelp.prices]`.
    public static let defaultPrices = PriceTable(provider: "yelp", dollarsPerThousand: ["call": 9.99])
    /// Content at most 24 h; business ids may be kept for matching.
    public static let defaultCacheTerms = CacheTerms(ids: nil, coordinates: 86_400, content: 86_400)

    /// Yelp's `ACCESS_LIMIT_REACHED` is the daily cap (a quota); `TOO_MANY_REQUESTS_PER_SECOND` is a throttle.
    public static let errorReader: @Sendable (HTTPResponse) -> UpstreamErrorDetail = { response in
        var detail = HTTPClient.genericErrorDetail(response)
        if detail.code == "ACCESS_LIMIT_REACHED" { detail.kind = .quotaExhausted }
        if detail.code == "TOKEN_INVALID" || detail.code == "UNAUTHORIZED_API_KEY" { detail.kind = .authentication }
        return detail
    }

    public init(client: HTTPClient, prices: PriceTable = YelpProvider.defaultPrices,
                cacheTerms: CacheTerms = YelpProvider.defaultCacheTerms) {
        self.client = client
        self.prices = prices
        self.cacheTerms = cacheTerms
    }

    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote {
        capabilities.supports(operation) ? prices.quote("call") : .free
    }

    private func get(_ path: String, _ query: [(String, String?)]) async throws(ProviderError) -> HTTPResponse {
        var headers: [String: String] = [:]
        if let key = client.configuration.secrets.first { headers["Authorization"] = "Bearer \(key)" }
        return try await client.send(HTTPRequest(
            method: .get, url: HTTPRequest.url(base: client.baseURL, path: path, query: query), headers: headers))
    }

    public func search(_ query: SearchQuery) async throws -> [Place] {
        guard let near = query.near else {
            throw ProviderError(provider: name, kind: .badRequest, message: "search needs a position: pass --near LAT,LON")
        }
        let response = try await get("/v3/businesses/search", [
            ("term", query.text), ("latitude", String(near.latitude)), ("longitude", String(near.longitude)),
            ("radius", query.radius.map { String(Int(min($0, 40_000))) }),
            ("categories", query.category.flatMap(PlaceCategory.normalize)),
            ("limit", String(min(max(query.limit, 1), 50))),
        ])
        try Self.requireFound(response, client: client)
        let now = Date()
        return try client.checked(client.decode(YelpWire.SearchResponse.self, from: response).businesses.map { convert($0, at: now) })
    }

    public func details(_ query: DetailsQuery) async throws -> Place? {
        guard query.id.provider == name else { throw ProviderError.unsupported(name, .details) }
        let id = query.id.nativeID.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-", "_"])) ?? query.id.nativeID
        let response = try await get("/v3/businesses/\(id)", [])
        if response.status == 404 { return nil }
        return try client.checked(convert(try client.decode(YelpWire.Business.self, from: response), at: Date()))
    }

    /// `businesses/matches` needs name, street, city, state and country; without them it searches near the point.
    public func match(_ query: MatchQuery) async throws -> [Place] {
        guard let address = query.address, let city = query.city, let country = query.countryCode else {
            return try await search(SearchQuery(text: query.name, near: query.near, radius: 1_000, limit: 5, fields: query.fields))
        }
        // MatchQuery has no state/region, which Yelp wants for some countries; when Yelp refuses the
        // request for that, a nearby search still finds the place.
        let result = await matchRequest([
            ("name", String(query.name.prefix(64))), ("address1", address), ("city", city),
            ("country", country.uppercased()),
            ("latitude", query.near.map { String($0.latitude) }), ("longitude", query.near.map { String($0.longitude) }),
            ("phone", query.phone), ("match_threshold", "default"),
        ])
        let response: HTTPResponse
        switch result {
        case .success(let reply): response = reply
        case .failure(let error):
            guard error.kind == .badRequest, query.near != nil else { throw error }
            return try await search(SearchQuery(text: query.name, near: query.near, radius: 1_000, limit: 5, fields: query.fields))
        }
        try Self.requireFound(response, client: client)
        let now = Date()
        return try client.checked(client.decode(YelpWire.SearchResponse.self, from: response).businesses.map { convert($0, at: now) })
    }

    private func matchRequest(_ parameters: [(String, String?)]) async -> Result<HTTPResponse, ProviderError> {
        do { return .success(try await get("/v3/businesses/matches", parameters)) } catch { return .failure(error) }
    }

    private static func requireFound(_ response: HTTPResponse, client: HTTPClient) throws(ProviderError) {
        if response.status == 404 {
            throw client.error(.badRequest, "endpoint not found (404); check base_url in [providers.yelp]", status: 404)
        }
    }

    func convert(_ wire: YelpWire.Business, at date: Date) -> Place {
        let location = wire.location
        let address = PostalAddress(
            street: location?.address1.flatMap { $0.isEmpty ? nil : $0 }, postcode: location?.zip_code.flatMap { $0.isEmpty ? nil : $0 },
            city: location?.city, region: location?.state, countryCode: location?.country?.uppercased())
        let regular = wire.hours?.first { $0.hours_type == nil || $0.hours_type == "REGULAR" }
        // Malformed hours are unknown (nil), never a guessed "closed" day.
        let periods = regular.flatMap(\.open).flatMap { try? ProviderHours.yelp(open: $0) }
        let categories = (wire.categories ?? []).map(\.alias)
        let category = (wire.categories ?? []).lazy.compactMap { PlaceCategory.normalize($0.alias) ?? PlaceCategory.normalize($0.title) }.first
        return Place(
            id: PlaceID(provider: name, nativeID: wire.id), name: wire.name,
            coordinate: Coordinate(latitude: wire.coordinates.latitude, longitude: wire.coordinates.longitude),
            address: address.isEmpty ? nil : address,
            formattedAddress: location?.display_address.flatMap { $0.isEmpty ? nil : $0.joined(separator: ", ") },
            phone: wire.phone.flatMap { $0.isEmpty ? nil : (PhoneNumber.e164($0) ?? $0) },
            categories: categories, category: category, openingPeriods: periods, rating: wire.rating,
            ratingCount: wire.review_count, status: wire.is_closed == true ? .closedPermanently : nil
        ).attributed(to: name, at: date)
    }
}

// Yelp's own snake_case member names, kept verbatim so the shapes read like its documentation.
enum YelpWire {
    struct Coordinates: Decodable {
        var latitude: Double
        var longitude: Double
    }

    struct Location: Decodable {
        var address1: String?
        var city: String?
        var state: String?
        var zip_code: String?
        var country: String?
        var display_address: [String]?
    }

    struct Category: Decodable {
        var alias: String
        var title: String
    }

    struct Hours: Decodable {
        var hours_type: String?
        /// `nil` when an entry does not even decode: the hours are unknown, but the business still is.
        var open: [ProviderHours.YelpOpen]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            hours_type = try container.decodeIfPresent(String.self, forKey: .hours_type)
            open = try? container.decodeIfPresent([ProviderHours.YelpOpen].self, forKey: .open) ?? []
        }

        enum CodingKeys: String, CodingKey { case hours_type, open }
    }

    struct Business: Decodable {
        var id: String
        var name: String
        var coordinates: Coordinates
        var location: Location?
        var phone: String?
        var rating: Double?
        var review_count: Int?
        var categories: [Category]?
        var is_closed: Bool?
        var hours: [Hours]?
    }

    struct SearchResponse: Decodable {
        var businesses: [Business]
    }
}
