import Foundation
import LocalProvider
import Testing
@testable import PlacesHours

/// Reads the real extract with the project's own PBF reader, so a new or changed value in the data
/// cannot slip past the corpus test.
@Suite("opening_hours values read from helsinki.osm.pbf")
struct HelsinkiExtractTests {
    /// The extract bundled with the app (same bytes as `../shared/data/helsinki.osm.pbf`).
    static let extract = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PlacesApp/Resources/EmbeddedData/helsinki.osm.pbf")

    @Test("Every distinct value on every object parses, except the listed exceptions")
    func everyValueParses() throws {
        var objectsByValue: [String: Int] = [:]
        try OSMPBFReader(url: Self.extract).forEachElement { element in
            if let value = element.tags["opening_hours"] { objectsByValue[value, default: 0] += 1 }
        }
        #expect(objectsByValue.count == 379)
        #expect(objectsByValue.values.reduce(0, +) == 632)
        // The reviewed fixture is the same set, so the evaluation tables stay representative.
        #expect(Set(objectsByValue.keys) == Set(HelsinkiOpeningHours.values))

        var failures: [String: String] = [:]
        for value in objectsByValue.keys {
            if let error = OpeningHours(osm: value).syntaxError { failures[value] = error.description }
        }
        #expect(Set(failures.keys) == Set(knownUnreadableHelsinkiValues.keys), "unexpected failures: \(failures)")
        let unreadableObjects = failures.keys.map { objectsByValue[$0] ?? 0 }.reduce(0, +)
        #expect(unreadableObjects == failures.count, "each unreadable value is on a single object")
    }
}
