import Foundation
import GRDB
@testable import PlaceIndex
import PlacesCore
import Testing

/// Replacing what a file added keeps the full-text index consistent: it reads the words of a deleted
/// entry from the place row, so an entry must be deleted exactly when it was added.
@Suite struct PlaceIndexReimportTests {
    static let center = Coordinate(latitude: 60.1699, longitude: 24.9384)

    static let tampere = Coordinate(latitude: 61.4978, longitude: 23.7610)
    static let turku = Coordinate(latitude: 60.4518, longitude: 22.2666)
    static let oulu = Coordinate(latitude: 65.0121, longitude: 25.4651)

    static func place(_ id: Int, _ name: String, at coordinate: Coordinate = center) -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: coordinate,
              categories: ["amenity=cafe"], category: "cafe")
    }

    /// FTS5's own consistency check of the index against the rows, on the file `index` was opened from.
    static func fullTextIndexIsConsistent(_ path: URL) throws -> Bool {
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        do {
            try database.write { db in try db.execute(sql: "INSERT INTO place_fts (place_fts) VALUES ('integrity-check')") }
            return true
        } catch {
            return false
        }
    }

    @Test func importingAFileAgainReplacesItsPlaces() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        for name in ["Cafe Kappeli", "Cafe Kappeli Uusi"] {
            try index.write { writer in
                try writer.removeSource("cafes")
                try writer.insert(Self.place(1, name), kind: .poi, source: "cafes", keywords: ["cafe"])
                try writer.finishSource("cafes", kind: "osm.pbf", places: 1, cities: 0)
            }
        }
        #expect(try index.search(text: "kappeli").map(\.name) == ["Cafe Kappeli Uusi"])
        #expect(try index.suggest(prefix: "c").map(\.name) == ["Cafe Kappeli Uusi"], "the short-prefix list too")
        #expect(try Self.fullTextIndexIsConsistent(path))
    }

    /// An import that inserts more rows than the index held drops `place`'s secondary indexes on the way and
    /// makes them again, the same, before it ends; a write that never finishes its source gets them back too.
    @Test func aLargeImportDropsTheSecondaryIndexesAndMakesThemAgain() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        let indexSQL = "SELECT group_concat(sql, ';') FROM (SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'place' ORDER BY name)"
        let before = try index.database.read { db in try String.fetchOne(db, sql: indexSQL) }
        #expect(before?.contains("place_by_search_name") == true)
        for finishing in [true, false] {
            var during: String?
            try index.write { writer in
                writer.fewestRowsForDroppingIndexes = 3
                for i in 1...5 { try writer.insert(Self.place(i, "Cafe \(i)"), kind: .poi, source: "cafes", keywords: ["cafe"]) }
                during = try String.fetchOne(writer.db, sql: indexSQL)
                if finishing { try writer.finishSource("cafes", kind: "osm.pbf", places: 5, cities: 0) }
            }
            #expect(during == nil, "all three dropped after the third row")
            #expect(try index.database.read { db in try String.fetchOne(db, sql: indexSQL) } == before)
            try index.write { writer in try writer.removeSource("cafes") }
        }
        try index.write { writer in
            for i in 1...5 { try writer.insert(Self.place(i, "Cafe \(i)"), kind: .poi, source: "cafes", keywords: ["cafe"]) }
            try writer.finishSource("cafes", kind: "osm.pbf", places: 5, cities: 0)
        }
        #expect(try index.search(text: "cafe 4").first?.name == "Cafe 4")
        #expect(try index.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// A large import that writes GeoNames cities drops `city`'s indexes (by source and grid cell) with `place`'s and
    /// makes them again, the same, before it ends, or when the write stops without finishing its source; an import
    /// without cities (an extract, which looks cities up by cell while it inserts) keeps them.
    @Test func aLargeImportOfCitiesDropsTheCityIndexesTooAndMakesThemAgain() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        let citySQL = "SELECT group_concat(sql, ';') FROM (SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'city' ORDER BY name)"
        let before = try index.database.read { db in try String.fetchOne(db, sql: citySQL) }
        #expect(before?.contains("city_by_cell") == true && before?.contains("city_by_source") == true)
        func city(_ i: Int) -> IndexedCity {
            IndexedCity(geonameID: Int64(i), name: "Town \(i)", asciiName: "Town \(i)",
                        coordinate: Coordinate(latitude: 60 + Double(i), longitude: 25), featureCode: "PPL", countryCode: "FI",
                        admin1: nil, population: 1_000, timeZone: "Europe/Helsinki")
        }
        for finishing in [true, false] {
            var during: String?
            try index.write { writer in
                writer.fewestRowsForDroppingIndexes = 3
                for i in 1...5 {
                    try writer.insert(city(i), source: "towns.txt")
                    let town = Place(id: city(i).placeID, name: city(i).name, coordinate: city(i).coordinate, category: "city")
                    try writer.insert(town, kind: .city, source: "towns.txt")
                }
                during = try String.fetchOne(writer.db, sql: citySQL)
                if finishing { try writer.finishSource("towns.txt", kind: "geonames", places: 5, cities: 5) }
            }
            #expect(during == nil, "both dropped after the third row")
            #expect(try index.database.read { db in try String.fetchOne(db, sql: citySQL) } == before)
            if finishing {
                #expect(try index.reverse(Coordinate(latitude: 64.001, longitude: 25)).city?.name == "Town 4")
                try index.write { writer in try writer.removeSource("towns.txt") }
            }
        }
        var duringExtract: String?
        try index.write { writer in
            writer.fewestRowsForDroppingIndexes = 3
            for i in 1...5 { try writer.insert(Self.place(i, "Cafe \(i)"), kind: .poi, source: "cafes", keywords: ["cafe"]) }
            duringExtract = try String.fetchOne(writer.db, sql: citySQL)
            try writer.finishSource("cafes", kind: "osm.pbf", places: 5, cities: 0)
        }
        #expect(duringExtract == before, "an import without cities keeps them")
        #expect(try index.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func aFileHoldingOneObjectTwiceKeepsTheLaterOne() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        try index.write { writer in
            try writer.insert(Self.place(1, "Cafe Ekberg"), kind: .poi, source: "cafes", keywords: ["cafe"])
            try writer.insert(Self.place(1, "Cafe Ekberg 1852"), kind: .poi, source: "cafes", keywords: ["cafe"])
            try writer.finishSource("cafes", kind: "osm.pbf", places: 1, cities: 0)
        }
        #expect(try index.search(text: "ekberg").map(\.name) == ["Cafe Ekberg 1852"])
        #expect(try Self.fullTextIndexIsConsistent(path))
    }

    @Test func anotherFileWithTheSameObjectReplacesIt() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        for source in ["old.osm.pbf", "new.osm.pbf"] {
            try index.write { writer in
                try writer.insert(Self.place(1, "Cafe Regatta \(source.prefix(3))"), kind: .poi, source: source, keywords: ["cafe"])
                try writer.finishSource(source, kind: "osm.pbf", places: 1, cities: 0)
            }
        }
        #expect(try index.search(text: "regatta").map(\.name) == ["Cafe Regatta new"])
        #expect(try Self.fullTextIndexIsConsistent(path))
    }

    /// Every place has exactly one R*Tree entry, and the R*Tree holds nothing else.
    static func spatialIndexMatchesThePlaces(_ path: URL) throws -> Bool {
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        return try database.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM place_rtree) = (SELECT count(*) FROM place)
                   AND NOT EXISTS (SELECT 1 FROM place WHERE rowid NOT IN (SELECT id FROM place_rtree))
                """) ?? false
        }
    }

    /// Imports `places` as the file `source` in one transaction, the way `LocalImporter` does.
    static func importing(_ places: [Place], as source: String, into index: PlaceIndexStore) throws {
        try index.write { writer in
            for place in places { try writer.insert(place, kind: .poi, source: source, keywords: ["cafe"]) }
            try writer.finishSource(source, kind: "osm.pbf", places: places.count, cities: 0)
        }
    }

    @Test func anotherFileWithTheSameWordsAndPositionTakesTheRowOver() throws {
        // cities1000 over the bundled cities15000: the row is updated where it is and keeps its index entries.
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        try Self.importing([Self.place(1, "Cafe Regatta"), Self.place(2, "Cafe Ursula")], as: "old.osm.pbf", into: index)
        var newer = Self.place(1, "Cafe Regatta")
        newer.phone = "+358 40 1234567"
        try Self.importing([newer, Self.place(3, "Cafe Engel")], as: "new.osm.pbf", into: index)
        #expect(try index.search(text: "regatta").map(\.phone) == ["+358 40 1234567"])
        #expect(try index.nearby(center: Self.center, radius: 100).map(\.name).sorted() == ["Cafe Engel", "Cafe Regatta", "Cafe Ursula"])
        #expect(try index.sources().first { $0.name == "new.osm.pbf" }?.names == 2, "the place taken over counts for the new file")
        #expect(try Self.fullTextIndexIsConsistent(path))
        #expect(try Self.spatialIndexMatchesThePlaces(path))
        // The row belongs to the new file now: replacing the old file's places leaves it.
        try index.write { writer in
            try writer.removeSource("old.osm.pbf")
            try writer.finishSource("old.osm.pbf", kind: "osm.pbf", places: 0, cities: 0)
        }
        #expect(try index.search(text: "cafe").map(\.name).sorted() == ["Cafe Engel", "Cafe Regatta"])
        #expect(try Self.fullTextIndexIsConsistent(path))
        #expect(try Self.spatialIndexMatchesThePlaces(path))
    }

    @Test func aMovedPlaceFromAnotherFileIsReplacedWithItsNewPosition() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        let far = Coordinate(latitude: 61.4978, longitude: 23.7610)
        var moved = Self.place(1, "Cafe Regatta")
        moved.coordinate = far
        try Self.importing([Self.place(1, "Cafe Regatta")], as: "old.osm.pbf", into: index)
        try Self.importing([moved], as: "new.osm.pbf", into: index)
        #expect(try index.nearby(center: Self.center, radius: 1_000).isEmpty)
        #expect(try index.nearby(center: far, radius: 1_000).map(\.name) == ["Cafe Regatta"])
        #expect(try Self.fullTextIndexIsConsistent(path))
        #expect(try Self.spatialIndexMatchesThePlaces(path))
    }

    @Test func aFileHoldingOneObjectThreeTimesKeepsTheLastOverAnEarlierFile() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        try Self.importing([Self.place(1, "Cafe Ekberg")], as: "old.osm.pbf", into: index)
        try Self.importing(["Cafe Ekberg", "Cafe Ekberg 1852", "Cafe Ekberg Bulevardi"].map { Self.place(1, $0) }, as: "new.osm.pbf",
                           into: index)
        #expect(try index.search(text: "ekberg").map(\.name) == ["Cafe Ekberg Bulevardi"])
        #expect(try index.suggest(prefix: "c").map(\.name) == ["Cafe Ekberg Bulevardi"])
        #expect(try Self.fullTextIndexIsConsistent(path))
        #expect(try Self.spatialIndexMatchesThePlaces(path))
    }

    /// The R*Tree entries of an import's new rows are kept as the rows go in (not read back at its end), so a row
    /// deleted on the way, or its rowid handed out again to a place elsewhere, must leave no entry behind: a file
    /// holding one object twice, at two positions, as its last rows (SQLite gives the later copy the earlier one's
    /// rowid) or followed by another place; into an empty index (the tree packed) and into one holding 40 places
    /// (the few new entries inserted through the virtual table).
    @Test(arguments: [0, 40], [true, false])
    func aPlaceAFileHoldsTwiceIsFoundAtItsLaterPositionOnly(heldPlaces: Int, twiceAtTheEnd: Bool) throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        if heldPlaces > 0 {
            try Self.importing((1...heldPlaces).map { Self.place(100 + $0, "Cafe \($0)", at: Self.oulu) }, as: "held.osm.pbf", into: index)
        }
        let twice = [Self.place(1, "Cafe Ekberg", at: Self.tampere), Self.place(1, "Cafe Ekberg", at: Self.turku)]
        let other = Self.place(2, "Cafe Engel")
        let file = twiceAtTheEnd ? [other] + twice : twice + [other]
        try Self.importing(file, as: "new.osm.pbf", into: index)
        #expect(try index.nearby(center: Self.turku, radius: 1_000).map(\.name) == ["Cafe Ekberg"])
        #expect(try index.nearby(center: Self.tampere, radius: 1_000).isEmpty)
        #expect(try index.nearby(center: Self.center, radius: 1_000).map(\.name) == ["Cafe Engel"])
        #expect(try index.nearby(center: Self.oulu, radius: 1_000, limit: 100).count == heldPlaces)
        #expect(try Self.spatialIndexMatchesThePlaces(path))
        #expect(try PackedRTreeTests.check(path) == "ok")
    }

    /// A new row takes the highest rowid there is plus one. When a file moves the index's newest place elsewhere and
    /// holds another place twice, replacing both deletes every row from the import's first one on, and the moved
    /// place's new row is then numbered below that first row: it is still this import's, found by name and by
    /// position like the rest.
    @Test func aMovedPlaceNumberedBelowTheImportsFirstRowIsFoundByNameAndPosition() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        try Self.importing([Self.place(1, "Cafe Regatta")], as: "old.osm.pbf", into: index)
        try Self.importing([Self.place(1, "Cafe Regatta", at: Self.turku), Self.place(2, "Cafe Engel", at: Self.oulu),
                            Self.place(2, "Cafe Engel", at: Self.tampere)], as: "new.osm.pbf", into: index)
        #expect(try index.nearby(center: Self.turku, radius: 1_000).map(\.name) == ["Cafe Regatta"])
        #expect(try index.nearby(center: Self.center, radius: 1_000).isEmpty)
        #expect(try index.nearby(center: Self.tampere, radius: 1_000).map(\.name) == ["Cafe Engel"])
        #expect(try index.nearby(center: Self.oulu, radius: 1_000).isEmpty)
        #expect(try index.search(text: "regatta").map(\.name) == ["Cafe Regatta"])
        #expect(try Self.spatialIndexMatchesThePlaces(path))
        #expect(try Self.fullTextIndexIsConsistent(path))
    }

    /// `places sources` says how many names a file's places have and the area they cover, from the rows that stand
    /// once it is imported: a place taken over in place from another file counts, the earlier copy of a place the
    /// file holds twice does not.
    @Test func aFilesNamesAndAreaAreThoseOfThePlacesItKeeps() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        try Self.importing([Self.place(1, "Cafe Regatta")], as: "old.osm.pbf", into: index)
        try index.write { writer in
            try writer.insert(Self.place(1, "Cafe Regatta"), kind: .poi, source: "new.osm.pbf", keywords: ["cafe"])
            try writer.insert(Self.place(2, "Cafe Engel", at: Self.tampere), kind: .poi, source: "new.osm.pbf", keywords: ["cafe"],
                              alternateNames: ["Kahvila Engel", "Engel Café"])
            try writer.insert(Self.place(3, "Cafe Ekberg", at: Self.oulu), kind: .poi, source: "new.osm.pbf", keywords: ["cafe"])
            try writer.insert(Self.place(3, "Cafe Ekberg", at: Self.turku), kind: .poi, source: "new.osm.pbf", keywords: ["cafe"])
            try writer.finishSource("new.osm.pbf", kind: "osm.pbf", places: 3, cities: 0)
        }
        let new = try #require(try index.sources().first { $0.name == "new.osm.pbf" })
        #expect(new.names == 5, "Regatta, Engel and its two other names, Ekberg")
        #expect(new.bounds == IndexedSource.Bounds(minLatitude: Self.center.latitude, maxLatitude: Self.tampere.latitude,
                                                   minLongitude: Self.turku.longitude, maxLongitude: Self.center.longitude))
    }
}
