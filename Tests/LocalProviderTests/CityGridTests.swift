import Foundation
import GRDB
@testable import PlaceIndex
import PlacesCore
import Testing

/// Reverse geocoding finds GeoNames cities through the `city` table's grid cells (migration v8), not an R*Tree.
@Suite struct CityGridTests {
    private func city(_ id: Int64, _ latitude: Double, _ longitude: Double, population: Int64) -> IndexedCity {
        IndexedCity(geonameID: id, name: "City \(id)", asciiName: "City \(id)",
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), featureCode: "PPL",
                    countryCode: "FI", admin1: nil, population: population, timeZone: "Europe/Helsinki")
    }

    private func index(with cities: [IndexedCity]) throws -> PlaceIndexStore {
        let index = try PlaceIndexStore.inMemory()
        try index.write { writer in
            for city in cities { try writer.insert(city, source: "grid.txt") }
            try writer.finishSource("grid.txt", kind: "geonames", places: 0, cities: cities.count)
        }
        return index
    }

    @Test func theSwiftCellIsTheColumnSQLiteComputes() throws {
        // Worked by hand: Helsinki (60.1699, 24.9384) is in row ⌊1501.699⌋ and column ⌊2049.384⌋ of tenth-degree squares.
        #expect(CityGrid.cell(latitude: 60.1699, longitude: 24.9384) == 1_501 * 4_000 + 2_049)
        #expect(CityGrid.cell(latitude: -90, longitude: -180) == 0)
        #expect(CityGrid.cell(latitude: 90, longitude: 180) == 1_800 * 4_000 + 3_600)
        // 2,000 positions spread over the globe by steps that share no factor with a tenth of a degree.
        var cities: [IndexedCity] = []
        for id in 1...2_000 {
            let latitude: Double = -90 + Double(id * 7_919 % 180_001) / 1_000
            let longitude: Double = -180 + Double(id * 104_729 % 360_001) / 1_000
            cities.append(city(Int64(id), latitude, longitude, population: 0))
        }
        // Positions on and just beside square edges, where rounding would show.
        for latitude in [60.2, 60.1, -33.9, 0, 0.1, -0.1, 89.9] {
            for longitude in [24.9, 25.0, -0.1, 0.3, 179.9, -179.9] {
                for nudge in [-1e-12, 0, 1e-12] {
                    cities.append(city(Int64(cities.count + 1), latitude + nudge, longitude + nudge, population: 0))
                }
            }
        }
        let store = try index(with: cities)
        let stored = try store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT geonameid, lat, lon, cell FROM city")
        }
        #expect(stored.count == cities.count)
        for row in stored {
            let cell: Int = row["cell"]
            #expect(cell == CityGrid.cell(latitude: row["lat"], longitude: row["lon"]), "\(row)")
        }
    }

    @Test func aBigCityAcrossASquareEdgeBeatsACloseVillage() throws {
        // The point is in the square 60.1–60.2 N; the city is 6.7 km north, beyond 60.2, and 2·log10(600,001) ≈ 11.6 km
        // of population outweighs the 0.6 km to a village of 100 (2·log10(101) ≈ 4.0 km).
        let point = Coordinate(latitude: 60.15, longitude: 24.95)
        let store = try index(with: [city(1, 60.21, 24.95, population: 600_000), city(2, 60.155, 24.95, population: 100)])
        #expect(try store.cities(near: [point]).first??.geonameID == 1)
    }

    @Test func theNearestCityWithin300KilometresWhenNoneIsWithin15() throws {
        // 0.9° of latitude (~100 km) south-west and 1.5° (~167 km) north-east: many squares away, the nearer one wins.
        let point = Coordinate(latitude: 60.15, longitude: 24.95)
        let store = try index(with: [city(1, 59.25, 24.0, population: 1_000_000), city(2, 61.65, 26.0, population: 10),
                                     city(3, 64.0, 24.95, population: 5_000_000)])
        #expect(try store.cities(near: [point]).first??.geonameID == 1)
        #expect(try store.cities(near: [Coordinate(latitude: -45, longitude: -120)]).first! == nil)
    }

    @Test func pointsAskedTogetherGetTheCitiesEachGetsAlone() throws {
        // A search's results share one read of their common window (CityLookup.best(near:in:) for many points):
        // for clustered points, spread points, points with no city within 15 km and a pole-clamped window, each
        // answer must be the one the point gets asked alone. Cities on a 0.05° lattice with populations that vary
        // by position, some exactly on window edges; the points are offset from the lattice by steps sharing no factor.
        var cities: [IndexedCity] = []
        for row in 0..<24 {
            for column in 0..<24 {
                let id = Int64(cities.count + 1)
                let latitude: Double = 59.9 + Double(row) * 0.05
                let longitude: Double = 24.4 + Double(column) * 0.05
                cities.append(city(id, latitude, longitude, population: Int64((row * 7_919 + column * 104_729) % 700_001)))
            }
        }
        cities.append(city(Int64(cities.count + 1), 89.95, 10, population: 5))
        let store = try index(with: cities)
        let clustered = (0..<12).map { (step: Int) -> Coordinate in
            let latitude: Double = 60.15 + Double(step * 37 % 100) / 1_000
            let longitude: Double = 24.93 + Double(step * 53 % 100) / 1_000
            return Coordinate(latitude: latitude, longitude: longitude)
        }
        let spread = [Coordinate(latitude: 60.0, longitude: 24.5), Coordinate(latitude: 61.0, longitude: 25.5),
                      Coordinate(latitude: 62.5, longitude: 25.0), Coordinate(latitude: -45, longitude: -120)]
        let polar = [Coordinate(latitude: 89.9, longitude: 10), Coordinate(latitude: 89.99, longitude: 10.2)]
        for points in [clustered, clustered + spread, spread, polar, [clustered[0], clustered[0]]] {
            let together = try store.cities(near: points)
            let alone = try points.map { try store.cities(near: [$0])[0] }
            #expect(together == alone, "\(points)")
        }
        #expect(try store.cities(near: clustered).allSatisfy { $0 != nil })
    }
}
