import Testing
@testable import PlacesCore

@Suite struct QueryKeyTests {
    @Test func canonicalFormIgnoresCaseAndSpacing() {
        let a = SearchQuery(text: "Maya  Bar", near: Coordinate(latitude: 60.1721, longitude: 24.9450))
        let b = SearchQuery(text: "maya bar", near: Coordinate(latitude: 60.1721, longitude: 24.9450))
        #expect(a.canonicalForm == b.canonicalForm)
    }

    @Test func nearbyRepeatsShareAGridCell() {
        let grid = CoordinateGrid(meters: 100)
        let a = SearchQuery(text: "maya bar", near: Coordinate(latitude: 60.17210, longitude: 24.94500))
        let b = SearchQuery(text: "maya bar", near: Coordinate(latitude: 60.17213, longitude: 24.94506))
        let far = SearchQuery(text: "maya bar", near: Coordinate(latitude: 60.18000, longitude: 24.94500))
        #expect(a.canonicalForm(grid: grid) == b.canonicalForm(grid: grid))
        #expect(a.canonicalForm(grid: grid) != far.canonicalForm(grid: grid))
        #expect(a.canonicalForm(grid: .exact) != b.canonicalForm(grid: .exact))
    }

    @Test func requestedFieldsArePartOfTheKey() {
        let id = PlaceID(provider: "osm", nativeID: "node/1")
        #expect(DetailsQuery(id: id, fields: [.phone]).canonicalForm != DetailsQuery(id: id, fields: [.hours]).canonicalForm)
        #expect(DetailsQuery(id: id, sessionToken: "a").canonicalForm == DetailsQuery(id: id, sessionToken: "b").canonicalForm)
    }

    @Test func fieldListsParseWithAliasesAndRejectUnknowns() throws {
        #expect(try PlaceField.parseList("phone, website,opening_hours") == [.phone, .website, .hours])
        #expect(throws: InputError.self) { try PlaceField.parseList("phone,colour") }
    }
}
