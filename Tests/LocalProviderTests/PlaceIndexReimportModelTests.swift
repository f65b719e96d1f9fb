import Foundation
import GRDB
@testable import PlaceIndex
import PlacesCore
import StoreTestSupport
import Testing

/// Random sequences of imports, checked after each against a model of what the index must then hold: a file
/// replaces what its earlier import added, the newer import of an object wins over another file's, and the last
/// copy of an object a file holds twice wins over the earlier one. Files are small and draw their objects from a
/// pool of twelve, so they hit every path the writer has: rows updated in place, replacements of older rows and of
/// the import's own, rowids handed out again, the R*Tree packed or filled entry by entry, `place`'s indexes dropped
/// and made again, a source removed by rebuilding both indexes. (Its first run found a writer bug: an earlier copy
/// of an object undoing the later one. 300 seeds pass now; run more to search further.)
@Suite struct PlaceIndexReimportModelTests {
    /// Far enough apart that a 100 m `nearby` around one holds only the places at it.
    static let spots = [PlaceIndexReimportTests.center, PlaceIndexReimportTests.tampere, PlaceIndexReimportTests.turku,
                        PlaceIndexReimportTests.oulu, Coordinate(latitude: 62.2426, longitude: 25.7473)]
    /// One word per object and one per version, none a slip or a start of another, so a search for both words
    /// names one place.
    static let objectWords = ["alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "juniper", "larch",
                              "maple", "oak"]
    static let versionWords = ["north", "south", "east", "west"]
    static let sources = ["a.osm.pbf", "b.osm.pbf", "c.osm.pbf"]

    struct Held: Hashable {
        var source: String
        var name: String
        var spot: Int
        /// Its main name and its alternate names.
        var names: Int
    }

    /// What a file's `source` row must say: the names and the box of the rows that file holds once it is in.
    struct Recorded: Equatable {
        var names: Int
        var bounds: IndexedSource.Bounds?
    }

    static func place(object: Int, version: Int, spot: Int) -> Place {
        Place(id: PlaceID(provider: "osm", nativeID: "node/\(object)"),
              name: "Cafe \(objectWords[object].capitalized) \(versionWords[version].capitalized)",
              coordinate: spots[spot], categories: ["amenity=cafe"], category: "cafe")
    }

    /// Other names of an object: they share only the object's word with its name, so a search for the object's and the
    /// version's words still names the one place.
    static func alternateNames(object: Int, count: Int) -> [String] {
        ["Kahvila", "Kafé"].prefix(count).map { "\($0) \(objectWords[object].capitalized)" }
    }

    @Test(arguments: 1...12)
    func everyImportLeavesWhatTheModelSays(seed: Int) throws {
        var random = SeededRandom(seed: seed)
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        let index = try PlaceIndexStore(path: path)
        var model: [Int: Held] = [:]
        var recorded: [String: Recorded] = [:]
        for round in 0..<25 {
            // One file per write, or two in one (as `places import a b` and the first-run build write them).
            let sources = Array(Self.sources.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
            let files = sources.map { source in
                (source: source, objects: (0..<Int.random(in: 0...8, using: &random)).map { _ in
                    (object: Int.random(in: 0..<Self.objectWords.count, using: &random),
                     version: Int.random(in: 0..<Self.versionWords.count, using: &random),
                     spot: Int.random(in: 0..<Self.spots.count, using: &random),
                     alternates: Int.random(in: 0...2, using: &random))
                })
            }
            let dropsIndexes = Bool.random(using: &random)
            try index.write { writer in
                if dropsIndexes { writer.fewestRowsForDroppingIndexes = 2 }
                for file in files {
                    try writer.removeSource(file.source)
                    for entry in file.objects {
                        try writer.insert(Self.place(object: entry.object, version: entry.version, spot: entry.spot),
                                          kind: .poi, source: file.source, keywords: ["cafe"],
                                          alternateNames: Self.alternateNames(object: entry.object, count: entry.alternates))
                    }
                    try writer.finishSource(file.source, kind: "osm.pbf", places: file.objects.count, cities: 0)
                }
            }
            for file in files {
                model = model.filter { $0.value.source != file.source }
                for entry in file.objects {
                    let name = Self.place(object: entry.object, version: entry.version, spot: entry.spot).name
                    model[entry.object] = Held(source: file.source, name: name, spot: entry.spot, names: 1 + entry.alternates)
                }
                let rows = model.values.filter { $0.source == file.source }
                let latitudes = rows.map { Self.spots[$0.spot].latitude }, longitudes = rows.map { Self.spots[$0.spot].longitude }
                recorded[file.source] = Recorded(
                    names: rows.map(\.names).reduce(0, +),
                    bounds: rows.isEmpty ? nil : IndexedSource.Bounds(minLatitude: latitudes.min()!, maxLatitude: latitudes.max()!,
                                                                      minLongitude: longitudes.min()!, maxLongitude: longitudes.max()!))
            }
            let context = "seed \(seed), round \(round): \(files.map { "\($0.source) holding \($0.objects)" })"
            try check(index, path: path, against: model, context)
            let written = try index.sources().filter { Self.sources.contains($0.name) }
            #expect(Dictionary(uniqueKeysWithValues: written.map { ($0.name, Recorded(names: $0.names, bounds: $0.bounds)) })
                        == recorded, "the source rows: \(context)")
        }
    }

    private func check(_ index: PlaceIndexStore, path: URL, against model: [Int: Held], _ context: String) throws {
        let database = try DatabaseQueue(path: path.path)
        defer { try? database.close() }
        let rows = try database.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT id, source, name, lat, lon, alt_names FROM place")
        }
        var held: [Int: Held] = [:]
        for row in rows {
            let id: String = row["id"]
            let object = try #require(Int(id.dropFirst("osm:node/".count)), "\(id)")
            let coordinate = Coordinate(latitude: row["lat"], longitude: row["lon"])
            let spot = try #require(Self.spots.firstIndex(of: coordinate), "\(coordinate)")
            let alternates = (row["alt_names"] as String).split(separator: "\n").count
            #expect(held.updateValue(Held(source: row["source"], name: row["name"], spot: spot, names: 1 + alternates),
                                     forKey: object) == nil,
                    "one row per object: \(context)")
        }
        #expect(held == model, "the rows: \(context)")
        #expect(try PlaceIndexReimportTests.spatialIndexMatchesThePlaces(path), "the R*Tree: \(context)")
        #expect(try PlaceIndexReimportTests.fullTextIndexIsConsistent(path), "the full-text index: \(context)")
        for (spot, coordinate) in Self.spots.enumerated() {
            let names = Set(try index.nearby(center: coordinate, radius: 100, limit: 100).map(\.name))
            #expect(names == Set(model.values.filter { $0.spot == spot }.map(\.name)), "nearby spot \(spot): \(context)")
        }
        for (object, row) in model {
            let words = row.name.split(separator: " ").dropFirst().joined(separator: " ")
            #expect(try index.search(text: words).first?.name == row.name, "search \(words) for object \(object): \(context)")
        }
    }
}
