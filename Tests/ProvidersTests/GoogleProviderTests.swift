import FakeUpstream
import Foundation
@testable import GoogleProvider
import PlacesCore
import ProviderHTTP
import Testing

@Suite("Google Places (New)")
struct GoogleProviderTests {
    static let validator = try! GoogleDiscoveryValidator()

    func start() async throws -> (FakeUpstream, GoogleProvider) {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: Self.validator))
        let provider = GoogleProvider(client: makeClient("google", fake: fake, errorReader: GoogleProvider.errorReader))
        return (fake, provider)
    }

    @Test func textSearchSendsOneConformingRequestAndParsesPlaces() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await google.search(SearchQuery(text: "Blue Bottle Coffee", near: blueBottle))
        #expect(fake.violations == [])
        let request = try #require(fake.requests.first)
        #expect(fake.requests.count == 1)
        #expect(request.method == "POST" && request.path == "/v1/places:searchText")
        #expect(request.header("X-Goog-FieldMask")
                == "places.addressComponents,places.displayName,places.formattedAddress,places.id,places.location,places.primaryType,places.types")
        let body = try #require(request.jsonBody)
        #expect(body["textQuery"] as? String == "Blue Bottle Coffee")
        let center = ((body["locationBias"] as? [String: Any])?["circle"] as? [String: Any])?["center"] as? [String: Double]
        #expect(center == ["latitude": 37.7763, "longitude": -122.4232])

        #expect(places.count == 2)
        let first = places[0]
        #expect(first.id.description == "google:ChIJ6c2CLJ6AhYARqOkfq4DkL6k")
        #expect(first.name == "Blue Bottle Coffee")
        #expect(first.address?.street == "Linden Street" && first.address?.houseNumber == "315")
        #expect(first.address?.city == "San Francisco" && first.address?.countryCode == "US")
        #expect(first.category == "cafe")
        // Not asked for, so not requested, so not returned.
        #expect(first.phone == nil && first.openingPeriods == nil)
        #expect(first.provenance[.name]?.provider == "google")
    }

    @Test func theDiscoveryDocumentCatchesABadMask() throws {
        let bad = RecordedRequest(method: "POST", uri: "/v1/places:searchText",
                                  headers: ["x-goog-api-key": "k", "x-goog-fieldmask": "places.id,places.phone,displayName"],
                                  body: Data(#"{"textQuery":"x","bogus":1}"#.utf8))
        let problems = Self.validator.violations(in: bad)
        #expect(problems.contains("searchText: 'places.phone' is not a Place field"))
        #expect(problems.contains("searchText: search mask path 'displayName' must start with 'places.'"))
        #expect(problems.contains { $0.contains("unknown body field 'bogus'") })
        let noMask = RecordedRequest(method: "GET", uri: "/v1/places/abc", headers: ["x-goog-api-key": "k"], body: Data())
        #expect(Self.validator.violations(in: noMask).contains { $0.contains("missing X-Goog-FieldMask") })
        #expect(Self.validator.placeFields.contains("regularOpeningHours"))
    }

    @Test func fieldMaskChoosesTheCheapestSKU() {
        let google = GoogleProvider(client: HTTPClient(configuration: .init(
            provider: "google", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "places/test")))
        let basic = google.price(of: .details, fields: PlaceField.defaultSet)
        #expect(basic == PriceQuote(sku: "google.details.pro", cost: MicroDollars(17_000)))
        let phone = google.price(of: .details, fields: [.id, .name, .phone])
        #expect(phone == PriceQuote(sku: "google.details.enterprise", cost: MicroDollars(20_000)))
        #expect(google.price(of: .search, fields: [.name, .coordinate]).sku == "google.search.pro")
        #expect(google.price(of: .search, fields: [.hours]) == PriceQuote(sku: "google.search.enterprise", cost: MicroDollars(35_000)))
        #expect(google.price(of: .nearby, fields: [.rating]).sku == "google.nearby.enterprise")
        #expect(google.price(of: .suggest, fields: []) == PriceQuote(sku: "google.autocomplete", cost: MicroDollars(2_830)))
        #expect(GoogleFieldMask.mask(for: [.phone], search: false)
                == "displayName,id,internationalPhoneNumber,location,nationalPhoneNumber")
        #expect(GoogleFieldMask.tier(for: [.status, .timeZone]) == .pro)
    }

    @Test func configuredPricesOverrideTheDefaults() {
        let prices = GoogleProvider.defaultPrices.overriding(dollarsPerThousand: ["google.details.enterprise": 25, "details.pro": 0])
        let google = GoogleProvider(client: HTTPClient(configuration: .init(
            provider: "google", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "places/test")), prices: prices)
        #expect(google.price(of: .details, fields: [.website]).cost == MicroDollars(25_000))
        #expect(google.price(of: .details, fields: [.name]).cost == .zero)
    }

    @Test func everyMaskPathIsARealPlaceField() {
        for field in PlaceField.allCases {
            for path in GoogleFieldMask.paths(for: [field]) {
                #expect(Self.validator.placeFields.contains(path), "\(path) for \(field)")
            }
        }
    }

    @Test func detailsWithEnterpriseFieldsMapsHoursPhoneAndRating() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let id = PlaceID(provider: "google", nativeID: FakeFixtures.googlePlaceID)
        let place = try #require(try await google.details(DetailsQuery(id: id, fields: [.name, .phone, .hours, .rating, .website, .status, .timeZone])))
        #expect(fake.violations == [])
        #expect(fake.requests.first?.path == "/v1/places/\(FakeFixtures.googlePlaceID)")
        #expect(place.phone == "+15106533394")
        #expect(place.website == "https://bluebottlecoffee.com/")
        #expect(place.rating == 4.4 && place.ratingCount == 1385)
        #expect(place.status == .operational)
        #expect(place.timeZone == "America/Los_Angeles" && place.utcOffsetMinutes == -480)
        // Google day 0 is Sunday: ISO weekday 7.
        let periods = try #require(place.openingPeriods)
        #expect(periods.first == WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 420), close: WeekTime(weekday: 7, minute: 1080)))
        #expect(periods[1].open == WeekTime(weekday: 1, minute: 390))
        #expect(place.openingHoursText?.hasPrefix("Monday: 6:30 AM") == true)
    }

    @Test func unknownIDIsNilNotAnError() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        #expect(try await google.details(DetailsQuery(id: PlaceID(provider: "google", nativeID: "ChIJgone"))) == nil)
    }

    /// One place as Google sends it, with the given `regularOpeningHours`, run through the provider.
    static func place(withHours hours: String) throws -> Place {
        let json = """
            {"id": "ChIJhours", "displayName": {"text": "Late Cafe"}, "location": {"latitude": 37.7763, "longitude": -122.4232},
             "regularOpeningHours": \(hours)}
            """
        let wire = try JSONDecoder().decode(GoogleWire.Place.self, from: Data(json.utf8))
        let google = GoogleProvider(client: HTTPClient(configuration: .init(provider: "google", baseURL: URL(string: "http://127.0.0.1:9")!, userAgent: "t")))
        return google.convert(wire, at: Date(timeIntervalSince1970: 0))
    }

    @Test func periodWithoutCloseIsOpenAroundTheClock() throws {
        // Google leaves out an hour or minute of 0.
        let place = try Self.place(withHours: #"{"periods": [{"open": {"day": 0}}]}"#)
        #expect(place.openingPeriods == [WeeklyOpenPeriod(open: WeekTime(weekday: 7, minute: 0), close: nil)])
    }

    @Test func malformedHoursAreUnknownNotClosed() throws {
        // Day 7 does not exist in Google's numbering; dropping that period would make Saturday look closed.
        let place = try Self.place(withHours: """
            {"periods": [{"open": {"day": 1, "hour": 8}, "close": {"day": 1, "hour": 17}},
                         {"open": {"day": 7, "hour": 8}, "close": {"day": 7, "hour": 17}}],
             "weekdayDescriptions": ["Monday: 8:00 AM – 5:00 PM", "Saturday: 8:00 AM – 5:00 PM"]}
            """)
        #expect(place.openingPeriods == nil)
        #expect(place.openingHoursText == "Monday: 8:00 AM – 5:00 PM; Saturday: 8:00 AM – 5:00 PM")
    }

    @Test func nearbyRestrictsToACircleAndConforms() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await google.nearby(NearbyQuery(center: blueBottle, radius: 300, category: "cafe", limit: 50))
        #expect(fake.violations == [])
        let body = try #require(fake.requests.first?.jsonBody)
        #expect(body["maxResultCount"] as? Int == 20)
        #expect(body["includedTypes"] as? [String] == ["cafe"])
        #expect(places.count == 2)
    }
}

