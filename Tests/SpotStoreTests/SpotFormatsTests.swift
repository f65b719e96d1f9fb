import Foundation
import PlacesCore
import SpotStore
import Testing

@Suite("Spot import and export")
struct SpotFormatsTests {
    static func sample() -> [Spot] {
        var spots = HelsinkiSpots.all()
        spots[0].notes = "Silent room, free entry"
        spots[3].address = "Eteläranta, 00170 Helsinki"
        spots[4].placeIDs = [PlaceID(provider: "osm", nativeID: "way/24357623"), PlaceID(provider: "google", nativeID: "ChIJx2R")]
        return spots + [HelsinkiSpots.fullyDescribed()]
    }

    /// Part of the spot store contract: what one store exports, another (of any implementation) imports unchanged.
    @Test(arguments: SpotStoreImplementation.all, SpotFormat.allCases)
    func exportThenImportIntoAnEmptyStoreRoundTripsEveryField(implementation: SpotStoreImplementation, format: SpotFormat) async throws {
        let source = try await implementation.make()
        let sample = Self.sample()
        try await source.add(sample)
        let visit = Visit(spotID: sample[1].id, time: Date(timeIntervalSince1970: 1_777_630_000.5), timeZone: "Europe/Helsinki",
                          coordinate: HelsinkiSpots.ateneum, note: "Schjerfbeck room", photoPath: "/photos/ateneum.jpg")
        try await source.log(visit)
        let exported = try SpotFiles.export(SpotArchive(spots: try await source.allSpots(), visits: try await source.visits()), format: format)

        let archive = try SpotFiles.parse(exported, format: format)
        #expect(archive.skipped.isEmpty)
        let target = try await implementation.make()
        try await target.importAll(spots: archive.spots, visits: archive.visits, replacing: false)
        #expect(try await target.allSpots() == source.allSpots())
        if format == .geojson {
            #expect(try await target.visits() == [visit])
        }
    }

