import Foundation
import GRDB
import LocalProvider
@testable import PlaceIndex
import PlacesCore
import Testing

@Suite struct LocalImporterTests {
    @Test func importsTheHelsinkiExtract() throws {
        let index = try PlaceIndexStore.inMemory()
        #expect(try index.isEmpty)
        let summary = try LocalImporter(index: index).importFile(TestData.helsinkiPBF)
        #expect(summary.kind == .osmPBF)
        #expect(summary.nodesRead == 24_260)
        #expect(summary.waysRead == 5_130)
        #expect(summary.relationsRead == 620)
        // 1,437 named amenity/shop/tourism/leisure/office/craft objects, 27 named historic ones and 3 named
        // railway stations (Helsinki, Rautatientori, Helsingin yliopisto), counted with pyosmium.
        #expect(summary.placesIndexed == 1_467)
        #expect(summary.addressPointsIndexed > 0)
        #expect(summary.line.hasPrefix("imported helsinki.osm.pbf: 30,010 objects (24,260 nodes, 5,130 ways, 620 relations) → 1,467 places, "
                                       + "\(summary.streetsAndAreasIndexed) streets and areas, and \(summary.addressPointsIndexed) address points"))
        let counts = try index.counts()
        #expect(counts.places == 1_467)
        // Counted with pyosmium: the extract's road ways without a POI or `place` tag carry 95 distinct names, and 27
        // names belong to parts of the city, squares and district boundaries, one of them (Kauppatori, r2919185) a
        // tourist attraction and so a POI. The extract is small enough that each name is one place. Its objects name 12
        // postcodes; one, 00150, only on the street relation r7281961 (Albertinkatu), which is neither a POI nor an
        // address point, so 11 are places.
        #expect(summary.streetsAndAreasIndexed == 95 + 26 + 11)
        #expect(counts.streetsAndAreas == summary.streetsAndAreasIndexed)
        #expect(counts.addressPoints == summary.addressPointsIndexed)
        #expect(try !index.isEmpty)
    }

    /// A phone number without a country prefix takes its region from the object's addr:country, else the
    /// GeoNames city around it, else the country the file's addresses name most, which is known only once the
    /// whole file is read. Kappeli (node 1376320188) has `phone=0107663880` and no addr:country (osmium); by
    /// Finland's numbering plan that is +358 10 7663880. Without GeoNames only the file's country can say so.
    @Test(arguments: [false, true])
    func phonesWithoutACountryPrefixTakeTheFilesCountry(withCities: Bool) throws {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        if withCities { _ = try importer.importFile(TestData.geoNamesText) }
        _ = try importer.importFile(TestData.helsinkiPBF)
        let kappeli = try #require(try index.place(id: PlaceID(provider: "osm", nativeID: "node/1376320188")))
        #expect(kappeli.name == "Kappeli")
        #expect(kappeli.phone == "+358107663880")
    }

    @Test func reimportingTheSameFileReplacesInsteadOfDuplicating() throws {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        _ = try importer.importFile(TestData.helsinkiPBF)
        _ = try importer.importFile(TestData.geoNamesText)
        let first = try index.counts()
        _ = try importer.importFile(TestData.helsinkiPBF)
        _ = try importer.importFile(TestData.geoNamesText)
        #expect(try index.counts() == first)
        #expect(try index.search(text: "maya bar").count == 1)
    }

    @Test func citiesStayFindableWhenAnotherFileTakesThemOverAndIsReimported() throws {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        let kallio = Coordinate(latitude: 60.1841, longitude: 24.9497)
        _ = try importer.importFile(TestData.geoNamesText)
        let expected = try #require(try index.cities(near: [kallio])[0])
        #expect(expected.name == "Helsinki")
        // The .gz holds the same cities under another source name: its rows replace the first file's.
        _ = try importer.importFile(TestData.geoNamesGzip)
        _ = try importer.importFile(TestData.geoNamesText)
        _ = try importer.importFile(TestData.geoNamesText)
        #expect(try index.cities(near: [kallio])[0] == expected)
        #expect(try index.counts().cities == 12)
    }

    @Test func anIndexFromBeforeTheCityRTreeAndGridFindsItsCitiesWhenOpened() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("places-v2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("index.sqlite")
        let old = try DatabaseQueue(path: path.path)
        try PlaceIndexStore.migrator.migrate(old, upTo: "v2: searchable keywords kept with the place")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO city (geonameid, source, name, ascii_name, lat, lon, country_code, population, time_zone)
                VALUES (658225, 'cities1000.txt', 'Helsinki', 'Helsinki', 60.16952, 24.93545, 'FI', 558457, 'Europe/Helsinki')
                """)
        }
        try old.close()
        let index = try PlaceIndexStore(path: path)
        let city = try #require(try index.cities(near: [Coordinate(latitude: 60.17, longitude: 24.94)])[0])
        #expect(city.name == "Helsinki" && city.timeZone == "Europe/Helsinki")
    }

    @Test func truncatedExtractFailsAndLeavesTheIndexAsItWas() throws {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        _ = try importer.importFile(TestData.helsinkiPBF)
        _ = try importer.importFile(TestData.geoNamesText)
        let before = try index.counts()
        // Same file name, so the failed import would first have removed the good one's objects.
        let whole = try Data(contentsOf: TestData.helsinkiPBF)
        let cut = try TestData.temporaryDirectory().appendingPathComponent("helsinki.osm.pbf")
        try whole.prefix(whole.count * 2 / 3).write(to: cut)
        let error = #expect(throws: InputError.self) { try importer.importFile(cut) }
        #expect(error?.message.hasPrefix("helsinki.osm.pbf: truncated blob at offset ") == true)
        #expect(try index.counts() == before)
        #expect(try index.search(text: "maya bar").first?.name == "Maya Bar & Grill")
    }

    @Test(arguments: [TestData.geoNamesText, TestData.geoNamesGzip, TestData.geoNamesZip])
    func importsGeoNamesDumps(_ url: URL) throws {
        let index = try PlaceIndexStore.inMemory()
        let summary = try LocalImporter(index: index).importFile(url)
        #expect(summary.kind == .geoNames)
        #expect(summary.rowsRead == 12)
        #expect(summary.citiesIndexed == 12)
        #expect(summary.line == "imported \(url.lastPathComponent): 12 GeoNames rows → 12 cities in \(String(format: "%.1f s", summary.elapsedSeconds))")
        #expect(try index.counts().cities == 12)
        let helsinki = try #require(try index.place(id: PlaceID(parsing: "geonames:658225")))
        #expect(helsinki.name == "Helsinki")
        #expect(helsinki.category == "city")
        #expect(helsinki.timeZone == "Europe/Helsinki")
        #expect(helsinki.address?.countryCode == "FI")
        #expect(try index.search(text: "stockholm").first?.id.description == "geonames:2673730")
    }

    @Test func fileThatIsNotGeoNamesNamesTheLine() throws {
        let index = try PlaceIndexStore.inMemory()
        _ = try LocalImporter(index: index).importFile(TestData.geoNamesText)
        let before = try index.counts()
        let url = try TestData.temporaryDirectory().appendingPathComponent("cafes.csv")
        try Data("name,lat,lon\nCafe Ekberg,60.1643,24.9386\n".utf8).write(to: url)
        let error = #expect(throws: InputError.self) { try LocalImporter(index: index).importFile(url) }
        #expect(error?.message.hasPrefix("cafes.csv: line 1 is not in the GeoNames format: expected 19 tab-separated columns, found 1") == true)
        #expect(try index.counts() == before)
    }

    @Test func badRowDeepInADumpNamesItsLineAndImportsNothing() throws {
        var lines = try String(contentsOf: TestData.geoNamesText, encoding: .utf8).split(separator: "\n").map(String.init)
        var columns = lines[2].split(separator: "\t", omittingEmptySubsequences: false)
        columns[4] = "north"
        lines[2] = columns.joined(separator: "\t")
        let url = try TestData.temporaryDirectory().appendingPathComponent("broken.txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        let index = try PlaceIndexStore.inMemory()
        let error = #expect(throws: InputError.self) { try LocalImporter(index: index).importFile(url) }
        #expect(error?.message.hasPrefix("broken.txt: line 3 is not in the GeoNames format") == true)
        #expect(try index.isEmpty)
    }

    /// Lines are parsed on every core in batches of thousands: the error still names the first bad line of
    /// the file, not a later one parsed at the same time, and nothing of the rows before it remains.
    @Test func firstBadRowOfALargeDumpIsTheOneNamed() throws {
        let rows = try String(contentsOf: TestData.geoNamesText, encoding: .utf8).split(separator: "\n").map(String.init)
        var lines: [String] = []
        for copy in 0..<800 {
            for row in rows {
                var columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                columns[0] = String(Int(columns[0])! + copy * 100_000_000)
                lines.append(columns.joined(separator: "\t"))
            }
        }
        // 9,600 rows: line 5,001 has no latitude, line 9,000 no population that is a number.
        var bad = lines[5_000].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        bad[4] = "north"
        lines[5_000] = bad.joined(separator: "\t")
        bad = lines[8_999].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        bad[14] = "many"
        lines[8_999] = bad.joined(separator: "\t")
        let url = try TestData.temporaryDirectory().appendingPathComponent("large.txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        let index = try PlaceIndexStore.inMemory()
        let error = #expect(throws: InputError.self) { try LocalImporter(index: index).importFile(url) }
        #expect(error?.message.hasPrefix("large.txt: line 5001 is not in the GeoNames format: 'north',") == true)
        #expect(try index.isEmpty)
        lines[5_000] = lines[5_001]
        lines[8_999] = lines[8_998]
        try Data(lines.joined(separator: "\n").utf8).write(to: url)
        let summary = try LocalImporter(index: index).importFile(url)
        #expect(summary.rowsRead == 9_600)
    }

    @Test func binaryGarbageIsRefused() throws {
        let url = try TestData.temporaryDirectory().appendingPathComponent("photo.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]).write(to: url)
        let error = #expect(throws: InputError.self) { try LocalImporter(index: PlaceIndexStore.inMemory()).importFile(url) }
        #expect(error?.message == "photo.jpg: not an .osm.pbf extract or a GeoNames dump (.txt, .txt.gz, .zip)")
    }

    @Test func missingFileSaysSo() throws {
        let error = #expect(throws: InputError.self) {
            try LocalImporter(index: PlaceIndexStore.inMemory()).importFile(URL(fileURLWithPath: "/nonexistent/x.osm.pbf"))
        }
        #expect(error?.message == "/nonexistent/x.osm.pbf: no such file")
    }

    @Test func indexOnDiskSurvivesReopening() throws {
        let path = try TestData.temporaryDirectory().appendingPathComponent("index.sqlite")
        do {
            let index = try PlaceIndexStore(path: path)
            _ = try LocalImporter(index: index).importFile(TestData.geoNamesGzip)
        }
        let reopened = try PlaceIndexStore(path: path)
        #expect(try reopened.counts().cities == 12)
    }

    @Test func reportsProgressUpToTheWholeFile() throws {
        final class Box: @unchecked Sendable { var last: ImportProgress? }
        let box = Box()
        _ = try LocalImporter(index: PlaceIndexStore.inMemory()).importFile(TestData.helsinkiPBF) { box.last = $0 }
        let last = try #require(box.last)
        #expect(last.bytesRead == last.totalBytes)
        #expect(last.totalBytes == 685_110)
    }
}
