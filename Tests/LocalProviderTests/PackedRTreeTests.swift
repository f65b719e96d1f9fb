import Foundation
import GRDB
import LocalProvider
@testable import PlaceIndex
import PlacesCore
import Testing

/// An import packs the R*Tree and writes it as rows of its shadow tables (``PackedRTree``). SQLite itself is
/// the independent judge: its `rtreecheck()` checks the structure, a tree SQLite builds entry by entry from the
/// same rows gives the expected boxes, and plain `lat`/`lon` comparisons give what a box holds.
@Suite struct PackedRTreeTests {
    static func importedIndex(_ files: [URL]) throws -> (path: URL, index: PlaceIndexStore) {
        let path = try TestData.temporaryDirectory().appendingPathComponent("rtree-\(UUID().uuidString).sqlite")
        let index = try PlaceIndexStore(path: path)
        for file in files { _ = try LocalImporter(index: index).importFile(file) }
        return (path, index)
    }

    static func check(_ path: URL) throws -> String? {
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        return try database.read { db in try String.fetchOne(db, sql: "SELECT rtreecheck('place_rtree')") }
    }

    @Test func theBundledExtractsTreeIsSQLitesOwnTreeOfTheSameBoxes() throws {
        let (path, _) = try Self.importedIndex([TestData.geoNamesText, TestData.helsinkiPBF])
        #expect(try Self.check(path) == "ok")
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        try database.write { db in
            let places = try Int.fetchOne(db, sql: "SELECT count(*) FROM place")!
            #expect(places > 1_467)
            // SQLite's R*Tree fed entry by entry, as the import did before it packed: the same boxes, each
            // coordinate rounded outwards to a float by SQLite's rules.
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.by_sqlite USING rtree(id, min_lat, max_lat, min_lon, max_lon)")
            try db.execute(sql: "INSERT INTO temp.by_sqlite SELECT rowid, lat, lat, lon, lon FROM place")
            let packed = try Row.fetchAll(db, sql: "SELECT * FROM place_rtree ORDER BY id")
            let bySQLite = try Row.fetchAll(db, sql: "SELECT * FROM temp.by_sqlite ORDER BY id")
            #expect(packed.count == places)
            #expect(packed == bySQLite)
            // Boxes around the extract's middle, small to large: the packed tree answers as SQLite's does, and
            // holds every place inside (and, its boxes being floats rounded outwards, a few on the edge).
            for half in [0.0005, 0.002, 0.01, 0.1, 5] {
                let box = StatementArguments([60.17 - half, 60.17 + half, 24.94 - half, 24.94 + half])
                func inside(_ table: String) throws -> Set<Int64> {
                    try Int64.fetchSet(db, sql: "SELECT id FROM \(table) WHERE max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?",
                                       arguments: box)
                }
                let inRows = try Int64.fetchSet(db, sql: "SELECT rowid FROM place WHERE lat >= ? AND lat <= ? AND lon >= ? AND lon <= ?",
                                                arguments: box)
                #expect(try inside("place_rtree") == inside("temp.by_sqlite"), "box of half-side \(half)°")
                #expect(try inside("place_rtree").isSuperset(of: inRows))
                #expect(!inRows.isEmpty)
            }
        }
    }

    /// A small import into a large tree goes in entry by entry; importing a file again (most of the index)
    /// rebuilds the full-text index and the tree from the rows that stay, then packs the new rows in; either
    /// way both indexes stay whole and find the places.
    @Test func laterImportsKeepTheTreeWhole() throws {
        let (path, index) = try Self.importedIndex([TestData.helsinkiPBF])
        let cafe = Place(id: PlaceID(provider: "osm", nativeID: "node/1"), name: "Kahvila Testi",
                         coordinate: Coordinate(latitude: 60.1712, longitude: 24.9411), categories: ["amenity=cafe"], category: "cafe")
        try index.write { writer in
            try writer.insert(cafe, kind: .poi, source: "one-cafe", keywords: ["cafe"])
            try writer.finishSource("one-cafe", kind: "osm.pbf", places: 1, cities: 0)
        }
        #expect(try Self.check(path) == "ok")
        #expect(try index.nearby(center: cafe.coordinate, radius: 5, limit: 5).map(\.name).contains("Kahvila Testi"))
        _ = try LocalImporter(index: index).importFile(TestData.helsinkiPBF)
        #expect(try Self.check(path) == "ok")
        #expect(try PlaceIndexReimportTests.fullTextIndexIsConsistent(path))
        #expect(try index.nearby(center: cafe.coordinate, radius: 5, limit: 5).map(\.name).contains("Kahvila Testi"))
        #expect(try index.search(text: "kahvila testi").map(\.name) == ["Kahvila Testi"])
        #expect(try index.search(text: "kappeli").map(\.name).contains("Kappeli"))
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        let (entries, places) = try database.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM place_rtree"), try Int.fetchOne(db, sql: "SELECT count(*) FROM place"))
        }
        #expect(entries == places)
    }

    /// SQLite's rounding of a coordinate to the floats the tree stores: outwards, so the box holds the point.
    @Test func pointsAreRoundedOutwards() {
        for value in [60.1699, -33.8688, 24.9384, -0.0000001, 0, 179.9999999] {
            let entry = PackedRTree.Entry(id: 1, latitude: value, longitude: value)
            #expect(Double(entry.minLatitude) <= value && value <= Double(entry.maxLatitude))
            #expect(entry.maxLatitude - entry.minLatitude <= 4 * entry.minLatitude.ulp, "a few floats apart at most")
        }
    }
}
