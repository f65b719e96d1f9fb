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
        lat = PlacesJSON.degrees(place.coordinate.latitude)
        lon = PlacesJSON.degrees(place.coordinate.longitude)
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

    enum CodingKeys: String, CodingKey, CaseIterable {
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

    /// Every key docs/json.md lists as always present is written, as `null` when unknown; the few it lists as
    /// conditional (`distance_m`, `bearing`, `alternate_ids`, …) appear only when they apply.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(category, forKey: .category)
        try c.encode(categories, forKey: .categories)
        try c.encode(formattedAddress, forKey: .formattedAddress)
        try c.encode(address, forKey: .address)
        try c.encode(phone, forKey: .phone)
        try c.encode(website, forKey: .website)
        try c.encode(brand, forKey: .brand)
        try c.encode(openingHours, forKey: .openingHours)
        try c.encode(hours?.hours, forKey: .hours)
        try c.encode(hours?.openNow, forKey: .openNow)
        try c.encode(hours?.nextChange, forKey: .nextChange)
        if let caveats = hours?.caveats, !caveats.isEmpty { try c.encode(caveats, forKey: .hoursCaveats) }
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(rating, forKey: .rating)
        try c.encode(ratingCount, forKey: .ratingCount)
        try c.encode(status, forKey: .status)
        try c.encode(source, forKey: .source)
        try c.encode(attribution, forKey: .attribution)
        try c.encodeIfPresent(distanceM, forKey: .distanceM)
        try c.encodeIfPresent(bearing, forKey: .bearing)
        try c.encodeIfPresent(alternateIds, forKey: .alternateIds)
        try c.encodeIfPresent(provenance, forKey: .provenance)
        try c.encodeIfPresent(matchedName, forKey: .matchedName)
        try c.encodeIfPresent(fuzzy, forKey: .fuzzy)
    }
}

extension PlaceJSON {
    /// The keys in the order the JSON lists them (sorted), worked out once from the `CodingKeys`.
    static let keysInWriteOrder = CodingKeys.allCases.sorted { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }

    /// Writes the place as one JSON object, the bytes ``encode(to:)`` gives through ``PlacesJSON/encoder(pretty:)``.
    public func write(into writer: inout JSONWriter) {
        writer.beginObject()
        for key in Self.keysInWriteOrder { write(key, into: &writer) }
        writer.endObject()
    }

    /// Writes one key and its value, or nothing for an optional key without a value (as ``encode(to:)``
    /// leaves it out); a key ``encode(to:)`` always writes is written as `null` when unknown.
    func write(_ key: CodingKeys, into writer: inout JSONWriter) {
        switch key {
        case .id: writer.key(key.rawValue); writer.value(id)
        case .name: writer.key(key.rawValue); writer.value(name)
        case .lat: writer.key(key.rawValue); writer.value(lat)
        case .lon: writer.key(key.rawValue); writer.value(lon)
        case .category: writer.key(key.rawValue); writer.value(category)
        case .categories: writer.key(key.rawValue); writer.value(categories)
        case .formattedAddress: writer.key(key.rawValue); writer.value(formattedAddress)
        case .address:
            writer.key(key.rawValue)
            if let address { writer.write(address) } else { writer.null() }
        case .phone: writer.key(key.rawValue); writer.value(phone)
        case .website: writer.key(key.rawValue); writer.value(website)
        case .brand: writer.key(key.rawValue); writer.value(brand)
        case .openingHours: writer.key(key.rawValue); writer.value(openingHours)
        case .hours:
            writer.key(key.rawValue)
            if let hours { writer.write(hours.hours) } else { writer.null() }
        case .openNow: writer.key(key.rawValue); writer.value(hours?.openNow)
        case .nextChange:
            writer.key(key.rawValue)
            if let change = hours?.nextChange { writer.write(change) } else { writer.null() }
        case .hoursCaveats:
            guard let caveats = hours?.caveats, !caveats.isEmpty else { return }
            writer.key(key.rawValue); writer.value(caveats)
        case .timeZone: writer.key(key.rawValue); writer.value(timeZone)
        case .rating: writer.key(key.rawValue); writer.value(rating)
        case .ratingCount:
            writer.key(key.rawValue)
            if let ratingCount { writer.value(ratingCount) } else { writer.null() }
        case .status: writer.key(key.rawValue); writer.value(status?.rawValue)
        case .source: writer.key(key.rawValue); writer.value(source)
        case .attribution: writer.key(key.rawValue); writer.value(attribution)
        case .distanceM:
            guard let distanceM else { return }
            writer.key(key.rawValue); writer.value(distanceM)
        case .bearing:
            guard let bearing else { return }
            writer.key(key.rawValue); writer.value(bearing)
        case .alternateIds:
            guard let alternateIds else { return }
            writer.key(key.rawValue); writer.value(alternateIds)
        case .provenance:
            guard let provenance else { return }
            writer.key(key.rawValue); writer.write(provenance)
        case .matchedName:
            guard let matchedName else { return }
            writer.key(key.rawValue); writer.value(matchedName)
        case .fuzzy:
            guard let fuzzy else { return }
            writer.key(key.rawValue); writer.value(fuzzy)
        }
    }
}

