import Foundation
import GRDB
import PlaceIndex
import PlacesCore
import Testing

/// Replacing what a file added keeps the full-text index consistent: it reads the words of a deleted
/// entry from the place row, so an entry must be deleted exactly when it was added.
@Suite struct PlaceIndexReimportTests {
    static let center = Coordinate(latitude: 60.1699, longitude: 24.9384)

    static func place(_ id: Int, _ name: String) -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: "node/\(id)"), name: name, coordinate: center,
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
}
