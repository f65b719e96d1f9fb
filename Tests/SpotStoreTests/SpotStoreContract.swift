import Foundation
import GRDB
import PlacesCore
@testable import SpotStore
import StoreTestSupport
import Testing

private func id(_ text: String) -> UUID { UUID(uuidString: text)! }

/// What `places spots …` and the server's SPOT.* commands rely on from any spot store (see ``SpotStore``).
/// Every test runs once per implementation in ``SpotStoreImplementation/all``. Distances are hand-checked:
/// Helsinki Cathedral → Market Square is 0.0025° of latitude (278 m) and 0.0003° of longitude (17 m at 60° N), 278.5 m.
@Suite("Spot store contract")
struct SpotStoreContract {
    @Test("a saved spot comes back with every field, through another handle too", arguments: SpotStoreImplementation.all)
    func roundTrip(_ implementation: SpotStoreImplementation) async throws {
        let open = try await implementation.freshStorage()
        let store = try await open()
        let spot = HelsinkiSpots.fullyDescribed()
        try await store.add(spot)
        #expect(try await store.spot(id: spot.id) == spot)
        let reopened = try await open()
        #expect(try await reopened.allSpots() == [spot])
        #expect(try await reopened.spots(attachedTo: PlaceID(provider: "google", nativeID: "ChIJ7Zc0nJ0LkkYR3Sd9I0hI9yE")).map(\.id) == [spot.id])
        #expect(try await reopened.spots(attachedTo: PlaceID(provider: "google", nativeID: "other")).isEmpty)
        #expect(try await reopened.spot(id: UUID()) == nil)
    }

    @Test("a second spot with a taken id is refused and changes nothing", arguments: SpotStoreImplementation.all)
    func duplicateID(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let spot = HelsinkiSpots.all()[0]
        try await store.add(spot)
        var twin = HelsinkiSpots.all()[1]
        twin.id = spot.id
        await #expect(throws: (any Error).self) { try await store.add(twin) }
        #expect(try await store.allSpots() == [spot])
    }

    @Test("a batch with one invalid spot saves none of them", arguments: SpotStoreImplementation.all)
    func batchIsAtomic(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        var batch = HelsinkiSpots.all()
        batch.append(Spot(name: "   ", coordinate: HelsinkiSpots.ateneum))
        await #expect(throws: InputError.self) { try await store.add(batch) }
        var offEarth = HelsinkiSpots.all()
        offEarth[2].coordinate = Coordinate(latitude: 91, longitude: 0)
        await #expect(throws: InputError.self) { try await store.add(offEarth) }
        #expect(try await store.count() == 0)
    }

    @Test("spots are found by full id or a 4+ character prefix; unknown and ambiguous ones are errors", arguments: SpotStoreImplementation.all)
    func resolve(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let a = Spot(id: id("aaaa1111-0000-0000-0000-000000000001"), name: "A", coordinate: HelsinkiSpots.ateneum)
        let b = Spot(id: id("aaaa2222-0000-0000-0000-000000000002"), name: "B", coordinate: HelsinkiSpots.cathedral)
        try await store.add([a, b])
        #expect(try await store.resolve("aaaa1").name == "A")
        #expect(try await store.resolve("AAAA2222-0000-0000-0000-000000000002").name == "B")
        #expect(try await store.resolve(" aaaa2222 ").name == "B")
        await #expect(throws: InputError.self) { try await store.resolve("aaaa") }    // ambiguous
        await #expect(throws: UnknownSpot(reference: "bbbb", reason: .noSuchSpot)) { try await store.resolve("bbbb") }
        await #expect(throws: UnknownSpot(reference: "aaa", reason: .notAnID)) { try await store.resolve("aaa") }  // too short
        await #expect(throws: UnknownSpot(reference: "Ateneum", reason: .notAnID)) { try await store.resolve("Ateneum") }
        await #expect(throws: UnknownSpot(reference: "aa%a", reason: .notAnID)) { try await store.resolve("aa%a") }  // never a pattern
    }

