import Foundation
import GRDB
import PlacesCore
import SpotStore
import Testing

@Suite("Spot store")
struct SpotStoreTests {
    @Test func savedSpotsComeBackWithEveryFieldAndSurviveReopening() throws {
        let temp = try TemporarySpotStore()
        let spot = HelsinkiSpots.fullyDescribed()
        try temp.store.add(spot)
        #expect(try temp.store.spot(id: spot.id) == spot)
        let reopened = try SpotStore(path: temp.path)
        #expect(try reopened.allSpots() == [spot])
        #expect(try reopened.spots(attachedTo: PlaceID(provider: "google", nativeID: "ChIJ7Zc0nJ0LkkYR3Sd9I0hI9yE")).map(\.id) == [spot.id])
    }

    @Test func spotsAreFoundByIdPrefixAndAmbiguityIsReported() throws {
        let temp = try TemporarySpotStore()
        let a = Spot(id: UUID(uuidString: "aaaa1111-0000-0000-0000-000000000001")!, name: "A", coordinate: HelsinkiSpots.ateneum)
        let b = Spot(id: UUID(uuidString: "aaaa2222-0000-0000-0000-000000000002")!, name: "B", coordinate: HelsinkiSpots.cathedral)
        try temp.store.add([a, b])
        #expect(try temp.store.resolve("aaaa1").name == "A")
        #expect(try temp.store.resolve("AAAA2222-0000-0000-0000-000000000002").name == "B")
        #expect(throws: InputError.self) { try temp.store.resolve("aaaa") }
        #expect(throws: InputError.self) { try temp.store.resolve("bbbb") }
        #expect(throws: InputError.self) { try temp.store.resolve("Ateneum") }
    }

    @Test func editingStampsTheUpdateTimeAndKeepsEverythingElse() throws {
        let temp = try TemporarySpotStore()
        let spot = HelsinkiSpots.all()[1]
        try temp.store.add(spot)
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        let edited = try temp.store.update(String(spot.id.storeKey.prefix(8)), now: later) {
            $0.rating = .dislike
            $0.tags.append("closed-mondays")
        }
        #expect(edited.updatedAt == later)
        #expect(try temp.store.spot(id: spot.id)?.tags == ["art", "rainy-day", "closed-mondays"])
        #expect(try temp.store.spot(id: spot.id)?.createdAt == spot.createdAt)
        #expect(throws: InputError.self) { try temp.store.update(spot.id.storeKey) { $0.name = "  " } }
        #expect(try temp.store.spot(id: spot.id)?.name == "Ateneum")
    }

    @Test func listFiltersByCategoryTagAndRatingAndSorts() throws {
        let temp = try TemporarySpotStore()
        try temp.store.add(HelsinkiSpots.all())
        #expect(try temp.store.list().map(\.name) == ["Ateneum", "Helsinki Cathedral", "Kamppi Chapel", "Market Square", "Temppeliaukio Church"])
        #expect(try temp.store.list(SpotFilter(category: "place_of_worship")).count == 3)
        #expect(try temp.store.list(SpotFilter(tags: ["art"])).map(\.name) == ["Ateneum"])
        #expect(try temp.store.list(SpotFilter(rating: .some(.like))).map(\.name) == ["Ateneum"])
        #expect(try temp.store.list(SpotFilter(rating: .some(nil))).count == 3)
        #expect(try temp.store.list(SpotFilter(sort: .recent)).first?.name == "Temppeliaukio Church")
        let fromMarket = try temp.store.list(SpotFilter(sort: .distance, reference: HelsinkiSpots.marketSquare))
        #expect(fromMarket.map(\.name).prefix(2) == ["Market Square", "Helsinki Cathedral"])
        let categories = try temp.store.categories()
        #expect(categories.first?.category == "place_of_worship" && categories.first?.count == 3)
        #expect(categories.count == 3)
    }

