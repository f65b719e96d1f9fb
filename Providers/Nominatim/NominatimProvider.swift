import Foundation
import PlacesCore
import ProviderHTTP

/// OpenStreetMap's Nominatim: free, but at most one request per second for the whole process and
/// only with a User-Agent that says who to contact.
///
/// Results use the same `osm:<type>/<id>` ids as the local index, so a spot saved against a local
/// result still resolves when Nominatim answers instead.
public struct NominatimProvider: PlaceProvider {
    public let name = "nominatim"
    public let capabilities: ProviderCapabilities = [.textSearch, .details, .reverse]
    public let cacheTerms: CacheTerms
    public let client: HTTPClient
    public let contact: String

    public static let attribution = "© OpenStreetMap contributors"

    /// Fails unless `contact` (an email address or URL) is set: Nominatim's usage policy requires a
    /// User-Agent that identifies the application and someone to reach.
    /// - Parameter client: its configuration's `userAgent` should come from ``userAgent(product:contact:)``.
    public init(client: HTTPClient, contact: String?, cacheTerms: CacheTerms = .unlimited) throws(ProviderError) {
        guard let contact = contact?.trimmingCharacters(in: .whitespaces), contact.contains("@") || contact.contains("://") else {
            throw ProviderError(
                provider: "nominatim", kind: .misconfigured,
                message: "no contact configured: set contact = \"you@example.com\" under [providers.nominatim] in config.toml "
                    + "(Nominatim's usage policy requires a User-Agent that says who to contact)")
        }
        self.client = client
        self.contact = contact
        self.cacheTerms = cacheTerms
    }

    public static func userAgent(product: String, contact: String) -> String {
        UserAgent.make(product: product, contact: contact)
    }

    public func price(of operation: ProviderOperation, fields: Set<PlaceField>) -> PriceQuote { .free }

    private func get(_ path: String, _ query: [(String, String?)]) async throws(ProviderError) -> HTTPResponse {
        let response = try await client.send(HTTPRequest(
            method: .get, url: HTTPRequest.url(base: client.baseURL, path: path, query: query + [("format", "jsonv2")])))
        if response.status == 404 {
            throw client.error(.badRequest, "\(path) not found (404); check base_url in [providers.nominatim]", status: 404)
        }
        return response
    }

    private static let detailParameters: [(String, String?)] = [("addressdetails", "1"), ("extratags", "1"), ("namedetails", "1")]

    public func search(_ query: SearchQuery) async throws -> [Place] {
        var parameters: [(String, String?)] = [("q", query.text), ("limit", String(min(max(query.limit, 1), 40)))]
        if let near = query.near {
            let box = GeoMath.boundingBox(around: near, radius: query.radius ?? 10_000)
            parameters.append(("viewbox", "\(box.minLongitude),\(box.maxLatitude),\(box.maxLongitude),\(box.minLatitude)"))
            if query.radius != nil { parameters.append(("bounded", "1")) }
        }
        let response = try await get("/search", parameters + Self.detailParameters)
        let now = Date()
        return try client.checked(client.decode([NominatimWire.Result].self, from: response).compactMap { convert($0, at: now) })
    }

    /// Answers `osm:node/N`, `osm:way/N` and `osm:relation/N` ids through `/lookup`.
    public func details(_ query: DetailsQuery) async throws -> Place? {
        guard query.id.provider == "osm" || query.id.provider == name else { throw ProviderError.unsupported(name, .details) }
        guard let lookupID = Self.lookupID(query.id.nativeID) else {
            throw ProviderError(provider: name, kind: .badRequest,
                                message: "cannot look up '\(query.id)': expected osm:node/N, osm:way/N or osm:relation/N")
        }
        let response = try await get("/lookup", [("osm_ids", lookupID)] + Self.detailParameters)
        return try client.checked(client.decode([NominatimWire.Result].self, from: response).compactMap { convert($0, at: Date()) }).first
    }

    public func reverse(_ query: ReverseQuery) async throws -> ReverseGeocode? {
        let response = try await get("/reverse", [
            ("lat", String(query.coordinate.latitude)), ("lon", String(query.coordinate.longitude)),
        ] + Self.detailParameters)
        // Nominatim answers "nothing here" with 200 and {"error":"Unable to geocode"}.
        if let failure = try? JSONDecoder().decode(NominatimWire.ErrorReply.self, from: response.body), failure.error != nil {
            return nil
        }
        let result = try client.decode(NominatimWire.Result.self, from: response)
        // A nearest place off the Earth is dropped; the city and country still stand.
        let place = convert(result, at: Date())?.withCheckedNumbers()
        let address = result.address
        return ReverseGeocode(
            coordinate: query.coordinate, nearest: place,
            nearestDistance: place.map { GeoMath.distance(query.coordinate, $0.coordinate) },
            city: address?.city ?? address?.town ?? address?.village, region: address?.state,
            countryCode: address?.country_code?.uppercased(), attribution: Self.attribution)
    }

    /// `node/123` → `N123`.
    static func lookupID(_ nativeID: String) -> String? {
        let parts = nativeID.split(separator: "/")
        guard parts.count == 2, let number = Int64(parts[1]), number > 0 else { return nil }
        switch parts[0] {
        case "node": return "N\(number)"
        case "way": return "W\(number)"
        case "relation": return "R\(number)"
        default: return nil
        }
    }

    func convert(_ wire: NominatimWire.Result, at date: Date) -> Place? {
        guard let type = wire.osm_type, let osmID = wire.osm_id,
              let lat = Double(wire.lat), let lon = Double(wire.lon) else { return nil }
        let address = wire.address.map { a in
            PostalAddress(houseNumber: a.house_number, street: a.road ?? a.pedestrian, postcode: a.postcode,
                          city: a.city ?? a.town ?? a.village, district: a.suburb, region: a.state,
                          countryCode: a.country_code?.uppercased())
        }
        let name = wire.name.flatMap { $0.isEmpty ? nil : $0 } ?? wire.display_name?.split(separator: ",").first.map(String.init) ?? ""
        let tags = wire.extratags ?? [:]
        let label = [wire.category, wire.type].compactMap { $0 }.joined(separator: "=")
        let phone = (tags["phone"] ?? tags["contact:phone"]).map { raw in
            PhoneNumber.e164(raw, defaultRegion: address?.countryCode) ?? raw
        }
        return Place(
            id: PlaceID(provider: "osm", nativeID: "\(type)/\(osmID)"), name: name,
            coordinate: Coordinate(latitude: lat, longitude: lon),
            address: address.flatMap { $0.isEmpty ? nil : $0 }, formattedAddress: wire.display_name, phone: phone,
            website: tags["website"] ?? tags["contact:website"], categories: label.isEmpty ? [] : [label],
            category: PlaceCategory.normalize(label), brand: tags["brand"], openingHoursText: tags["opening_hours"],
            attribution: Self.attribution
        ).attributed(to: self.name, at: date)
    }
}

// Nominatim's own snake_case member names, kept verbatim.
enum NominatimWire {
    struct Address: Decodable {
        var house_number: String?
        var road: String?
        var pedestrian: String?
        var suburb: String?
        var city: String?
        var town: String?
        var village: String?
        var state: String?
        var postcode: String?
        var country_code: String?
    }

    struct Result: Decodable {
        var osm_type: String?
        var osm_id: Int64?
        /// Nominatim sends coordinates as strings.
        var lat: String
        var lon: String
        var category: String?
        var type: String?
        var name: String?
        var display_name: String?
        var address: Address?
        var extratags: [String: String]?
    }

    struct ErrorReply: Decodable {
        var error: String?
    }
}
