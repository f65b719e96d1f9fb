import BudgetLedger
import FakeUpstream
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore
import ScratchDirectory
import Testing

@Suite("Provider factory")
struct ProviderFactoryTests {
    func environment(_ variables: [String: String] = [:], config: URL? = nil) -> PlacesEnvironment {
        let home = try! ScratchDirectory.lastingTheProcess("places-factory").url
        return PlacesEnvironment(dataDirectory: home, configDirectory: home, cacheDirectory: home,
                                 configFileOverride: config, variables: variables)
    }

    /// A ledger of its own, with no limits: what every provider the factory builds is metered in.
    func decorations() throws -> ProviderDecorations {
        let home = try ScratchDirectory.lastingTheProcess("places-factory").url
        return ProviderDecorations(ledger: try SQLiteBudgetLedger(path: home.appendingPathComponent("budget.sqlite")), cache: nil)
    }

    @Test func providersWithoutKeysSayWhichVariableToSet() throws {
        let all = ProviderFactory.statuses(configuration: try PlacesConfiguration(), environment: environment())
        #expect(all.map(\.name) == ["google", "yelp", "foursquare", "nominatim"])
        let yelp = try #require(all.first { $0.name == "yelp" })
        #expect(!yelp.isUsable)
        #expect(yelp.reason?.hasPrefix("no API key: set YELP_API_KEY") == true)
        #expect(all.first { $0.name == "nominatim" }?.reason?.hasPrefix("no contact configured") == true)
    }

    @Test func keysFromTheEnvironmentMakeProvidersUsable() throws {
        let env = environment(["GOOGLE_PLACES_API_KEY": "g", "YELP_API_KEY": "y", "FOURSQUARE_API_KEY": "f"])
        let configuration = try PlacesConfiguration.parse("[providers.nominatim]\ncontact = \"ops@example.com\"\n[providers.foursquare]\nenabled = false\n")
        let all = ProviderFactory.makeAll(configuration: configuration, environment: env, decorations: try decorations())
        #expect(all.filter { $0.provider != nil }.map(\.name) == ["google", "yelp", "nominatim"])
        #expect(all.first { $0.name == "foursquare" }?.reason == "disabled in config (enabled = false under [providers.foursquare])")
    }

    @Test func configuredPricesReachTheProvider() throws {
        let configuration = try PlacesConfiguration.parse("[providers.google.prices]\n\"details.pro\" = 1\n")
        let google = try ProviderFactory.provider(named: "google", configuration: configuration,
                                                  environment: environment(["GOOGLE_PLACES_API_KEY": "g"]), decorations: try decorations())
        #expect(google.price(of: .details, fields: PlaceField.defaultSet) == PriceQuote(sku: "google.details.pro", cost: MicroDollars(1_000)))
    }

    @Test func unknownOrUnusableNamesAreInputErrors() throws {
        let configuration = try PlacesConfiguration()
        #expect(throws: InputError.self) { try ProviderFactory.provider(named: "bing", configuration: configuration, environment: environment(), decorations: try decorations()) }
        #expect(throws: InputError("foursquare: no API key: set FOURSQUARE_API_KEY (or api_key under [providers.foursquare] in /tmp/x.toml)")) {
            try ProviderFactory.provider(named: "foursquare", configuration: configuration,
                                         environment: environment(config: URL(fileURLWithPath: "/tmp/x.toml")), decorations: try decorations())
        }
    }

    @Test func searchThroughTheFactoryHitsTheConfiguredBaseURLWithThePlacesUserAgent() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
        defer { Task { await fake.shutdown() } }
        let configuration = try PlacesConfiguration.parse("[providers.google]\nbase_url = \"\(fake.baseURL.absoluteString)\"\n")
        let google = try ProviderFactory.provider(named: "google", configuration: configuration,
                                                  environment: environment(["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]), decorations: try decorations())
        let places = try await google.search(SearchQuery(text: "Blue Bottle Coffee", near: Coordinate(latitude: 37.7763, longitude: -122.4232)))
        #expect(places.count == 2)
        #expect(fake.violations == [])
        #expect(fake.requests.count == 1)
        #expect(fake.requests.first?.header("User-Agent") == PlacesVersion.userAgentProduct)
    }

    @Test func wrongKeyErrorNamesTheVariableAndNeverTheKey() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.yelp())
        defer { Task { await fake.shutdown() } }
        let configuration = try PlacesConfiguration.parse("[providers.yelp]\nbase_url = \"\(fake.baseURL.absoluteString)\"\n")
        let yelp = try ProviderFactory.provider(named: "yelp", configuration: configuration,
                                                environment: environment(["YELP_API_KEY": "wrong-yelp-key-9876"]), decorations: try decorations())
        do {
            _ = try await yelp.search(SearchQuery(text: "coffee", near: Coordinate(latitude: 37.7763, longitude: -122.4232)))
            Issue.record("expected an authentication error")
        } catch let error as ProviderError {
            #expect(error.description == "yelp: API key rejected (401 TOKEN_INVALID); check the key in $YELP_API_KEY (named by api_key_env under [providers.yelp])")
            #expect(!error.description.contains("wrong-yelp-key-9876"))
        }
    }
}