extension JSONWriter {
    /// A `PostalAddress` as its synthesized `Encodable` writes it: known parts only, keys in snake case.
    mutating func write(_ address: PostalAddress) {
        beginObject()
        if let city = address.city { key("city"); value(city) }
        if let countryCode = address.countryCode { key("country_code"); value(countryCode) }
        if let district = address.district { key("district"); value(district) }
        if let houseNumber = address.houseNumber { key("house_number"); value(houseNumber) }
        if let postcode = address.postcode { key("postcode"); value(postcode) }
        if let region = address.region { key("region"); value(region) }
        if let street = address.street { key("street"); value(street) }
        if let unit = address.unit { key("unit"); value(unit) }
        endObject()
    }

    /// Where each field came from: `{"phone": {"fetched_at": "…Z", "provider": "google"}}`, keys sorted.
    mutating func write(_ provenance: [String: FieldSource]) {
        beginObject()
        for field in provenance.keys.sorted() {
            guard let source = provenance[field] else { continue }
            key(field)
            beginObject()
            key("fetched_at"); value(source.fetchedAt)
            key("provider"); value(source.provider)
            endObject()
        }
        endObject()
    }
}

/// The one JSON encoder configuration for everything `places` prints or serves.
public enum PlacesJSON {
    /// A latitude or longitude as every JSON shape prints it: 7 decimals (about 1 cm), the precision OSM stores, so
    /// a coordinate never prints as `60.169900000000006`.
    public static func degrees(_ value: Double) -> Double {
        (value * 10_000_000).rounded() / 10_000_000
    }

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
        var writer = JSONWriter(pretty: pretty, capacity: 256 + places.count * 1_024)
        writer.beginArray()
        for place in places { PlaceJSON(place, reference: reference).write(into: &writer) }
        writer.endArray()
        return writer.data
    }

    /// A GeoJSON FeatureCollection (RFC 7946): coordinates are `[lon, lat]`; the properties are the JSON shape.
    public static func geoJSON(_ places: [Place], reference: Coordinate? = nil, pretty: Bool = false) throws -> Data {
        var writer = JSONWriter(pretty: pretty, capacity: 256 + places.count * 1_200)
        writer.beginObject()
        writer.key("features")
        writer.beginArray()
        for place in places {
            writer.beginObject()
            writer.key("geometry")
            writer.beginObject()
            writer.key("coordinates")
            writer.beginArray()
            writer.value(degrees(place.coordinate.longitude))
            writer.value(degrees(place.coordinate.latitude))
            writer.endArray()
            writer.key("type"); writer.value("Point")
            writer.endObject()
            writer.key("id"); writer.value(place.id.description)
            writer.key("properties"); PlaceJSON(place, reference: reference).write(into: &writer)
            writer.key("type"); writer.value("Feature")
            writer.endObject()
        }
        writer.endArray()
        writer.key("type"); writer.value("FeatureCollection")
        writer.endObject()
        return writer.data
    }
}