    @Test func nearReturnsSpotsInsideTheRadiusNearestFirstWithBearings() throws {
        let temp = try TemporarySpotStore()
        try temp.store.add(HelsinkiSpots.all())
        let hits = try temp.store.near(HelsinkiSpots.cathedral, radius: 805)
        #expect(hits.map(\.spot.name) == ["Helsinki Cathedral", "Market Square", "Ateneum"])
        #expect(hits[1].distance > 270 && hits[1].distance < 290)
        #expect(GeoMath.compassPoint(hits[1].bearing) == "S")
        #expect(GeoMath.compassPoint(hits[2].bearing) == "W")
        #expect(try temp.store.near(Coordinate(latitude: 61.5, longitude: 23.8), radius: 805).isEmpty)
    }

    @Test func nearestFindsTheClosestSpotsHoweverFarTheyAre() throws {
        let temp = try TemporarySpotStore()
        try temp.store.add(HelsinkiSpots.all())
        let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
        let nearest = try temp.store.nearest(tampere, limit: 2)
        #expect(nearest.map(\.spot.name) == ["Temppeliaukio Church", "Kamppi Chapel"])
        #expect(nearest[0].distance > 150_000)
        #expect(try temp.store.nearest(HelsinkiSpots.ateneum, limit: 20).count == 5)
    }

    @Test func visitsAreGroupedByTheirOwnLocalDay() throws {
        let temp = try TemporarySpotStore()
        let ateneum = HelsinkiSpots.all()[1]
        try temp.store.add(ateneum)
        // 00:30 in Helsinki on 2 May is still 1 May in UTC.
        let late = try SpotTime.parse("2026-05-02T00:30:00+03:00")
        try temp.store.log(Visit(spotID: ateneum.id, time: late.date, timeZone: late.timeZone, coordinate: ateneum.coordinate, note: "Late show"))
        let lunch = try SpotTime.parse("2026-05-01T12:00:00+03:00")
        try temp.store.log(Visit(time: lunch.date, timeZone: lunch.timeZone, coordinate: HelsinkiSpots.marketSquare, note: "Salmon soup", photoPath: "/photos/soup.jpg"))
        #expect(try temp.store.visits(day: "2026-05-02").map(\.note) == ["Late show"])
        #expect(try temp.store.visits(day: "2026-05-01").map(\.note) == ["Salmon soup"])
        #expect(try temp.store.visits(since: lunch.date.addingTimeInterval(1)).count == 1)
        #expect(try temp.store.visits(spot: ateneum.id).count == 1)
        // Removing the spot keeps the visit, detached.
        try temp.store.remove(ateneum.id.storeKey)
        #expect(try temp.store.visits(day: "2026-05-02").first?.spotID == nil)
        #expect(throws: InputError.self) { try temp.store.log(Visit(spotID: UUID(), coordinate: HelsinkiSpots.ateneum)) }
    }

    @Test func aFailingImportLeavesTheStoreExactlyAsItWas() throws {
        let temp = try TemporarySpotStore()
        try temp.store.add(HelsinkiSpots.all())
        let before = try temp.store.allSpots()
        var batch = (0..<200).map { Spot(name: "New \($0)", coordinate: HelsinkiSpots.ateneum) }
        batch.append(Spot(name: "", coordinate: HelsinkiSpots.ateneum))
        #expect(throws: InputError.self) { try temp.store.importAll(spots: batch, visits: [], replacing: true) }
        #expect(try temp.store.allSpots() == before)
        #expect(try temp.store.count() == 5)
    }

    @Test func twoIndependentConnectionPoolsWritingAtOnceLoseNothing() async throws {
        // Two DatabasePools on one file, each in its own thread, stand in for the CLI and the server.
        // (The two-process version runs the built `places` binary in PlacesCLITests.)
        let temp = try TemporarySpotStore()
        let path = temp.path
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let store = try SpotStore(path: path)
                    for n in 0..<500 {
                        try store.add(Spot(name: "writer \(writer) spot \(n)",
                                           coordinate: Coordinate(latitude: 60.1 + Double(n) / 10_000, longitude: 24.9 + Double(writer) / 100)))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try temp.store.count() == 1_000)
        #expect(try temp.store.near(Coordinate(latitude: 60.1, longitude: 24.9), radius: 5).count == 1)
    }

    @Test func theDatabaseRunsInWALModeSoReadersNeverBlockWriters() throws {
        let temp = try TemporarySpotStore()
        let mode = try temp.store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }
}