@Suite("Google autocomplete sessions")
struct GoogleSessionTests {
    func start() async throws -> (FakeUpstream, GoogleProvider) {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: GoogleProviderTests.validator))
        return (fake, GoogleProvider(client: makeClient("google", fake: fake, errorReader: GoogleProvider.errorReader)))
    }

    @Test func autocompleteThenDetailsShareOneUUIDv4Token() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let token = GoogleProvider.newSessionToken()
        #expect(token.count == 36 && Array(token)[14] == "4")
        let suggestions = try await google.suggest(SuggestQuery(prefix: "blue bottle", near: blueBottle, sessionToken: token))
        #expect(suggestions.first?.text == "Blue Bottle Coffee")
        #expect(suggestions.first?.secondaryText == "Linden Street, San Francisco, CA, USA")
        let id = try #require(suggestions.first?.placeID)
        _ = try await google.details(DetailsQuery(id: id, sessionToken: token))
        #expect(fake.violations == [])
        #expect(fake.requests[0].jsonBody?["sessionToken"] as? String == token)
        #expect(fake.requests[1].query["sessionToken"] == token)
    }

    @Test func aTokenIsUsedOnce() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let token = GoogleProvider.newSessionToken()
        let id = PlaceID(provider: "google", nativeID: FakeFixtures.googlePlaceID)
        _ = try await google.details(DetailsQuery(id: id, sessionToken: token))
        let reuse = await providerError { _ = try await google.suggest(SuggestQuery(prefix: "blue", sessionToken: token)) }
        #expect(reuse?.kind == .badRequest)
        #expect(reuse?.message.contains("session token already ended") == true)
        #expect(fake.requests.count == 1)
    }

    @Test func aTokenThatIsNotUUIDv4IsRefusedBeforeSending() async throws {
        let (fake, google) = try await start()
        defer { Task { await fake.shutdown() } }
        let error = await providerError { _ = try await google.suggest(SuggestQuery(prefix: "blue", sessionToken: "session-1")) }
        #expect(error?.kind == .badRequest)
        #expect(fake.requests.isEmpty)
    }
}
