import Foundation
import PlacesCore
@testable import PostgresStorage
import PostgresTestCluster
import SpotStore
import Testing

/// Real Helsinki landmarks (coordinates read off OpenStreetMap), as a person would save them.
enum Landmarks {
    static let kamppiChapel = Coordinate(latitude: 60.16945, longitude: 24.93650)
    static let ateneum = Coordinate(latitude: 60.17020, longitude: 24.94410)
    static let cathedral = Coordinate(latitude: 60.17000, longitude: 24.95220)
    static let marketSquare = Coordinate(latitude: 60.16750, longitude: 24.95250)
    static let temppeliaukio = Coordinate(latitude: 60.17320, longitude: 24.92530)

    static func all(at date: Date = Date(timeIntervalSince1970: 1_777_000_000)) -> [Spot] {
        [
            Spot(name: "Kamppi Chapel", coordinate: kamppiChapel, category: "place_of_worship", tags: ["quiet"], createdAt: date),
            Spot(name: "Ateneum", coordinate: ateneum, category: "museum", tags: ["art", "rainy-day"], rating: .like,
                 createdAt: date.addingTimeInterval(60)),
            Spot(name: "Helsinki Cathedral", coordinate: cathedral, category: "place_of_worship", tags: ["view"],
                 createdAt: date.addingTimeInterval(120)),
            Spot(name: "Market Square", coordinate: marketSquare, category: "marketplace", rating: .dislike,
                 createdAt: date.addingTimeInterval(180)),
            Spot(name: "Temppeliaukio Church", coordinate: temppeliaukio, category: "place_of_worship",
                 createdAt: date.addingTimeInterval(240)),
        ]
    }

    /// A spot with every field set, including a details snapshot, to prove round trips.
    static func fullyDescribed() -> Spot {
        let fetched = Date(timeIntervalSince1970: 1_777_100_000.123)
        let place = Place(
            id: PlaceID(provider: "osm", nativeID: "node/2385473"), name: "Café Regatta",
            coordinate: Coordinate(latitude: 60.1830467, longitude: 24.9095513),
            address: PostalAddress(houseNumber: "10", street: "Merikannontie", postcode: "00260", city: "Helsinki", countryCode: "FI"),
            formattedAddress: "Merikannontie 10, 00260 Helsinki, FI", phone: "+358405167444",
            website: "https://www.caferegatta.fi", categories: ["amenity=cafe"], category: "cafe",
            openingHoursText: "Mo-Su 08:00-23:00", timeZone: "Europe/Helsinki", status: .operational,
            attribution: "© OpenStreetMap contributors",
            alternateIDs: [PlaceID(provider: "google", nativeID: "ChIJ7Zc0nJ0LkkYR3Sd9I0hI9yE")]
        ).attributed(to: "local", at: fetched)
        var spot = Spot(saving: place, fetchedFrom: "local", at: fetched)
        spot.tags = ["cinnamon buns", "sea, view", "quote\"d"]
        spot.notes = "Queue moves fast.\nTry the korvapuusti; cash & card."
        spot.rating = .like
        spot.updatedAt = Date(timeIntervalSince1970: 1_777_200_000.456).roundedToMilliseconds
        return spot
    }
}

