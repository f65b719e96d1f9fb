import Foundation
import GRDB
@testable import PlaceIndex
import PlacesCore
import ScratchDirectory
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

    // MARK: A serving process's cities in memory (CitiesInMemory)

    /// A file index with `cities`, opened twice: as a serving process opens it (cities in memory) and as a
    /// one-command process does (every lookup reads the index).
    private func servedAndRead(_ cities: [IndexedCity], in scratch: ScratchDirectory) throws -> (served: PlaceIndexStore, read: PlaceIndexStore) {
        let path = scratch.appendingPathComponent("index.sqlite")
        let served = try PlaceIndexStore(path: path, citiesInMemory: true)
        try served.write { writer in
            for city in cities { try writer.insert(city, source: "grid.txt") }
            try writer.finishSource("grid.txt", kind: "geonames", places: 0, cities: cities.count)
        }
        return (served, try PlaceIndexStore(path: path, concurrentReaders: false))
    }

    /// Each city with a time zone of its own, so that the zone names the city.
    private func zoned(_ id: Int64, _ latitude: Double, _ longitude: Double, population: Int64, zone: String? = "") -> IndexedCity {
        var city = city(id, latitude, longitude, population: population)
        city.timeZone = zone == "" ? "Zone/\(id)" : zone
        return city
    }

    @Test func citiesInMemoryNameTheCityTheIndexNames() throws {
        // A 0.05° lattice of cities around Helsinki (populations varying by position, ids not in position order),
        // cities on tenth-degree square edges, two at one spot with one population (a tie the first in cell and
        // id order wins), one without a zone, a lone city ~100 km from the lattice, cities either side of the
        // antimeridian and near a pole.
        var cities: [IndexedCity] = []
        for row in 0..<24 {
            for column in 0..<24 {
                let id = Int64((row * 24 + column) * 7_919 % 100_003 + 1)
                let latitude: Double = 59.9 + Double(row) * 0.05
                let longitude: Double = 24.4 + Double(column) * 0.05
                cities.append(zoned(id, latitude, longitude, population: Int64((row * 7_919 + column * 104_729) % 700_001)))
            }
        }
        cities += [
            zoned(200_002, 61.5, 25.5, population: 1_000), zoned(200_001, 61.5, 25.5, population: 1_000),
            zoned(200_003, 61.2, 25.1, population: 50), zoned(200_004, 61.3, 25.2, population: 50, zone: nil),
            zoned(200_005, 64.0, 24.95, population: 5_000_000), zoned(200_006, 62.55, 27.0, population: 10),
            zoned(200_007, 65.0, 179.99, population: 100), zoned(200_008, 65.0, -179.99, population: 100_000),
            zoned(200_009, 89.95, 10, population: 5), zoned(200_010, -33.9, 151.2, population: 4_000_000),
        ]
        let scratch = try ScratchDirectory("places-city-memory")
        let (served, read) = try servedAndRead(cities, in: scratch)
        // Points spread over 59.5–63.5 N, 23–27 E by steps sharing no factor with the lattice (inside it, between it
        // and the lone cities, beyond 15 km of any city), on square edges, beyond 300 km of all, far away.
        var points = (0..<160).map { (step: Int) -> Coordinate in
            let latitude: Double = 59.5 + Double(step * 7_919 % 4_001) / 1_000
            let longitude: Double = 23 + Double(step * 104_729 % 4_001) / 1_000
            return Coordinate(latitude: latitude, longitude: longitude)
        }
        for latitude in [60.2, 61.5, 61.3, 60.0] {
            for longitude in [24.9, 25.5, 25.0, 25.2] {
                for nudge in [-1e-9, 0, 1e-9] { points.append(Coordinate(latitude: latitude + nudge, longitude: longitude - nudge)) }
            }
        }
        points += [Coordinate(latitude: 65, longitude: 179.9), Coordinate(latitude: 65, longitude: -179.9),
                   Coordinate(latitude: 65, longitude: 180), Coordinate(latitude: 65, longitude: -180),
                   Coordinate(latitude: 89.99, longitude: 10.2), Coordinate(latitude: -90, longitude: 0),
                   Coordinate(latitude: -33.5, longitude: 151), Coordinate(latitude: -45, longitude: -120),
                   Coordinate(latitude: 0, longitude: 0)]
        let expected = try points.map { try read.cities(near: [$0])[0]?.timeZone }
        let inMemory = try served.timeZones(near: points)
        for (point, (got, want)) in zip(points, zip(inMemory, expected)) {
            #expect(got == want, "\(point)")
        }
        // The cases the points were meant to reach were reached.
        #expect(expected.contains("Zone/200001") && !expected.contains("Zone/200002"))
        #expect(expected.contains("Zone/200005") && expected.contains("Zone/200008") && expected.contains(nil))
        // They came from memory: the cities were read once and not again.
        let memory = try #require(served.citiesInMemory)
        #expect(memory.current { _ in throw CancellationError() } != nil)
        #expect(try read.timeZones(near: [points[0]]) == [expected[0]])
    }

    @Test func anImportWhileServingIsSeenByTheNextTimeZone() throws {
        let scratch = try ScratchDirectory("places-city-memory")
        let point = Coordinate(latitude: 60.15, longitude: 24.95)
        let (served, read) = try servedAndRead([zoned(1, 60.16, 24.95, population: 100)], in: scratch)
        #expect(try served.timeZones(near: [point]) == ["Zone/1"])
        // Another process (the other connection) imports a big city nearby, then this one imports a bigger one.
        try read.write { writer in
            try writer.insert(zoned(2, 60.17, 24.95, population: 600_000), source: "more.txt")
            try writer.finishSource("more.txt", kind: "geonames", places: 0, cities: 1)
        }
        #expect(try served.timeZones(near: [point]) == ["Zone/2"])
        try served.write { writer in
            try writer.insert(zoned(3, 60.15, 24.96, population: 6_000_000), source: "most.txt")
            try writer.finishSource("most.txt", kind: "geonames", places: 0, cities: 1)
        }
        #expect(try served.timeZones(near: [point]) == ["Zone/3"])
    }
}
