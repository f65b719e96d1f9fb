import FakeUpstream
import Foundation
import PlacesCore
import ProviderHTTP
import Testing
@testable import YelpProvider

@Suite("Yelp Fusion")
struct YelpProviderTests {
    func start(key: String = FakeRoutes.testKey) async throws -> (FakeUpstream, YelpProvider) {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.yelp())
        return (fake, YelpProvider(client: makeClient("yelp", fake: fake, key: key, errorReader: YelpProvider.errorReader)))
    }

    @Test func searchSendsBearerKeyAndParsesBusinesses() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await yelp.search(SearchQuery(text: "Blue Bottle Coffee", near: blueBottle, radius: 500))
        let request = try #require(fake.requests.first)
        #expect(request.path == "/v3/businesses/search")
        #expect(request.query["term"] == "Blue Bottle Coffee")
        #expect(request.query["latitude"] == "37.7763" && request.query["radius"] == "500")
        #expect(request.header("Authorization") == "Bearer \(FakeRoutes.testKey)")
        let place = try #require(places.first)
        #expect(place.id.description == "yelp:Ka2HIBgoXwqTAR5-Ab0d3A")
        #expect(place.phone == "+15106533394")
        #expect(place.address?.street == "315 Linden St" && place.address?.postcode == "94102")
        #expect(place.formattedAddress == "315 Linden St, San Francisco, CA 94102")
        #expect(place.category == "cafe")
        #expect(place.rating == 4.0 && place.ratingCount == 1990)
    }

    @Test func hoursUseMondayAsDayZeroAndOvernightEndsNextDay() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        let place = try #require(try await yelp.details(DetailsQuery(id: PlaceID(provider: "yelp", nativeID: FakeFixtures.yelpBusinessID))))
        let periods = try #require(place.openingPeriods)
        #expect(periods[0] == WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 390), close: WeekTime(weekday: 1, minute: 1080)))
        // Friday 19:00 → Saturday 02:00.
        #expect(periods[4] == WeeklyOpenPeriod(open: WeekTime(weekday: 5, minute: 1140), close: WeekTime(weekday: 6, minute: 120)))
        // Sunday is day 6 → ISO 7.
        #expect(periods[6].open.weekday == 7)
    }

    /// One business as Yelp sends it, with the given `hours[0].open`, run through the provider.
    static func business(withOpen open: String) throws -> Place {
        let json = """
            {"id": "late-bar", "name": "Late Bar", "coordinates": {"latitude": 37.7763, "longitude": -122.4232},
             "hours": [{"hours_type": "REGULAR", "is_open_now": false, "open": \(open)}]}
            """
        let wire = try JSONDecoder().decode(YelpWire.Business.self, from: Data(json.utf8))
        let yelp = YelpProvider(client: HTTPClient(configuration: .init(provider: "yelp", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "t")))
        return yelp.convert(wire, at: Date(timeIntervalSince1970: 0))
    }

    @Test func overnightOnSundayWrapsToMonday() throws {
        let place = try Self.business(withOpen: #"[{"day": 6, "start": "2200", "end": "0300", "is_overnight": true}]"#)
        #expect(place.openingPeriods == [WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 1320), close: WeekTime(weekday: 1, minute: 180))])
    }

    @Test func endBeforeStartIsNextDayEvenWhenNotFlaggedOvernight() throws {
        let place = try Self.business(withOpen: #"[{"day": 4, "start": "1900", "end": "0200", "is_overnight": false}]"#)
        #expect(place.openingPeriods == [WeeklyOpenPeriod(open: WeekTime(weekday: 5, minute: 1140), close: WeekTime(weekday: 6, minute: 120))])
    }

    @Test func malformedHoursAreUnknownNotClosed() throws {
        // "25:00" is no time; dropping Tuesday would make it look closed.
        let place = try Self.business(withOpen: """
            [{"day": 0, "start": "0800", "end": "1700", "is_overnight": false},
             {"day": 1, "start": "2500", "end": "1700", "is_overnight": false}]
            """)
        #expect(place.openingPeriods == nil)
        #expect(place.name == "Late Bar")
    }

    @Test func matchUsesTheBusinessesMatchesEndpoint() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await yelp.match(MatchQuery(name: "Blue Bottle Coffee", near: blueBottle, address: "315 Linden St",
                                                     city: "San Francisco", countryCode: "us"))
        let request = try #require(fake.requests.first)
        #expect(request.path == "/v3/businesses/matches")
        #expect(request.query["address1"] == "315 Linden St" && request.query["country"] == "US")
        #expect(places.map(\.id.nativeID) == [FakeFixtures.yelpBusinessID])
    }

    @Test func matchWithoutAnAddressSearchesNearby() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        _ = try await yelp.match(MatchQuery(name: "Blue Bottle Coffee", near: blueBottle))
        #expect(fake.requests.first?.path == "/v3/businesses/search")
    }

    @Test func unknownBusinessIsNil() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        #expect(try await yelp.details(DetailsQuery(id: PlaceID(provider: "yelp", nativeID: "nope"))) == nil)
    }

    @Test func invalidTokenIsAnAuthenticationErrorWithoutTheKey() async throws {
        let (fake, yelp) = try await start(key: "yelp-wrong-key-42")
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await yelp.search(SearchQuery(text: "x", near: blueBottle)) }
        #expect(error?.description == "yelp: API key rejected (401 TOKEN_INVALID); set a valid key in YELP_API_KEY")
    }

    @Test func searchWithoutAPositionSaysWhatToPass() async throws {
        let (fake, yelp) = try await start()
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await yelp.search(SearchQuery(text: "coffee")) }
        #expect(error?.kind == .badRequest)
        #expect(fake.requests.isEmpty)
    }

    @Test func priceAndCacheTermsComeFromTheTable() {
        let yelp = YelpProvider(client: HTTPClient(configuration: .init(provider: "yelp", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "t")))
        #expect(yelp.price(of: .search, fields: []) == PriceQuote(sku: "yelp.call", cost: MicroDollars(9_990)))
        #expect(yelp.cacheTerms.content == 86_400)
    }
}