@Suite(.needsPostgres) struct PostgresSpotStoreTests {
    @Test func savedSpotsComeBackWithEveryFieldThroughAnotherPool() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let writer = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 2, timeout: testTimeout))
        let reader = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 2, timeout: testTimeout))
        defer { writer.close(); reader.close() }
        let spot = Landmarks.fullyDescribed()
        try await PostgresSpotStore(database: writer).add(spot)
        let other = PostgresSpotStore(database: reader)
        #expect(try await other.spot(id: spot.id) == spot)
        #expect(try await other.allSpots() == [spot])
        #expect(try await other.spots(attachedTo: PlaceID(provider: "google", nativeID: "ChIJ7Zc0nJ0LkkYR3Sd9I0hI9yE")).map(\.id) == [spot.id])
    }

    @Test func spotsAreFoundByIdPrefixAndAmbiguityIsReported() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            let a = Spot(id: UUID(uuidString: "aaaa1111-0000-0000-0000-000000000001")!, name: "A", coordinate: Landmarks.ateneum)
            let b = Spot(id: UUID(uuidString: "aaaa2222-0000-0000-0000-000000000002")!, name: "B", coordinate: Landmarks.cathedral)
            try await store.add([a, b])
            #expect(try await store.resolve("aaaa1").name == "A")
            #expect(try await store.resolve("AAAA2222-0000-0000-0000-000000000002").name == "B")
            await #expect(throws: InputError("ambiguous spot id 'aaaa': several spots start with it; type more characters")) {
                try await store.resolve("aaaa")
            }
            await #expect(throws: InputError("unknown spot 'bbbb': no saved spot has that id; see `places spots list`")) {
                try await store.resolve("bbbb")
            }
            await #expect(throws: InputError.self) { try await store.resolve("Ateneum") }
        }
    }

    @Test func editingStampsTheUpdateTimeAndAFailedEditChangesNothing() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            let spot = Landmarks.all()[1]
            try await store.add(spot)
            let later = Date(timeIntervalSince1970: 1_800_000_000)
            let edited = try await store.update(String(spot.id.storeKey.prefix(8)), now: later) {
                $0.rating = .dislike
                $0.tags.append("closed-mondays")
            }
            #expect(edited.updatedAt == later)
            #expect(try await store.spot(id: spot.id)?.tags == ["art", "rainy-day", "closed-mondays"])
            #expect(try await store.spot(id: spot.id)?.createdAt == spot.createdAt)
            await #expect(throws: InputError.self) { try await store.update(spot.id.storeKey) { $0.name = "  " } }
            #expect(try await store.spot(id: spot.id)?.name == "Ateneum")
        }
    }

    @Test func concurrentEditsOfOneSpotFromTwoPoolsLoseNothing() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let first = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        let second = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 4, timeout: testTimeout))
        defer { first.close(); second.close() }
        let stores = [PostgresSpotStore(database: first), PostgresSpotStore(database: second)]
        let spot = Landmarks.all()[0]
        try await stores[0].add(spot)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { try await stores[index % 2].update(spot.id.storeKey) { $0.tags.append("t\(index)") } }
            }
            try await group.waitForAll()
        }
        let tags = try #require(try await stores[1].spot(id: spot.id)).tags
        #expect(Set(tags) == Set(["quiet"] + (0..<20).map { "t\($0)" }))
    }

    @Test func listFiltersByCategoryTagAndRatingAndSorts() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            try await store.add(Landmarks.all())
            #expect(try await store.list().map(\.name) == ["Ateneum", "Helsinki Cathedral", "Kamppi Chapel", "Market Square", "Temppeliaukio Church"])
            #expect(try await store.list(SpotFilter(category: "place_of_worship")).count == 3)
            #expect(try await store.list(SpotFilter(tags: ["art"])).map(\.name) == ["Ateneum"])
            #expect(try await store.list(SpotFilter(rating: .some(.like))).map(\.name) == ["Ateneum"])
            #expect(try await store.list(SpotFilter(rating: .some(nil))).count == 3)
            #expect(try await store.list(SpotFilter(sort: .recent)).first?.name == "Temppeliaukio Church")
            let fromMarket = try await store.list(SpotFilter(sort: .distance, reference: Landmarks.marketSquare))
            #expect(fromMarket.map(\.name).prefix(2) == ["Market Square", "Helsinki Cathedral"])
            let categories = try await store.categories()
            #expect(categories.map(\.category) == ["place_of_worship", "marketplace", "museum"])
            #expect(categories.map(\.count) == [3, 1, 1])
        }
    }

    @Test func nearAndNearestGoThroughThePointIndex() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            try await store.add(Landmarks.all())
            let hits = try await store.near(Landmarks.cathedral, radius: 805)
            #expect(hits.map(\.spot.name) == ["Helsinki Cathedral", "Market Square", "Ateneum"])
            // The Market Square is 0.0025° of latitude (278 m) south of the cathedral.
            #expect(hits[1].distance > 270 && hits[1].distance < 290)
            #expect(GeoMath.compassPoint(hits[1].bearing) == "S")
            #expect(try await store.near(Coordinate(latitude: 61.5, longitude: 23.8), radius: 805).isEmpty)
            let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
            let nearest = try await store.nearest(tampere, limit: 2)
            #expect(nearest.map(\.spot.name) == ["Temppeliaukio Church", "Kamppi Chapel"])
            #expect(try await store.nearest(Landmarks.ateneum, limit: 20).count == 5)
            // The planner uses the GiST index for the box test.
            let plan = try await database.explain("""
                SELECT rowid FROM spot WHERE point(lon, lat) <@ box(point(24.94, 60.16), point(24.96, 60.18))
                """)
            #expect(plan.contains("spot_point"))
        }
    }

    @Test func visitsKeepTheirLocalDayAndOutliveTheirSpot() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            let ateneum = Landmarks.all()[1]
            try await store.add(ateneum)
            // 00:30 in Helsinki on 2 May is still 1 May in UTC.
            let late = try SpotTime.parse("2026-05-02T00:30:00+03:00")
            try await store.log(Visit(spotID: ateneum.id, time: late.date, timeZone: late.timeZone, coordinate: ateneum.coordinate, note: "Late show"))
            let lunch = try SpotTime.parse("2026-05-01T12:00:00+03:00")
            try await store.log(Visit(time: lunch.date, timeZone: lunch.timeZone, coordinate: Landmarks.marketSquare, note: "Salmon soup",
                                      photoPath: "/photos/soup.jpg"))
            #expect(try await store.visits(day: "2026-05-02").map(\.note) == ["Late show"])
            #expect(try await store.visits(day: "2026-05-01").map(\.photoPath) == ["/photos/soup.jpg"])
            #expect(try await store.visits(since: lunch.date.addingTimeInterval(1)).count == 1)
            #expect(try await store.visits(spot: ateneum.id).count == 1)
            try await store.remove(ateneum.id.storeKey)
            #expect(try await store.visits(day: "2026-05-02").first?.spotID == nil)
            await #expect(throws: InputError.self) { try await store.log(Visit(spotID: UUID(), coordinate: Landmarks.ateneum)) }
        }
    }

    @Test func aFailingImportLeavesTheStoreExactlyAsItWas() async throws {
        try await withFreshDatabase { database in
            let store = PostgresSpotStore(database: database)
            try await store.add(Landmarks.all())
            let before = try await store.allSpots()
            var batch = (0..<200).map { Spot(name: "New \($0)", coordinate: Landmarks.ateneum) }
            batch.append(Spot(name: "", coordinate: Landmarks.ateneum))
            await #expect(throws: InputError.self) { try await store.importAll(spots: batch, visits: [], replacing: true) }
            #expect(try await store.allSpots() == before)
            #expect(try await store.count() == 5)
            // A good import replaces everything in one go.
            try await store.importAll(spots: Array(batch.prefix(3)), visits: [], replacing: true)
            #expect(try await store.count() == 3)
        }
    }
}