    @Test func googleTakeoutSavedPlacesBecomeSpots() throws {
        let archive = try SpotFiles.parse(Data(Self.takeout.utf8), format: .geojson, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(archive.spots.map(\.name) == ["Löyly", "Café Regatta", "Suomenlinna"])
        let loyly = archive.spots[0]
        #expect(loyly.coordinate == Coordinate(latitude: 60.1520763, longitude: 24.9417449))
        #expect(loyly.address == "Hernesaarenranta 4, 00150 Helsinki, Finland")
        #expect(loyly.url == "http://maps.google.com/?cid=11254585613837298911")
        #expect(loyly.createdAt == Date(timeIntervalSince1970: 1_634_641_503))
        // Without Geo Coordinates the geometry is used; the [0, 0] entry with no position is reported, not saved.
        #expect(archive.spots[2].coordinate == Coordinate(latitude: 60.1454, longitude: 24.9881))
        #expect(archive.skipped.count == 1)
        #expect(archive.skipped[0].contains("Somewhere"))
    }

    @Test func handMadeCSVWithSemicolonTagsAndQuotedCommasImports() throws {
        let csv = """
            name,latitude,longitude,category,tags,notes
            "Kappeli, Esplanadi",60.1675,24.9490,restaurant,terrace; summer,"Says ""best"" coffee"
            Broken row,not-a-number,24.9

            """
        let archive = try SpotFiles.parse(Data(csv.utf8), format: .csv)
        #expect(archive.spots.count == 1)
        #expect(archive.spots[0].name == "Kappeli, Esplanadi")
        #expect(archive.spots[0].tags == ["terrace", "summer"])
        #expect(archive.spots[0].notes == "Says \"best\" coffee")
        #expect(archive.skipped == ["line 3: 'Broken row' has no coordinates"])
    }

    /// A spreadsheet's export: byte order mark, CRLF, a note over two lines; a bad row names the line it is on.
    @Test func csvWithBOMAndCRLFAndMultiLineNotesImportsWithTrueLineNumbers() throws {
        let csv = "\u{FEFF}name,lat,lon,notes\r\nKappeli,60.1675,24.9490,\"Terrace,\r\nopen in summer\"\r\nBroken,north,24.9,\r\n"
        let archive = try SpotFiles.parse(Data(csv.utf8), format: .csv)
        #expect(archive.spots.map(\.name) == ["Kappeli"])
        #expect(archive.spots[0].notes == "Terrace,\r\nopen in summer")
        #expect(archive.skipped.count == 1)
        #expect(archive.skipped.first?.hasPrefix("line 4: ") == true, "\(archive.skipped)")
    }

    @Test func csvExportReadsBackFieldForField() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let tricky = "Says \"best\", coffee\nsecond line"
        let csv = "name,lat,lon,notes,category\n\"Kappeli, Esplanadi\",60.1675,24.949,\"\(tricky.replacingOccurrences(of: "\"", with: "\"\""))\",cafe\n"
        let archive = try SpotFiles.parse(Data(csv.utf8), format: .csv, now: now)
        let exported = try SpotFiles.export(archive, format: .csv)
        #expect(String(decoding: exported, as: UTF8.self).hasSuffix("\r\n"))
        let again = try SpotFiles.parse(exported, format: .csv, now: now)
        #expect(again.spots.map(\.name) == ["Kappeli, Esplanadi"])
        #expect(again.spots.first?.notes == tricky)
        #expect(again.spots.first?.category == "cafe")
        #expect(again.skipped.isEmpty)
    }

    @Test func kmlFromOtherAppsImportsPointPlacemarksOnly() throws {
        let kml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document><Folder>
              <Placemark><name>Sea Horse</name><description><![CDATA[Old-school <b>Finnish</b> food]]></description>
                <Point><coordinates>24.9474,60.1610,0</coordinates></Point></Placemark>
              <Placemark><name>Walk</name><LineString><coordinates>24.9,60.1 24.91,60.11</coordinates></LineString></Placemark>
            </Folder></Document></kml>
            """
        let archive = try SpotFiles.parse(Data(kml.utf8), format: .kml)
        #expect(archive.spots.map(\.name) == ["Sea Horse"])
        #expect(archive.spots[0].notes == "Old-school <b>Finnish</b> food")
        #expect(archive.spots[0].coordinate == Coordinate(latitude: 60.1610, longitude: 24.9474))
        #expect(archive.skipped.count == 1)
    }

    @Test func brokenFilesFailWithOneClearLine() {
        #expect(throws: InputError.self) { try SpotFiles.parse(Data("<gpx><wpt lat=\"1\" lon=\"2\"></gpx>".utf8), format: .gpx) }
        #expect(throws: InputError.self) { try SpotFiles.parse(Data("<svg/>".utf8), format: .kml) }
        #expect(throws: InputError.self) { try SpotFiles.parse(Data("{\"type\": 3".utf8), format: .geojson) }
        #expect(throws: InputError.self) { try SpotFiles.parse(Data("a,b\n1,2\n".utf8), format: .csv) }
    }

    /// Found by the gpx and kml fuzzers: a name with a byte that is not UTF-8 made Foundation's XMLParser trap.
    static let notUTF8: [(SpotFormat, Data)] = [
        (.gpx, Data(#"<gpx><wpt lat="60.1" lon="24.9" cr"#.utf8) + [0xE5] + Data(#"ator="x"/></gpx>"#.utf8)),
        (.kml, Data("<kml><Do".utf8) + [0xFF, 0xFF] + Data("cument/></kml>".utf8)),
    ]

    @Test(arguments: notUTF8)
    func xmlThatIsNotUTF8IsRefusedWithOneLine(format: SpotFormat, data: Data) {
        #expect {
            try SpotFiles.parse(data, format: format)
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.contains("is not UTF-8 (invalid byte at offset") && !message.contains("\n")
        }
    }

    /// A DOCTYPE (what GPX and KML never have, and how entity expansion attacks arrive) is refused with one line.
    @Test(arguments: ["<!DOCTYPE gpx [<!NOTATION n SYSTEM \"x\">]><gpx/>",
                      "<!DOCTYPE kml [<!ELEMENT kml ANY><!ATTLIST kml a CDATA #IMPLIED>]><kml/>"])
    func xmlWithADoctypeIsRefusedWithOneLine(text: String) {
        let format: SpotFormat = text.contains("gpx") ? .gpx : .kml
        #expect {
            try SpotFiles.parse(Data(text.utf8), format: format)
        } throws: { error in
            let message = (error as? InputError)?.message ?? ""
            return message.hasPrefix("cannot read the \(format.rawValue.uppercased()) file: it has a DOCTYPE") && !message.contains("\n")
        }
    }

    /// Found by the fuzzers when Foundation's XMLParser read these files: it dereferenced a null pointer on a
    /// processing instruction without data. That is well-formed XML, skipped like any other instruction.
    @Test(arguments: ["<gpx><?x?></gpx>", "<?x?><kml/>"])
    func instructionsWithoutDataAreSkipped(text: String) throws {
        let format: SpotFormat = text.contains("gpx") ? .gpx : .kml
        let archive = try SpotFiles.parse(Data(text.utf8), format: format)
        #expect(archive.spots.isEmpty && archive.skipped.isEmpty)
    }

    @Test func instructionsWithDataStillImport() throws {
        let gpx = #"<?xml version="1.0"?><?xml-stylesheet href="a.xsl"?><gpx><wpt lat="60.17" lon="24.94"><name>A</name></wpt></gpx>"#
        #expect(try SpotFiles.parse(Data(gpx.utf8), format: .gpx).spots.map(\.name) == ["A"])
    }

    /// The shape of Google Takeout's "Saved Places.json" (Maps (your places)).
    static let takeout = """
        {
          "type": "FeatureCollection",
          "features": [
            {
              "geometry": {"coordinates": [24.9417449, 60.1520763], "type": "Point"},
              "properties": {
                "Google Maps URL": "http://maps.google.com/?cid=11254585613837298911",
                "Location": {
                  "Address": "Hernesaarenranta 4, 00150 Helsinki, Finland",
                  "Business Name": "Löyly",
                  "Country Code": "FI",
                  "Geo Coordinates": {"Latitude": "60.1520763", "Longitude": "24.9417449"}
                },
                "Published": "2021-10-19T11:05:03Z",
                "Title": "Löyly",
                "Updated": "2021-10-19T11:05:03Z"
              },
              "type": "Feature"
            },
            {
              "geometry": {"coordinates": [24.9095513, 60.1830467], "type": "Point"},
              "properties": {
                "Google Maps URL": "http://maps.google.com/?cid=4917013585128187949",
                "Location": {
                  "Address": "Merikannontie 10, 00260 Helsinki, Finland",
                  "Business Name": "Café Regatta",
                  "Geo Coordinates": {"Latitude": 60.1830467, "Longitude": 24.9095513}
                },
                "Published": "2022-06-01T08:00:00Z",
                "Title": "Café Regatta",
                "Updated": "2023-02-11T17:45:10Z"
              },
              "type": "Feature"
            },
            {
              "geometry": {"coordinates": [24.9881, 60.1454], "type": "Point"},
              "properties": {
                "Google Maps URL": "http://maps.google.com/?q=Suomenlinna",
                "Location": {"Address": "Suomenlinna, 00190 Helsinki, Finland"},
                "Published": "2020-07-04T09:00:00Z",
                "Title": "Suomenlinna"
              },
              "type": "Feature"
            },
            {
              "geometry": {"coordinates": [0, 0], "type": "Point"},
              "properties": {
                "Google Maps URL": "http://maps.google.com/?q=Somewhere",
                "Published": "2019-01-01T00:00:00Z",
                "Title": "Somewhere"
              },
              "type": "Feature"
            }
          ]
        }
        """
}
