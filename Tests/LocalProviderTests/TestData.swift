import Foundation
import ScratchDirectory

/// Real data kept in the repository (the extract the app bundles), and scratch space for fixtures.
enum TestData {
    static let directory: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // LocalProviderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repo root
        .appendingPathComponent("Sources/PlacesApp/Resources/EmbeddedData")

    static let helsinkiPBF = directory.appendingPathComponent("helsinki.osm.pbf")

    /// A fresh directory that lives as long as the test process.
    static func temporaryDirectory() throws -> URL {
        try ScratchDirectory.lastingTheProcess("places-local-tests").url
    }
}

extension TestData {
    static let fixtures = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// Twelve real GeoNames rows: Helsinki and its districts, Espoo, Vantaa, Tallinn, Stockholm.
    static let geoNamesText = fixtures.appendingPathComponent("geonames-helsinki-area.txt")
    static let geoNamesGzip = fixtures.appendingPathComponent("geonames-helsinki-area.txt.gz")
    /// A readme entry first, then the dump, deflated: the shape geonames.org serves.
    static let geoNamesZip = fixtures.appendingPathComponent("geonames-helsinki-area.zip")
}
