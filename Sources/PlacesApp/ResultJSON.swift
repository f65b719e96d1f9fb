import Foundation
import PlacesCore

/// `places reverse --json` and the server's REVERSE reply.
public struct ReverseJSON: Encodable, Sendable {
    public var lat: Double
    public var lon: Double
    public var city: String?
    public var cityId: String?
    public var region: String?
    public var country: String?
    public var timeZone: String?
    public var nearest: PlaceJSON?
    public var nearestDistanceM: Double?
    public var attribution: String?

    public init(_ answer: ReverseGeocode) {
        lat = PlacesJSON.degrees(answer.coordinate.latitude)
        lon = PlacesJSON.degrees(answer.coordinate.longitude)
        city = answer.city
        cityId = answer.cityID?.description
        region = answer.region
        country = answer.countryCode
        timeZone = answer.timeZone
        nearest = answer.nearest.map { PlaceJSON($0, reference: answer.coordinate) }
        nearestDistanceM = answer.nearestDistance.map { ($0 * 10).rounded() / 10 }
        attribution = answer.attribution
    }

    enum CodingKeys: String, CodingKey {
        case lat, lon, city, region, country, nearest, attribution
        case cityId = "city_id"
        case timeZone = "time_zone"
        case nearestDistanceM = "nearest_distance_m"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(city, forKey: .city)
        try c.encode(cityId, forKey: .cityId)
        try c.encode(region, forKey: .region)
        try c.encode(country, forKey: .country)
        try c.encode(timeZone, forKey: .timeZone)
        try c.encode(nearest, forKey: .nearest)
        try c.encode(nearestDistanceM, forKey: .nearestDistanceM)
        try c.encode(attribution, forKey: .attribution)
    }
}

/// One completion in `places suggest --json` and the server's SUGGEST reply.
public struct SuggestionJSON: Encodable, Sendable {
    public var text: String
    public var secondaryText: String?
    public var id: String?
    public var lat: Double?
    public var lon: Double?
    public var alternateIds: [String]?

    public init(_ suggestion: Suggestion) {
        text = suggestion.text
        secondaryText = suggestion.secondaryText
        id = suggestion.placeID?.description
        lat = suggestion.coordinate.map { PlacesJSON.degrees($0.latitude) }
        lon = suggestion.coordinate.map { PlacesJSON.degrees($0.longitude) }
        alternateIds = suggestion.alternateIDs.map { $0.map(\.description) }
    }

    enum CodingKeys: String, CodingKey {
        case text, id, lat, lon
        case secondaryText = "secondary_text"
        case alternateIds = "alternate_ids"
    }

    /// Every key is present, `null` when the source did not say.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(alternateIds, forKey: .alternateIds)
        try c.encode(id, forKey: .id)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(secondaryText, forKey: .secondaryText)
        try c.encode(text, forKey: .text)
    }
}

extension ReverseJSON {
    public func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("attribution"); writer.value(attribution)
        writer.key("city"); writer.value(city)
        writer.key("city_id"); writer.value(cityId)
        writer.key("country"); writer.value(country)
        writer.key("lat"); writer.value(lat)
        writer.key("lon"); writer.value(lon)
        writer.key("nearest")
        if let nearest { nearest.write(into: &writer) } else { writer.null() }
        writer.key("nearest_distance_m"); writer.value(nearestDistanceM)
        writer.key("region"); writer.value(region)
        writer.key("time_zone"); writer.value(timeZone)
        writer.endObject()
    }
}

extension SuggestionJSON {
    /// Every key, `null` when unknown, as ``encode(to:)`` writes it.
    public func write(into writer: inout JSONWriter) {
        writer.beginObject()
        if let alternateIds { writer.key("alternate_ids"); writer.value(alternateIds) }
        writer.key("id"); writer.value(id)
        writer.key("lat"); writer.value(lat)
        writer.key("lon"); writer.value(lon)
        writer.key("secondary_text"); writer.value(secondaryText)
        writer.key("text"); writer.value(text)
        writer.endObject()
    }
}

extension PlacesJSON {
    public static func place(
        _ place: Place, reference: Coordinate? = nil, at moment: Date = Date(), pretty: Bool = false
    ) throws -> Data {
        var writer = JSONWriter(pretty: pretty)
        PlaceJSON(place, reference: reference, at: moment).write(into: &writer)
        return writer.data
    }

    public static func reverse(_ answer: ReverseGeocode, pretty: Bool = false) throws -> Data {
        var writer = JSONWriter(pretty: pretty)
        ReverseJSON(answer).write(into: &writer)
        return writer.data
    }

    public static func suggestions(_ suggestions: [Suggestion], pretty: Bool = false) throws -> Data {
        var writer = JSONWriter(pretty: pretty)
        writer.beginArray()
        for suggestion in suggestions { SuggestionJSON(suggestion).write(into: &writer) }
        writer.endArray()
        return writer.data
    }
}
