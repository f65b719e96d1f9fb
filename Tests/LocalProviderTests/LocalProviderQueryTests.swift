import Foundation
import LocalProvider
import PlaceIndex
import PlacesCore
import Testing

/// The Helsinki extract plus the Helsinki-area GeoNames rows, imported once for all query tests.
enum HelsinkiIndex {
    static let built: Result<PlaceIndexStore, any Error> = Result {
        let index = try PlaceIndexStore.inMemory()
        let importer = LocalImporter(index: index)
        _ = try importer.importFile(TestData.geoNamesText)
        _ = try importer.importFile(TestData.helsinkiPBF)
        return index
    }

    static func provider() throws -> LocalProvider { LocalProvider(index: try built.get()) }
}

@Suite struct LocalProviderQueryTests {
    let near = Coordinate(latitude: 60.1721, longitude: 24.9450)

    @Test func searchNearFindsMayaBarFirstWithItsDetails() async throws {
        let results = try await HelsinkiIndex.provider().search(SearchQuery(text: "maya bar", near: near))
        let maya = try #require(results.first)
        #expect(maya.name == "Maya Bar & Grill")
        #expect(maya.id.description == "osm:node/59622323")
        #expect(maya.address?.street == "Mikonkatu")
        #expect(maya.address?.houseNumber == "18")
        #expect(maya.formattedAddress == "Mikonkatu 18, 00100 Helsinki")
        #expect(maya.website == "https://www.maya.fi/")
        #expect(maya.openingHoursText == "Mo-Th 11:00-23:00; Fr 11:00-24:00; Sa 12:00-24:00; Su 13:00-23:00")
        #expect(maya.categories == ["amenity=restaurant"])
        #expect(maya.category == "restaurant")
        #expect(maya.attribution == "© OpenStreetMap contributors (ODbL)")
        #expect(maya.provenance[.website]?.provider == "local")
    }

    @Test func railwayStationsArePlaces() async throws {
        // railway=station nodes of the extract, listed with pyosmium: the metro station under the square.
        let found = try await HelsinkiIndex.provider().search(SearchQuery(text: "Rautatientori", limit: 3))
        #expect(found.first?.id.description == "osm:node/418089207")
        #expect(found.first?.categories == ["railway=station"])
    }

    @Test func searchIgnoresAccentsBothWays() async throws {
        let provider = try HelsinkiIndex.provider()
        let cafe = try await provider.search(SearchQuery(text: "cafe strindberg"))
        #expect(cafe.first?.name == "Café Strindberg")
        let accented = try await provider.search(SearchQuery(text: "CAFÉ", limit: 50))
        #expect(accented.contains { $0.name == "Café Strindberg" })
        #expect(accented.contains { $0.name == "Cafe Ekberg" })
    }

    @Test func searchToleratesWordsTheNameLacks() async throws {
        let results = try await HelsinkiIndex.provider().search(SearchQuery(text: "maya bar and grill", near: near))
        #expect(results.first?.name == "Maya Bar & Grill")
    }

