import Foundation
import PlacesCore
import Testing
@testable import PlacesMatching

@Suite struct RecordFileTests {
    func parse(_ text: String, format: RecordFile.Format? = nil, skip: Bool = false) throws(InputError) -> RecordFileContents {
        try RecordFile.parse(Data(text.utf8), name: "places.csv", format: format, skipBadLines: skip)
    }

    func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return (error as? InputError)?.message ?? "\(error)" }
        return ""
    }

    @Test func readsCSVWithQuotesAndOptionalColumns() throws {
        let contents = try parse(#"""
            id,name,address,phone,lat,lon,extra
            1,"Kappeli, Café",Eteläesplanadi 1,+358 10 7665850,60.1675,24.9480,x
            2,"Say ""Cheese""",,,,,
            """#)
        #expect(contents.records.count == 2)
        #expect(contents.records[0].name == "Kappeli, Café")
        #expect(contents.records[0].coordinate?.latitude == 60.1675)
        #expect(contents.records[1].name == "Say \"Cheese\"")
        #expect(contents.records[1].coordinate == nil && contents.records[1].address == nil)
    }

    /// What spreadsheet apps write: a byte order mark, CRLF line ends, and a quoted field over two lines; the
    /// rows after it keep their own line numbers.
    @Test func readsBOMAndCRLFAndALineBreakInsideAQuotedField() throws {
        let text = "\u{FEFF}id,name,address,lat,lon\r\n1,Kappeli,\"Eteläesplanadi 1\r\nHelsinki\",60.1675,24.948\r\n"
            + "2,Far,,95,24\r\n3,\"Say \"\"Cheese\"\"\",,,\r\n"
        #expect(message { _ = try parse(text) }.hasPrefix("places.csv:4: bad coordinate"))
        let contents = try parse(text, skip: true)
        #expect(contents.records.map(\.id) == ["1", "3"])
        #expect(contents.records[0].address == "Eteläesplanadi 1\nHelsinki")
        #expect(contents.records[1].name == "Say \"Cheese\"")
        #expect(contents.skipped.map { String($0.message.prefix(14)) } == ["places.csv:4: "])
    }

    @Test func raggedRowsAndAnUnclosedQuoteNameTheirLines() throws {
        #expect(message { _ = try parse("id,name\n1,Kappeli,extra\n") } == "places.csv:2: expected 2 fields as in the header, found 3")
        #expect(message { _ = try parse("id,name\n1,\"Kappeli\n2,Sea Horse\n") } == "places.csv:2: a quoted field is never closed")
        #expect(message { _ = try parse("id,name\n1,\"Kappeli") } == "places.csv:2: a quoted field is never closed")
    }

    /// Text after a quoted field's closing quote, which the CSV library read without a word (dropping the character
    /// after the quote, or reading on into the next lines): the row is refused with its line and the lines it took.
    @Test func strayQuotesNameTheirLines() throws {
        let problem = "a quoted field goes on after its closing quote (a quote inside a quoted field is written twice: \"\")"
        #expect(message { _ = try parse("id,name\n1,\"Kappeli\"x\n") } == "places.csv:2: " + problem)
        #expect(message { _ = try parse("id,name\n1,\"Kappeli\"x\n2,Sea Horse\n3,Zetor\n") }
                == "places.csv:2: " + problem + "; lines 2–4 were read as this one row")
        // A quote inside a field that does not start with one is read as it stands.
        let insideAField = "id,name\n1,Sea Horse\n2,Cafe \"Engel\"\r\n3,\"Say \"\"Cheese\"\"\"\n"
        #expect(try parse(insideAField).records.map(\.name) == ["Sea Horse", "Cafe \"Engel\"", "Say \"Cheese\""])
        // After a quoted field over two lines the rows keep their own lines.
        let afterALineBreak = "id,name\n1,\"Kappeli\nEsplanadi\"\n2,\"Cafe\" Engel\n"
        #expect(message { _ = try parse(afterALineBreak) } == "places.csv:4: " + problem)
    }

    @Test func aHeaderWithTabsAndNoCommasIsTabSeparated() throws {
        let contents = try parse("\nid\tname\tlat\tlon\n7\tKappeli, Café\t60.1675\t24.948\n")
        #expect(contents.records.map(\.name) == ["Kappeli, Café"])
    }

    @Test func readsJSONLinesByContent() throws {
        let contents = try parse("""
            {"id": 7, "name": "Kappeli", "lat": 60.1675, "lon": "24.948", "country": "fi"}
            {"id": "b", "name": "Savoy", "phone": "09 6128 5300"}
            """)
        #expect(contents.records.map(\.id) == ["7", "b"])
        #expect(contents.records[0].countryCode == "FI")
        #expect(contents.records[0].coordinate?.longitude == 24.948)
    }

    @Test func missingHeaderNamesTheFileAndLine() {
        let text = message { _ = try parse("1,Kappeli,60.1,24.9\n") }
        #expect(text.hasPrefix("places.csv:1: no header line"))
    }

    @Test func missingRequiredColumnIsNamed() {
        #expect(message { _ = try parse("id,title,lat,lon\n1,Kappeli,60.1,24.9\n") }.contains("no 'name' column"))
    }

    @Test func badCoordinateFailsWithItsLineOrIsSkipped() throws {
        let text = "id,name,lat,lon\n1,Kappeli,60.1,24.9\n2,Savoy,abc,24.9\n3,Zetor,95,24.9\n4,Muru,60.2,24.9\n"
        #expect(message { _ = try parse(text) }.hasPrefix("places.csv:3: bad coordinate"))
        let contents = try parse(text, skip: true)
        #expect(contents.records.map(\.id) == ["1", "4"])
        #expect(contents.skipped.count == 2)
        #expect(contents.skipped[1].message.hasPrefix("places.csv:4:"))
        #expect(contents.skipped[1].message.contains("outside -90…90"))
    }

    @Test func emptyFileIsReported() {
        #expect(message { _ = try parse("") }.contains("the file is empty"))
        #expect(message { _ = try parse("\n  \n") }.contains("the file is empty"))
    }

    @Test func otherEncodingsAreReportedWithTheLine() throws {
        var latin1 = Data("id,name\n1,Kappeli\n".utf8)
        latin1.append(contentsOf: [0x32, 0x2C, 0x43, 0x61, 0x66, 0xE9, 0x0A])  // "2,Café" in Latin-1
        var text = ""
        do { _ = try RecordFile.parse(latin1, name: "old.csv") } catch { text = error.message }
        #expect(text.hasPrefix("old.csv:3: the line is not valid UTF-8"))
        let skipped = try RecordFile.parse(latin1, name: "old.csv", skipBadLines: true)
        #expect(skipped.records.count == 1 && skipped.skipped.count == 1)

        let utf16 = Data([0xFF, 0xFE]) + "id,name".data(using: .utf16LittleEndian)!
        do { _ = try RecordFile.parse(utf16, name: "wide.csv") } catch { text = error.message }
        #expect(text.contains("UTF-16"))
    }

    @Test func wrongFieldCountAndBadJSONAreLineErrors() {
        #expect(message { _ = try parse("id,name,lat,lon\n1,Kappeli,60.1\n") }.hasPrefix("places.csv:2: expected 4 fields"))
        #expect(message { _ = try parse("{\"id\":1,\"name\":\"A\"}\n{broken\n") }.hasPrefix("places.csv:2: not a JSON object"))
        #expect(message { _ = try parse("{\"id\":1}\n") }.contains("missing name"))
    }

    @Test func recordMatcherPairsOneToOne() {
        // Categories that say the kind the extra words name ("Cafe", "Ravintola"): without them a bare name
        // beside "Cafe Kappeli" is only a review (issue 13's sub-venue rule).
        let left = [MatchRecord(id: "l1", name: "Kappeli", coordinate: .init(latitude: 60.16750, longitude: 24.9480), category: "cafe"),
                    MatchRecord(id: "l2", name: "Savoy", coordinate: .init(latitude: 60.16770, longitude: 24.9450), category: "restaurant")]
        let right = [MatchRecord(id: "r1", name: "SAVOY Ravintola", coordinate: .init(latitude: 60.16772, longitude: 24.9450)),
                     MatchRecord(id: "r2", name: "Cafe Kappeli", coordinate: .init(latitude: 60.16752, longitude: 24.9480)),
                     MatchRecord(id: "r3", name: "Kappeli", coordinate: .init(latitude: 60.17500, longitude: 24.9480))]
        let pairs = RecordMatcher().match(left: left, right: right)
        #expect(Set(pairs.map { "\($0.leftID)-\($0.rightID)" }) == ["l1-r2", "l2-r1"])
    }
}
