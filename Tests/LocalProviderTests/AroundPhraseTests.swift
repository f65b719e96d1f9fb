import Foundation
import LocalProvider
@testable import PlaceIndex
import PlacesCore
import Testing

/// "pharmacy near kiasma": a query that names what to find and, after "near" or "in", where.
@Suite struct AroundPhraseTests {
    @Test(arguments: [
        ("pharmacy near kiasma", ["pharmacy"], ["kiasma"]),
        ("sushi in kamppi", ["sushi"], ["kamppi"]),
        ("cafe next to the central station", ["cafe"], ["central", "station"]),
        ("atm close to ateneum", ["atm"], ["ateneum"]),
        ("hotels around the ateneum", ["hotels"], ["ateneum"]),
        ("bar in the wall near kamppi", ["bar", "in", "the", "wall"], ["kamppi"]),
        ("pharmacy near me", ["pharmacy"], []),
        ("pharmacy nearby", ["pharmacy"], []),
        ("pharmacy near", ["pharmacy"], []),
    ])
    func whatAndWhere(query: String, what: [String], place: [String]) {
        let phrase = AroundPhrase(words: SearchText.words(query))
        #expect(phrase?.what == what)
        #expect(phrase?.place == place)
    }

    @Test(arguments: ["kiasma", "near kiasma", "the near kiasma", "maya bar", "in", ""])
    func queriesWithNothingBeforeAConnectorAreNotSplit(query: String) {
        #expect(AroundPhrase(words: SearchText.words(query)) == nil)
    }

    /// The Helsinki extract and its GeoNames rows, as the app bundles them.
    static func helsinki() throws -> PlaceIndexStore {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        _ = try importer.importFile(TestData.geoNamesText)
        _ = try importer.importFile(TestData.helsinkiPBF)
        return index
    }

    /// The five pharmacies nearest Kiasma (way 8042215, its nodes' mean), nearest first, by osmium and a haversine in
    /// Python: 217, 320, 328, 447 and 543 m.
    static let pharmaciesNearestKiasma = ["osm:node/1369465553", "osm:node/1798012663", "osm:node/1369465698",
                                          "osm:node/4727972444", "osm:node/6049453002"]
    static let kiasma = Coordinate(latitude: 60.17203233571428, longitude: 24.93667040357143)

    @Test func aCategoryNearANamedPlaceListsItsMembersNearestThatPlace() throws {
        let result = try Self.helsinki().searchExplained(text: "Pharmacy near Kiasma", limit: 5)
        #expect(result.places.map(\.id.description) == Self.pharmaciesNearestKiasma)
        #expect(result.around?.id.description == "osm:way/8042215")
        #expect(result.around?.name == "Kiasma")
    }

    @Test func nearMeIsTheSearchsOwnPoint() throws {
        let result = try Self.helsinki().searchExplained(text: "pharmacy near me", near: Self.kiasma, limit: 5)
        #expect(result.places.map(\.id.description) == Self.pharmaciesNearestKiasma)
        #expect(result.around == nil)
    }

    /// Only members within ``LocalSearch/aroundRadius`` of the place named: a sushi bar 4,000 km away is not in Kamppi.
    @Test func whatIsLookedForIsSearchedWithinReachOfThePlaceOnly() throws {
        let index = try Self.helsinki()
        let found = try index.searchExplained(text: "museum in kamppi", limit: 10)
        let around = try #require(found.around)
        #expect(!found.places.isEmpty)
        for place in found.places {
            #expect(place.category == "museum", "\(place.name)")
            #expect(GeoMath.distance(around.coordinate, place.coordinate) <= LocalSearch.aroundRadius)
        }
    }

    /// A cuisine and a place word: the restaurants serving it around the place, as a category and a place word are.
    /// The 16 objects of the extract whose `cuisine` holds "sushi" (osmium `tags-filter`, by hand); read as names, the
    /// words found Kampin kappeli and Japanese towns whose transliterations hold "su shi".
    @Test(arguments: ["sushi kamppi", "sushi near kamppi"])
    func aCuisineAroundAPlaceListsItsRestaurants(query: String) throws {
        let sushi: Set<String> = ["151006932", "1380974071", "1380991231", "1985596846", "2018446356", "2225393048",
                                  "2264356399", "3514710504", "4714489589", "4749101640", "5264590061", "6049453016",
                                  "6049453046", "6139262609", "6326864346", "6328881978"]
        let found = try Self.helsinki().search(text: query, limit: 5)
        #expect(found.count == 5)
        for place in found { #expect(sushi.contains(place.id.nativeID.replacing("node/", with: "")), "\(place.name)") }
    }

    @Test func aNameWithAConnectorInItIsFoundAsItStands() throws {
        let index = try PlaceIndexStore.inMemory()
        try index.write { writer in
            let barrow = Place(id: PlaceID(provider: "geonames", nativeID: "2656241"), name: "Barrow in Furness",
                               coordinate: Coordinate(latitude: 54.1108, longitude: -3.2261), category: "city")
            try writer.insert(barrow, kind: .city, source: "cities", keywords: ["city"], importance: 0.6)
            let pub = Place(id: PlaceID(provider: "osm", nativeID: "node/1"), name: "Furness Arms",
                            coordinate: Coordinate(latitude: 54.1110, longitude: -3.2270), categories: ["amenity=pub"], category: "pub")
            try writer.insert(pub, kind: .poi, source: "pois", keywords: ["pub"], importance: 0.1)
            try writer.finishSource("cities", kind: "geonames", places: 1, cities: 0)
            try writer.finishSource("pois", kind: "osm.pbf", places: 1, cities: 0)
        }
        let found = try index.searchExplained(text: "Barrow in Furness")
        #expect(found.places.first?.id.description == "geonames:2656241")
        #expect(found.around == nil)
    }
}