    @Test func searchWithRadiusDropsFarResults() async throws {
        let results = try await HelsinkiIndex.provider().search(SearchQuery(text: "cafe", near: near, radius: 200, limit: 50))
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { GeoMath.distance(near, $0.coordinate) <= 200 })
    }

    @Test func nearbyCafesAreCafesWithinTheRadiusNearestFirst() async throws {
        let center = Coordinate(latitude: 60.1700, longitude: 24.9410)
        let results = try await HelsinkiIndex.provider().nearby(NearbyQuery(center: center, radius: 300, category: "cafe", limit: 100))
        #expect(results.count >= 3)
        #expect(results.allSatisfy { $0.category == "cafe" })
        let distances = results.map { GeoMath.distance(center, $0.coordinate) }
        #expect(distances.allSatisfy { $0 <= 300 })
        #expect(distances == distances.sorted())
    }

    @Test func nearbyReadingAroundThePointFindsTheNearestOfTheWholeRadius() async throws {
        // A short page is read from boxes growing from 250 m; every place within the radius, sorted here by
        // distance, says which are the nearest.
        let center = Coordinate(latitude: 60.1700, longitude: 24.9410)
        let provider = try HelsinkiIndex.provider()
        for category in [nil, "cafe"] as [String?] {
            let all = try await provider.nearby(NearbyQuery(center: center, radius: 1_500, category: category, limit: 5_000))
            let nearestDistances = all.map { GeoMath.distance(center, $0.coordinate) }.sorted()
            #expect(nearestDistances.count > 30 && nearestDistances.last! <= 1_500)
            for limit in [1, 7, 30] {
                let page = try await provider.nearby(NearbyQuery(center: center, radius: 1_500, category: category, limit: limit))
                #expect(page.map { GeoMath.distance(center, $0.coordinate) } == Array(nearestDistances.prefix(limit)))
            }
        }
    }

    @Test func nearbyAcceptsProviderLabelsAsCategories() async throws {
        let center = Coordinate(latitude: 60.1700, longitude: 24.9410)
        let provider = try HelsinkiIndex.provider()
        let byLabel = try await provider.nearby(NearbyQuery(center: center, radius: 300, category: "amenity=cafe", limit: 100))
        let byName = try await provider.nearby(NearbyQuery(center: center, radius: 300, category: "coffee shop", limit: 100))
        #expect(!byLabel.isEmpty)
        #expect(byLabel.map(\.id) == byName.map(\.id))
    }

    @Test func nearbyBrandMatchesTheBrandTagIgnoringCase() async throws {
        let results = try await HelsinkiIndex.provider().nearby(
            NearbyQuery(center: near, radius: 2_000, brand: "burger KING", limit: 10))
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.brand == "Burger King" || $0.name.lowercased().contains("burger king") })
    }

    @Test func reverseNamesHelsinkiFinlandAndItsTimeZone() async throws {
        let point = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let answer = try #require(try await HelsinkiIndex.provider().reverse(ReverseQuery(coordinate: point)))
        #expect(answer.city == "Helsinki")
        #expect(answer.cityID?.description == "geonames:658225")
        #expect(answer.countryCode == "FI")
        #expect(answer.timeZone == "Europe/Helsinki")
        let nearest = try #require(answer.nearest)
        #expect(try #require(answer.nearestDistance) <= 100)
        #expect(GeoMath.distance(point, nearest.coordinate) <= 100)
    }

    @Test func reverseFarFromEverythingIsNil() async throws {
        let answer = try await HelsinkiIndex.provider().reverse(ReverseQuery(coordinate: Coordinate(latitude: -45, longitude: -120)))
        #expect(answer == nil)
    }

    @Test func suggestCompletesAPrefixNearTheUser() async throws {
        let suggestions = try await HelsinkiIndex.provider().suggest(SuggestQuery(prefix: "maya b", near: near))
        #expect(suggestions.first?.text == "Maya Bar & Grill")
        #expect(suggestions.first?.placeID?.description == "osm:node/59622323")
        let partial = try await HelsinkiIndex.provider().suggest(SuggestQuery(prefix: "strind"))
        #expect(partial.contains { $0.text == "Café Strindberg" })
    }

    @Test func detailsByIdAndUnknownId() async throws {
        let provider = try HelsinkiIndex.provider()
        let maya = try await provider.details(DetailsQuery(id: PlaceID(parsing: "osm:node/59622323")))
        #expect(maya?.name == "Maya Bar & Grill")
        #expect(try await provider.details(DetailsQuery(id: PlaceID(parsing: "osm:node/1"))) == nil)
    }

    @Test func waysAreLocatedAtTheirCentroidInsideTheExtract() async throws {
        let results = try await HelsinkiIndex.provider().search(SearchQuery(text: "stockmann", limit: 20))
        let way = try #require(results.first { $0.id.nativeID.hasPrefix("way/") || $0.id.nativeID.hasPrefix("relation/") })
        #expect((60.16...60.18).contains(way.coordinate.latitude))
        #expect((24.93...24.96).contains(way.coordinate.longitude))
    }

    @Test func phonesBecomeE164UsingTheRegion() async throws {
        let index = try HelsinkiIndex.built.get()
        let places = try index.nearby(center: near, radius: 3_000, limit: 2_000)
        let phones = places.compactMap(\.phone)
        #expect(phones.count > 100)
        #expect(phones.filter { $0.hasPrefix("+358") }.count * 10 >= phones.count * 9)
    }

    @Test func providerDeclaresItselfFreeAndUnlimited() throws {
        let provider = try HelsinkiIndex.provider()
        #expect(provider.name == "local")
        #expect(provider.price(of: .search, fields: [.phone]) == .free)
        #expect(provider.cacheTerms == .unlimited)
        #expect(provider.capabilities.names == ["search", "nearby", "details", "reverse", "suggest", "match"])
    }
}