    @Test("an edit stamps the update time, keeps the rest, and a failed edit saves nothing", arguments: SpotStoreImplementation.all)
    func update(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let spot = HelsinkiSpots.all()[1]
        try await store.add(spot)
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        let edited = try await store.update(String(spot.id.storeKey.prefix(8)), now: later) {
            $0.rating = .dislike
            $0.tags.append("closed-mondays")
            $0.coordinate = HelsinkiSpots.marketSquare
        }
        #expect(edited.updatedAt == later)
        let stored = try #require(try await store.spot(id: spot.id))
        #expect(stored == edited)
        #expect(stored.tags == ["art", "rainy-day", "closed-mondays"] && stored.createdAt == spot.createdAt)
        // The spatial index follows the move.
        #expect(try await store.near(HelsinkiSpots.marketSquare, radius: 10).map(\.spot.id) == [spot.id])
        #expect(try await store.near(HelsinkiSpots.ateneum, radius: 10).isEmpty)
        await #expect(throws: InputError.self) { try await store.update(spot.id.storeKey, now: later) { $0.name = "  " } }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.update(spot.id.storeKey, now: later) { spot in
                spot.name = "Renamed"
                throw Refused()
            }
        }
        #expect(try await store.spot(id: spot.id) == edited)
        await #expect(throws: UnknownSpot.self) { try await store.update("ffff", now: later) { $0.name = "x" } }
    }

    @Test("edits through two handles at once both land", arguments: SpotStoreImplementation.all)
    func concurrentEdits(_ implementation: SpotStoreImplementation) async throws {
        let open = try await implementation.freshStorage()
        let spot = HelsinkiSpots.all()[0]
        try await open().add(spot)
        let first = try await open(), second = try await open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<40 {
                let store = n.isMultiple(of: 2) ? first : second
                group.addTask { try await store.update(spot.id.storeKey, now: Date()) { $0.tags.append("t\(n)") } }
            }
            try await group.waitForAll()
        }
        let tags = try #require(try await first.spot(id: spot.id)).tags
        #expect(Set(tags) == Set(["quiet"] + (0..<40).map { "t\($0)" }) && tags.count == 41)
    }

    @Test("list filters by category, tags and rating, and sorts by name, recency or distance", arguments: SpotStoreImplementation.all)
    func list(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        try await store.add(HelsinkiSpots.all())
        #expect(try await store.list().map(\.name) == ["Ateneum", "Helsinki Cathedral", "Kamppi Chapel", "Market Square", "Temppeliaukio Church"])
        #expect(try await store.list(SpotFilter(category: "place_of_worship")).map(\.name) == ["Helsinki Cathedral", "Kamppi Chapel", "Temppeliaukio Church"])
        #expect(try await store.list(SpotFilter(tags: ["art"])).map(\.name) == ["Ateneum"])
        #expect(try await store.list(SpotFilter(tags: ["art", "quiet"])).isEmpty)
        #expect(try await store.list(SpotFilter(rating: .some(.like))).map(\.name) == ["Ateneum"])
        #expect(try await store.list(SpotFilter(rating: .some(.dislike))).map(\.name) == ["Market Square"])
        #expect(try await store.list(SpotFilter(rating: .some(nil))).count == 3)
        #expect(try await store.list(SpotFilter(sort: .recent)).map(\.name) == ["Temppeliaukio Church", "Market Square", "Helsinki Cathedral", "Ateneum", "Kamppi Chapel"])
        let fromMarket = try await store.list(SpotFilter(sort: .distance, reference: HelsinkiSpots.marketSquare))
        #expect(fromMarket.map(\.name) == ["Market Square", "Helsinki Cathedral", "Ateneum", "Kamppi Chapel", "Temppeliaukio Church"])
        let categories = try await store.categories()
        #expect(categories.map(\.category) == ["place_of_worship", "marketplace", "museum"])
        #expect(categories.map(\.count) == [3, 1, 1])
    }

    @Test("names sort without case or accents getting in the way", arguments: SpotStoreImplementation.all)
    func foldedNameOrder(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let here = HelsinkiSpots.ateneum
        try await store.add([Spot(name: "Öljymäki", coordinate: here), Spot(name: "ateneum", coordinate: here),
                             Spot(name: "Café Regatta", coordinate: here), Spot(name: "Bar", coordinate: here)])
        #expect(try await store.list().map(\.name) == ["ateneum", "Bar", "Café Regatta", "Öljymäki"])
    }

    @Test("near returns spots inside the radius, nearest first, with distances and bearings", arguments: SpotStoreImplementation.all)
    func near(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        try await store.add(HelsinkiSpots.all())
        let hits = try await store.near(HelsinkiSpots.cathedral, radius: 805)
        #expect(hits.map(\.spot.name) == ["Helsinki Cathedral", "Market Square", "Ateneum"])
        #expect(hits[0].distance == 0)
        #expect(abs(hits[1].distance - 278.5) < 1)
        #expect(GeoMath.compassPoint(hits[1].bearing) == "S")
        #expect(GeoMath.compassPoint(hits[2].bearing) == "W")
        #expect(try await store.near(HelsinkiSpots.cathedral, radius: 270).map(\.spot.name) == ["Helsinki Cathedral"])
        #expect(try await store.near(HelsinkiSpots.cathedral, radius: 290).map(\.spot.name) == ["Helsinki Cathedral", "Market Square"])
        #expect(try await store.near(HelsinkiSpots.cathedral, radius: 805, limit: 2).map(\.spot.name) == ["Helsinki Cathedral", "Market Square"])
        #expect(try await store.near(Coordinate(latitude: 61.5, longitude: 23.8), radius: 805).isEmpty)
    }

    @Test("near works across the antimeridian", arguments: SpotStoreImplementation.all)
    func nearAntimeridian(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        // 0.002° of longitude at the equator is 222.6 m; the two points sit either side of 180°.
        try await store.add(Spot(name: "East", coordinate: Coordinate(latitude: 0, longitude: 179.999)))
        let hits = try await store.near(Coordinate(latitude: 0, longitude: -179.999), radius: 500)
        #expect(hits.map(\.spot.name) == ["East"])
        #expect(abs((hits.first?.distance ?? 0) - 222.6) < 1)
    }

    @Test("nearest finds the closest spots however far they are", arguments: SpotStoreImplementation.all)
    func nearest(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        #expect(try await store.nearest(HelsinkiSpots.ateneum, limit: 3).isEmpty)
        try await store.add(HelsinkiSpots.all())
        let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
        let nearest = try await store.nearest(tampere, limit: 2)
        #expect(nearest.map(\.spot.name) == ["Temppeliaukio Church", "Kamppi Chapel"])
        #expect(nearest[0].distance > 150_000 && nearest[0].distance < 165_000)
        #expect(try await store.nearest(HelsinkiSpots.ateneum, limit: 20).map(\.spot.name)
                == ["Ateneum", "Kamppi Chapel", "Helsinki Cathedral", "Market Square", "Temppeliaukio Church"])
        #expect(try await store.nearest(HelsinkiSpots.ateneum, limit: 0).isEmpty)
    }

    @Test("every spot's point for the watcher, and every spot oldest first for export", arguments: SpotStoreImplementation.all)
    func allPointsAndSpots(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let spots = HelsinkiSpots.all()
        try await store.add(spots.reversed())
        #expect(try await store.allSpots() == spots)
        let points = try await store.allPoints()
        #expect(Set(points) == Set(spots.map { SpotPoint(id: $0.id, name: $0.name, coordinate: $0.coordinate) }))
    }

    @Test("duplicate candidates: the same id, a shared place id, or a spot within the radius", arguments: SpotStoreImplementation.all)
    func duplicateCandidates(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        #expect(try await store.duplicateCandidates(for: [HelsinkiSpots.all()[0]], radius: 150) == [[]])
        var saved = HelsinkiSpots.all()
        saved[3].placeIDs = [PlaceID(provider: "osm", nativeID: "node/1")]
        try await store.add(saved)
        var sharesPlace = Spot(name: "Kauppatori", coordinate: Coordinate(latitude: 60.0, longitude: 25.0))
        sharesPlace.placeIDs = [PlaceID(provider: "osm", nativeID: "node/1")]
        let beside = Spot(name: "Beside Ateneum", coordinate: Coordinate(latitude: 60.1703, longitude: 24.9441))
        let far = Spot(name: "Tampere", coordinate: Coordinate(latitude: 61.4978, longitude: 23.7610))
        let found = try await store.duplicateCandidates(for: [saved[0], sharesPlace, beside, far], radius: 150)
        #expect(found.map { $0.map(\.name) } == [["Kamppi Chapel"], ["Market Square"], ["Ateneum"], []])
    }

    @Test("removing a spot returns it and keeps its visits, detached", arguments: SpotStoreImplementation.all)
    func removeKeepsVisits(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let ateneum = HelsinkiSpots.all()[1]
        try await store.add(ateneum)
        let visit = Visit(spotID: ateneum.id, time: Date(timeIntervalSince1970: 1_777_630_000), timeZone: "Europe/Helsinki",
                          coordinate: ateneum.coordinate, note: "Schjerfbeck room")
        try await store.log(visit)
        #expect(try await store.remove(String(ateneum.id.storeKey.prefix(6))) == ateneum)
        #expect(try await store.count() == 0)
        var detached = visit
        detached.spotID = nil
        #expect(try await store.visits() == [detached])
        await #expect(throws: UnknownSpot.self) { try await store.remove(ateneum.id.storeKey) }
    }

    @Test("visits come back in time order, filtered by their own local day, an instant, or a spot", arguments: SpotStoreImplementation.all)
    func visits(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let ateneum = HelsinkiSpots.all()[1]
        try await store.add(ateneum)
        // 00:30 in Helsinki on 2 May is still 1 May in UTC.
        let late = try SpotTime.parse("2026-05-02T00:30:00+03:00")
        let lateVisit = Visit(spotID: ateneum.id, time: late.date, timeZone: late.timeZone, coordinate: ateneum.coordinate, note: "Late show")
        let lunch = try SpotTime.parse("2026-05-01T12:00:00+03:00")
        let lunchVisit = Visit(time: lunch.date, timeZone: lunch.timeZone, coordinate: HelsinkiSpots.marketSquare,
                               note: "Salmon soup", photoPath: "/photos/soup.jpg")
        try await store.log(lateVisit)
        try await store.log(lunchVisit)
        #expect(try await store.visits() == [lunchVisit, lateVisit])
        #expect(try await store.visits(day: "2026-05-02", since: nil, spot: nil) == [lateVisit])
        #expect(try await store.visits(day: "2026-05-01", since: nil, spot: nil) == [lunchVisit])
        #expect(try await store.visits(day: nil, since: lunch.date, spot: nil).count == 2)
        #expect(try await store.visits(day: nil, since: lunch.date.addingTimeInterval(1), spot: nil) == [lateVisit])
        #expect(try await store.visits(day: nil, since: nil, spot: ateneum.id) == [lateVisit])
        #expect(try await store.visits(day: "2026-05-01", since: nil, spot: ateneum.id).isEmpty)
        // Logging the same visit again replaces it.
        var corrected = lunchVisit
        corrected.note = "Salmon soup, again"
        try await store.log(corrected)
        #expect(try await store.visits().map(\.note) == ["Salmon soup, again", "Late show"])
        await #expect(throws: InputError.self) { try await store.log(Visit(spotID: UUID(), coordinate: HelsinkiSpots.ateneum)) }
        #expect(try await store.visits().count == 2)
    }

    @Test("list sorts by when spots were added and when they were last visited", arguments: SpotStoreImplementation.all)
    func listByAddedAndVisited(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        try await store.add(HelsinkiSpots.all())
        let byName = try await store.list()
        // HelsinkiSpots are created a minute apart, Kamppi Chapel first and Temppeliaukio Church last.
        #expect(try await store.list(SpotFilter(sort: .added)).map(\.name)
            == ["Temppeliaukio Church", "Market Square", "Helsinki Cathedral", "Ateneum", "Kamppi Chapel"])
        let (ateneum, market) = (byName[0], byName[3])
        for (spot, seconds) in [(ateneum, 1_777_630_000.0), (market, 1_777_640_000.0), (ateneum, 1_777_620_000.0)] {
            try await store.log(Visit(spotID: spot.id, time: Date(timeIntervalSince1970: seconds), timeZone: "Europe/Helsinki",
                                      coordinate: spot.coordinate))
        }
        // Market Square last visited after Ateneum; the never-visited follow in name order.
        #expect(try await store.list(SpotFilter(sort: .visited)).map(\.name)
            == ["Market Square", "Ateneum", "Helsinki Cathedral", "Kamppi Chapel", "Temppeliaukio Church"])
    }

    @Test("a visit keeps its address; it is found by id prefix, edited in place and removed", arguments: SpotStoreImplementation.all)
    func visitAddressEditAndRemove(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let ateneum = HelsinkiSpots.all()[1]
        try await store.add(ateneum)
        let address = VisitAddress(street: "Kaivokatu", houseNumber: "2", city: "Helsinki", country: "FI")
        let visit = Visit(spotID: ateneum.id, time: Date(timeIntervalSince1970: 1_777_630_000), timeZone: "Europe/Helsinki",
                          coordinate: ateneum.coordinate, note: "Schjerfbeck room", address: address)
        let bare = Visit(time: Date(timeIntervalSince1970: 1_777_640_000), timeZone: "Europe/Helsinki",
                         coordinate: HelsinkiSpots.marketSquare)
        try await store.log(visit)
        try await store.log(bare)
        #expect(try await store.visits() == [visit, bare])
        #expect(try await store.visit(String(visit.id.storeKey.prefix(8))) == visit)
        #expect(try await store.visit(visit.id.storeKey.uppercased()) == visit)
        let edited = try await store.updateVisit(String(visit.id.storeKey.prefix(6))) { $0.note = "Café"; $0.id = UUID() }
        #expect(edited.id == visit.id && edited.note == "Café" && edited.address == address)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await store.updateVisit(visit.id.storeKey) { $0.note = "lost"; throw Refused() } }
        #expect(try await store.visit(visit.id.storeKey).note == "Café")
        #expect(try await store.removeVisit(visit.id.storeKey) == edited)
        #expect(try await store.visits() == [bare])
        await #expect(throws: UnknownVisit.self) { try await store.visit(visit.id.storeKey) }
        await #expect(throws: UnknownVisit.self) { try await store.removeVisit("zz") }
        #expect(try await store.count() == 1)
    }

    @Test("an import merges by id, adds the rest, and brings its visits", arguments: SpotStoreImplementation.all)
    func importMerges(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let spots = HelsinkiSpots.all()
        try await store.add(Array(spots.prefix(2)))
        var changed = spots[1]
        changed.notes = "From the import"
        let visit = Visit(spotID: spots[4].id, time: Date(timeIntervalSince1970: 1_777_630_000), timeZone: "Europe/Helsinki",
                          coordinate: spots[4].coordinate)
        try await store.importAll(spots: [changed] + spots.suffix(3), visits: [visit], replacing: false)
        #expect(try await store.count() == 5)
        #expect(try await store.spot(id: spots[1].id)?.notes == "From the import")
        #expect(try await store.visits() == [visit])
    }

    @Test("a replacing import deletes spots and visits first", arguments: SpotStoreImplementation.all)
    func importReplaces(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let spots = HelsinkiSpots.all()
        try await store.add(spots)
        try await store.log(Visit(spotID: spots[0].id, coordinate: spots[0].coordinate))
        let replacement = HelsinkiSpots.fullyDescribed()
        try await store.importAll(spots: [replacement], visits: [], replacing: true)
        #expect(try await store.allSpots() == [replacement])
        #expect(try await store.visits().isEmpty)
    }

    @Test("a failing import leaves the store exactly as it was", arguments: SpotStoreImplementation.all)
    func failingImport(_ implementation: SpotStoreImplementation) async throws {
        let store = try await implementation.make()
        let saved = HelsinkiSpots.all()
        try await store.add(saved)
        let visit = Visit(spotID: saved[0].id, time: Date(timeIntervalSince1970: 1_777_630_000), timeZone: "Europe/Helsinki",
                          coordinate: HelsinkiSpots.kamppiChapel)
        try await store.log(visit)
        let before = try await store.allSpots()
        var batch = (0..<200).map { Spot(name: "New \($0)", coordinate: HelsinkiSpots.ateneum) }
        batch.append(Spot(name: "", coordinate: HelsinkiSpots.ateneum))
        await #expect(throws: InputError.self) { try await store.importAll(spots: batch, visits: [], replacing: true) }
        // A visit naming a spot that is neither saved nor imported fails the whole import too.
        let orphan = Visit(spotID: UUID(), coordinate: HelsinkiSpots.ateneum)
        await #expect(throws: InputError.self) {
            try await store.importAll(spots: [Spot(name: "Fine", coordinate: HelsinkiSpots.ateneum)], visits: [orphan], replacing: false)
        }
        #expect(try await store.allSpots() == before)
        #expect(try await store.visits() == [visit])
    }

    @Test("two handles writing at once lose nothing", arguments: SpotStoreImplementation.all)
    func twoWriters(_ implementation: SpotStoreImplementation) async throws {
        // Two independent handles stand in for the CLI and the server (the two-process version runs the
        // built `places` binary in PlacesCLITests).
        let open = try await implementation.freshStorage()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let store = try await open()
                    for n in 0..<300 {
                        try await store.add(Spot(name: "writer \(writer) spot \(n)",
                                                 coordinate: Coordinate(latitude: 60.1 + Double(n) / 10_000, longitude: 24.9 + Double(writer) / 100)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = try await open()
        #expect(try await store.count() == 600)
        #expect(try await store.near(Coordinate(latitude: 60.1, longitude: 24.9), radius: 5).count == 1)
    }
}

@Suite("SQLite spot store")
struct SQLiteSpotStoreTests {
    @Test func theDatabaseRunsInWALModeSoReadersNeverBlockWriters() throws {
        let temp = try TemporarySpotStore()
        let mode = try temp.store.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    /// A database written before visits had addresses (only the v1 schema, as an older `places` left it) opens, gains
    /// the address columns, and keeps every spot and visit.
    @Test func aDatabaseFromBeforeVisitAddressesOpensWithEverythingKept() async throws {
        let path = temporaryDatabase("old-spots.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try SQLiteSpotStore.migrator.migrate(old, upTo: "v1: spots, attachments, visits, spatial index")
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO spot (id, name, folded_name, lat, lon, created_at, updated_at)
                VALUES ('0c1e7d5e-5b6a-4c1f-9f39-2f1a3c4d5e6f', 'Ateneum', 'ateneum', 60.17, 24.944, 0, 0);
                INSERT INTO visit (id, spot_id, time, time_zone, local_day, lat, lon, note)
                VALUES ('1d2e3f40-5b6a-4c1f-9f39-2f1a3c4d5e6f', '0c1e7d5e-5b6a-4c1f-9f39-2f1a3c4d5e6f', 799000000,
                        'Europe/Helsinki', '2026-04-28', 60.17, 24.944, 'Before addresses');
                """)
        }
        try old.close()
        let store = try SQLiteSpotStore(path: path)
        #expect(try await store.list().map(\.name) == ["Ateneum"])
        let visits = try await store.visits()
        #expect(visits.map(\.note) == ["Before addresses"] && visits.first?.address == nil)
        #expect(visits.first?.spotID?.storeKey == "0c1e7d5e-5b6a-4c1f-9f39-2f1a3c4d5e6f")
    }
}
