import FakeUpstream
import Foundation
@testable import FoursquareProvider
import PlacesCore
import ProviderHTTP
import Testing

@Suite("Foursquare Places")
struct FoursquareProviderTests {
    func start() async throws -> (FakeUpstream, FoursquareProvider) {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.foursquare())
        return (fake, FoursquareProvider(client: makeClient("foursquare", fake: fake)))
    }

    @Test func searchSendsVersionHeaderAndOnlyProFieldsByDefault() async throws {
        let (fake, foursquare) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await foursquare.search(SearchQuery(text: "Blue Bottle Coffee", near: blueBottle, radius: 1_000))
        let request = try #require(fake.requests.first)
        #expect(request.header("X-Places-Api-Version") == "2025-06-17")
        #expect(request.query["ll"] == "37.7763,-122.4232")
        #expect(request.query["fields"] == "fsq_place_id,name,latitude,longitude,location,categories,tel,website")
        let place = try #require(places.first)
        #expect(place.id.description == "foursquare:49d51ce3f964a520675c1fe3")
        #expect(place.phone == "+15106533394")
        #expect(place.category == "cafe")
        #expect(place.rating == nil)
    }

    @Test func premiumFieldsAreAskedForAndBilledOnlyWhenWanted() async throws {
        let (fake, foursquare) = try await start()
        defer { Task { await fake.shutdown() } }
        #expect(foursquare.price(of: .details, fields: PlaceField.defaultSet) == PriceQuote(sku: "foursquare.pro", cost: MicroDollars(15_000)))
        #expect(foursquare.price(of: .details, fields: [.hours]) == PriceQuote(sku: "foursquare.premium", cost: MicroDollars(18_750)))
        let id = PlaceID(provider: "foursquare", nativeID: FakeFixtures.foursquarePlaceID)
        let place = try #require(try await foursquare.details(DetailsQuery(id: id, fields: [.name, .hours, .rating])))
        #expect(fake.requests.first?.query["fields"]?.hasSuffix(",hours,rating") == true)
        #expect(place.rating == 4.45)
        let periods = try #require(place.openingPeriods)
        #expect(periods[0] == WeeklyOpenPeriod(open: WeekTime(weekday: 1, minute: 390), close: WeekTime(weekday: 1, minute: 1080)))
        // "+0200" closes on the next day.
        #expect(periods[1] == WeeklyOpenPeriod(open: WeekTime(weekday: 5, minute: 1320), close: WeekTime(weekday: 6, minute: 120)))
        #expect(periods[2].open.weekday == 7)
    }

    @Test func malformedHoursAreUnknownNotClosedAndKeepTheirText() throws {
        // Day 8 does not exist; dropping that entry would make a day look closed.
        let json = """
            {"fsq_place_id": "4bhours", "name": "Late Cafe", "latitude": 37.7763, "longitude": -122.4232,
             "hours": {"display": "Mon-Sun 8:00-17:00", "is_local_holiday": false, "open_now": false,
                       "regular": [{"day": 1, "open": "0800", "close": "1700"}, {"day": 8, "open": "0800", "close": "1700"}]}}
            """
        let wire = try JSONDecoder().decode(FoursquareWire.Place.self, from: Data(json.utf8))
        let foursquare = FoursquareProvider(client: HTTPClient(configuration: .init(provider: "foursquare", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "t")))
        let place = foursquare.convert(wire, at: Date(timeIntervalSince1970: 0))
        #expect(place.openingPeriods == nil)
        #expect(place.openingHoursText == "Mon-Sun 8:00-17:00")
    }

    @Test func matchReturnsTheMatchedPlace() async throws {
        let (fake, foursquare) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await foursquare.match(MatchQuery(name: "Blue Bottle Coffee", near: blueBottle, address: "315 Linden St", city: "San Francisco"))
        #expect(fake.requests.first?.path == "/places/match")
        #expect(fake.requests.first?.query["address"] == "315 Linden St")
        #expect(places.count == 1)
    }

    @Test func onlyIDsMayBeCached() {
        #expect(FoursquareProvider.defaultCacheTerms.ids == nil)
        #expect(FoursquareProvider.defaultCacheTerms.content == 0)
    }
}
