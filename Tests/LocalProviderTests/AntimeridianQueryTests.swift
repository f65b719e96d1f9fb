import Foundation
@testable import PlaceIndex
import PlacesCore
import Testing

/// Places a few hundred metres apart on either side of 180° of longitude (as on Taveuni, Fiji, or in Chukotka) are
/// neighbours: every query that reads the index around a point finds them from the other side. Distances are
/// worked out by hand: at the equator 0.001° of longitude is 111.2 m (2π · 6,371,008.8 m / 360 per degree).
@Suite struct AntimeridianQueryTests {
    /// West of 180° (east longitudes) and east of it (west longitudes), on the equator.
    static let cafe = place(1, "Dateline Cafe", longitude: 179.999, category: "cafe")
    static let bakery = place(2, "Meridian Bakery", longitude: -179.9995, category: "bakery")
    static let farCafe = place(3, "Far Cafe", longitude: 179.0, category: "cafe")
    /// 0.002° of longitude from the cafe, 0.0005° from the bakery, east of 180°.
    static let eastOfTheLine = Coordinate(latitude: 0, longitude: -179.999)
    /// 0.0009° from the cafe, 0.0006° from the bakery, west of 180°.
    static let westOfTheLine = Coordinate(latitude: 0, longitude: 179.9999)

    static func place(_ id: Int, _ name: String, longitude: Double, category: String) -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name,
              coordinate: Coordinate(latitude: 0, longitude: longitude), categories: ["amenity=\(category)"], category: category)
    }

    static func index() throws -> PlaceIndexStore {
        let index = try PlaceIndexStore.inMemory()
        try index.write { writer in
            for place in [cafe, bakery, farCafe] {
                try writer.insert(place, kind: .poi, source: "dateline.osm.pbf", keywords: [place.category ?? ""])
            }
            for (id, name, longitude) in [(11, "Eastville", 179.99), (12, "Westburg", -179.0)] as [(Int64, String, Double)] {
                try writer.insert(IndexedCity(geonameID: id, name: name, asciiName: name, coordinate: Coordinate(latitude: 0, longitude: longitude),
                                              featureCode: "PPL", countryCode: "FJ", admin1: nil, population: 5_000,
                                              timeZone: "Pacific/Fiji"), source: "cities.txt")
            }
            try writer.finishSource("dateline.osm.pbf", kind: "osm.pbf", places: 3, cities: 0)
            try writer.finishSource("cities.txt", kind: "geonames", places: 0, cities: 2)
        }
        return index
    }

    @Test func nearbyFindsPlacesAcrossTheLine() throws {
        let index = try Self.index()
        #expect(try index.nearby(center: Self.eastOfTheLine, radius: 500).map(\.name) == ["Meridian Bakery", "Dateline Cafe"])
        #expect(try index.nearby(center: Self.eastOfTheLine, radius: 500, category: "cafe").map(\.name) == ["Dateline Cafe"])
        #expect(try index.nearby(center: Self.westOfTheLine, radius: 80).map(\.name) == ["Meridian Bakery"])
        #expect(try index.nearby(center: Self.eastOfTheLine, radius: 200_000).map(\.name)
                == ["Meridian Bakery", "Dateline Cafe", "Far Cafe"])
    }

    @Test func reverseNamesTheNearestPlaceAndCityAcrossTheLine() throws {
        let index = try Self.index()
        let answer = try index.reverse(Self.westOfTheLine, radius: 100)
        #expect(answer.nearest?.name == "Meridian Bakery")
        #expect(abs((answer.nearestDistance ?? 0) - 66.7) < 0.5)
        // Eastville is 1.1 km across the line; Westburg 111 km away on this side.
        #expect(answer.city?.name == "Eastville")
        #expect(try index.cities(near: [Self.eastOfTheLine]).map { $0?.name } == ["Eastville"])
        #expect(try index.cities(near: [Self.eastOfTheLine, Self.westOfTheLine]).map { $0?.name } == ["Eastville", "Eastville"])
    }

    @Test func searchAndSuggestNearAPointReachAcrossTheLine() throws {
        let index = try Self.index()
        #expect(try index.search(text: "dateline", near: Self.eastOfTheLine, radius: 1_000).map(\.name) == ["Dateline Cafe"])
        #expect(try index.search(text: "cafe", near: Self.eastOfTheLine).map(\.name) == ["Dateline Cafe", "Far Cafe"])
        #expect(try index.search(text: "cafe", near: Self.eastOfTheLine, radius: 1_000).map(\.name) == ["Dateline Cafe"])
        #expect(try index.suggest(prefix: "dat", near: Self.eastOfTheLine).map(\.name) == ["Dateline Cafe"])
        #expect(try index.suggest(prefix: "me", near: Self.westOfTheLine).first?.name == "Meridian Bakery")
    }
}
