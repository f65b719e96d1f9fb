import Foundation
import PlacesCore
import PlacesHours

/// The JSON shape of a place, shared by the CLI's `--json` and the server's replies so a script can
/// switch between them without changing its parser.
public struct PlaceJSON: Encodable, Sendable {
    public var id: String
    public var name: String
    public var lat: Double
    public var lon: Double
    public var category: String?
    public var categories: [String]
    public var formattedAddress: String?
    public var address: PostalAddress?
    public var phone: String?
    public var website: String?
    public var brand: String?
    public var openingHours: String?
    public var timeZone: String?
    public var rating: Double?
    public var ratingCount: Int?
    public var status: BusinessStatus?
    public var source: String
    public var attribution: String?
    public var distanceM: Double?
    public var bearing: String?
    public var alternateIds: [String]?
    public var provenance: [String: FieldSource]?
    /// Structured hours, open-now and next change, read on the place's own wall clock at `at`.
    public var hours: HoursReport?
    /// The other name of the place a search matched ("Tukholma" for Stockholm), when not its main name.
    public var matchedName: String?
    /// `true` when the place was found only after correcting a typo in the query.
    public var fuzzy: Bool?

    public init(_ place: Place, reference: Coordinate? = nil, at moment: Date = Date()) {
        id = place.id.description
        name = place.name
        lat = place.coordinate.latitude
        lon = place.coordinate.longitude
        category = place.category
        categories = place.categories
        formattedAddress = place.formattedAddress ?? place.address?.formatted
        address = place.address
        phone = place.phone
        website = place.website
        brand = place.brand
        openingHours = place.openingHoursText
        hours = HoursReport.evaluate(place: place, at: moment, timeZone: nil)
        timeZone = place.timeZone
        rating = place.rating
        ratingCount = place.ratingCount
        status = place.status
        source = place.id.provider
        attribution = place.attribution
        if let reference {
            distanceM = (GeoMath.distance(reference, place.coordinate) * 10).rounded() / 10
            bearing = GeoMath.compassPoint(GeoMath.bearing(from: reference, to: place.coordinate))
        }
        matchedName = place.searchMatch?.matchedName
        fuzzy = place.searchMatch?.fuzzy == true ? true : nil
        alternateIds = place.alternateIDs.isEmpty ? nil : place.alternateIDs.map(\.description)
        provenance = place.provenance.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: place.provenance.map { ($0.key.rawValue, $0.value) })
    }

    enum CodingKeys: String, CodingKey {
        case id, name, lat, lon, category, categories
        case formattedAddress = "formatted_address"
        case address, phone, website, brand
        case openingHours = "opening_hours"
        case hours
        case openNow = "open_now"
        case nextChange = "next_change"
        case hoursCaveats = "hours_caveats"
        case timeZone = "time_zone"
        case rating
        case ratingCount = "rating_count"
        case status, source, attribution
        case distanceM = "distance_m"
        case bearing
        case alternateIds = "alternate_ids"
        case provenance
        case matchedName = "matched_name"
        case fuzzy
    }

    /// Keys that scripts rely on are always present, as `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(category, forKey: .category)
        try c.encode(categories, forKey: .categories)
        try c.encode(formattedAddress, forKey: .formattedAddress)
        try c.encodeIfPresent(address, forKey: .address)
        try c.encode(phone, forKey: .phone)
        try c.encode(website, forKey: .website)
        try c.encodeIfPresent(brand, forKey: .brand)
        try c.encode(openingHours, forKey: .openingHours)
        try c.encode(hours?.hours, forKey: .hours)
        try c.encode(hours?.openNow, forKey: .openNow)
        try c.encode(hours?.nextChange, forKey: .nextChange)
        if let caveats = hours?.caveats, !caveats.isEmpty { try c.encode(caveats, forKey: .hoursCaveats) }
        try c.encodeIfPresent(timeZone, forKey: .timeZone)
        try c.encodeIfPresent(rating, forKey: .rating)
        try c.encodeIfPresent(ratingCount, forKey: .ratingCount)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(attribution, forKey: .attribution)
        try c.encodeIfPresent(distanceM, forKey: .distanceM)
        try c.encodeIfPresent(bearing, forKey: .bearing)
        try c.encodeIfPresent(alternateIds, forKey: .alternateIds)
        try c.encodeIfPresent(provenance, forKey: .provenance)
        try c.encodeIfPresent(matchedName, forKey: .matchedName)
        try c.encodeIfPresent(fuzzy, forKey: .fuzzy)
    }
}

/// The one JSON encoder configuration for everything `places` prints or serves.
public enum PlacesJSON {
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        try encoder(pretty: pretty).encode(value)
    }

    public static func places(_ places: [Place], reference: Coordinate? = nil, pretty: Bool = false) throws -> Data {
        try encode(places.map { PlaceJSON($0, reference: reference) }, pretty: pretty)
    }

    /// A GeoJSON FeatureCollection (RFC 7946): coordinates are `[lon, lat]`; the properties are the JSON shape.
    public static func geoJSON(_ places: [Place], reference: Coordinate? = nil, pretty: Bool = false) throws -> Data {
        struct Geometry: Encodable { let type = "Point"; let coordinates: [Double] }
        struct Feature: Encodable { let type = "Feature"; let id: String; let geometry: Geometry; let properties: PlaceJSON }
        struct Collection: Encodable { let type = "FeatureCollection"; let features: [Feature] }
        let features = places.map {
            Feature(id: $0.id.description,
                    geometry: Geometry(coordinates: [$0.coordinate.longitude, $0.coordinate.latitude]),
                    properties: PlaceJSON($0, reference: reference))
        }
        return try encode(Collection(features: features), pretty: pretty)
    }
}
