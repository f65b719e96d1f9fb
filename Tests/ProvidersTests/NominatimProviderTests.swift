import FakeUpstream
import Foundation
@testable import NominatimProvider
import PlacesCore
import ProviderHTTP
import Testing

@Suite("Nominatim")
struct NominatimProviderTests {
    func start() async throws -> (FakeUpstream, NominatimProvider) {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.nominatim())
        let client = makeClient("nominatim", fake: fake, key: nil, limiter: RateLimiter(requestsPerSecond: 1, clock: VirtualClock()),
                                contact: "ops@example.com")
        return (fake, try NominatimProvider(client: client, contact: "ops@example.com"))
    }

    @Test func refusesToStartWithoutAContact() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.nominatim())
        defer { Task { await fake.shutdown() } }
        for contact in [nil, "", "  ", "nobody"] {
            #expect(throws: ProviderError.self) { try NominatimProvider(client: makeClient("nominatim", fake: fake, key: nil), contact: contact) }
        }
        do {
            _ = try NominatimProvider(client: makeClient("nominatim", fake: fake, key: nil), contact: nil)
        } catch {
            #expect(error.kind == .misconfigured)
            #expect(error.description.hasPrefix("nominatim: no contact configured: set contact = "))
        }
    }

    @Test func searchUsesOSMIDsAndExtratags() async throws {
        let (fake, nominatim) = try await start()
        defer { Task { await fake.shutdown() } }
        let places = try await nominatim.search(SearchQuery(text: "maya bar", near: Coordinate(latitude: 60.1721, longitude: 24.945), radius: 500))
        let request = try #require(fake.requests.first)
        #expect(request.query["format"] == "jsonv2" && request.query["extratags"] == "1" && request.query["bounded"] == "1")
        #expect(request.header("User-Agent")?.contains("ops@example.com") == true)
        let place = try #require(places.first)
        #expect(place.id.description == "osm:node/1870234571")
        #expect(place.coordinate == Coordinate(latitude: 60.1720815, longitude: 24.9450212))
        #expect(place.phone == "+358961282420")
        #expect(place.website == "https://www.mayabar.fi/")
        #expect(place.openingHoursText == "Mo-Th 16:00-02:00; Fr-Sa 16:00-04:00; Su 18:00-02:00")
        #expect(place.address?.street == "Annankatu" && place.address?.countryCode == "FI")
        #expect(place.category == "bar")
        #expect(place.attribution == "© OpenStreetMap contributors")
    }

    @Test func detailsLooksUpOSMIDs() async throws {
        let (fake, nominatim) = try await start()
        defer { Task { await fake.shutdown() } }
        let place = try await nominatim.details(DetailsQuery(id: PlaceID(provider: "osm", nativeID: "node/1870234571")))
        #expect(fake.requests.first?.path == "/lookup")
        #expect(fake.requests.first?.query["osm_ids"] == "N1870234571")
        #expect(place?.name == "Maya Bar")
        #expect(try await nominatim.details(DetailsQuery(id: PlaceID(provider: "osm", nativeID: "way/5"))) == nil)
        #expect(NominatimProvider.lookupID("relation/7") == "R7")
        #expect(NominatimProvider.lookupID("node/x") == nil)
    }

    @Test func reverseGivesTheNearestObjectAndCity() async throws {
        let (fake, nominatim) = try await start()
        defer { Task { await fake.shutdown() } }
        let answer = try #require(try await nominatim.reverse(ReverseQuery(coordinate: Coordinate(latitude: 60.1721, longitude: 24.945))))
        #expect(answer.city == "Helsinki" && answer.countryCode == "FI")
        #expect(answer.nearest?.id.description == "osm:node/1870234571")
    }

    @Test func aBlockedUserAgentGetsAnHTMLPageAndAClearError() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.nominatim())
        defer { Task { await fake.shutdown() } }
        // The contact is configured but the client's User-Agent lost it: the server blocks us.
        let nominatim = try NominatimProvider(client: makeClient("nominatim", fake: fake, key: nil), contact: "ops@example.com")
        let error = await providerError { _ = try await nominatim.search(SearchQuery(text: "maya")) }
        #expect(error?.kind == .authentication)
        #expect(error?.httpStatus == 403)
    }
}
