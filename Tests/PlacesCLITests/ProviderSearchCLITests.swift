import FakeUpstream
import Foundation
import Testing

/// `places search --provider NAME` asks one paid provider directly, configured through `base_url`.
@Suite struct ProviderSearchCLITests {
    func configure(_ cli: CLIHarness, baseURL: URL) throws {
        let config = "[providers.google]\nenabled = true\nbase_url = \"\(baseURL.absoluteString)\"\ntimeout_s = \(FakeUpstream.answerWithinSeconds)\n"
        try Data(config.utf8).write(to: cli.home.appendingPathComponent("config.toml"))
    }

    @Test func googleSearchSendsOneConformingSearchText() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
        let cli = try CLIHarness.fresh()
        try configure(cli, baseURL: fake.baseURL)
        let result = try await cli.run(
            "search", "Blue Bottle Coffee", "--near", "37.7763,-122.4232", "--provider", "google", "--json",
            environment: ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey])
        await fake.shutdown()
        #expect(result.status == 0, "\(result.stderr)")
        let places = try #require(try result.json() as? [[String: Any]])
        #expect(places.first?["name"] as? String == "Blue Bottle Coffee")
        #expect((places.first?["id"] as? String)?.hasPrefix("google:") == true)
        #expect(fake.requests.count == 1)
        #expect(fake.requests.first?.method == "POST")
        #expect(fake.requests.first?.path == "/v1/places:searchText")
        #expect(fake.violations.isEmpty, "\(fake.violations)")
    }

    @Test func aWrongKeyNamesTheProviderAndNeverPrintsTheKey() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
        let cli = try CLIHarness.fresh()
        try configure(cli, baseURL: fake.baseURL)
        let wrongKey = "AIzaWRONG-key-0123456789"
        let result = try await cli.run(
            "search", "Blue Bottle Coffee", "--provider", "google", "--json",
            environment: ["GOOGLE_PLACES_API_KEY": wrongKey])
        await fake.shutdown()
        #expect(result.status != 0)
        #expect(result.stderr.contains("google: API key rejected (403"), "\(result.stderr)")
        #expect(!result.stderr.contains(wrongKey))
        #expect(!result.stdoutText.contains(wrongKey))
    }

    @Test func anUnusableProviderSaysWhatToSet() throws {
        let result = try CLIHarness.shared.run("search", "x", "--provider", "yelp", environment: ["YELP_API_KEY": ""])
        #expect(result.status == 2)
        #expect(result.stderr.contains("set YELP_API_KEY"), "\(result.stderr)")
    }
}
