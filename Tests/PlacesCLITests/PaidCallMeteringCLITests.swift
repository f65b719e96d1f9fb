import FakeUpstream
import Foundation
import Testing

/// Every path from the command line (and the server) to a paid provider is metered in the budget ledger
/// and cached within the provider's terms (issue 14). A Google stand-in on 127.0.0.1 counts the calls that
/// really went out; `places budget --json` must record exactly as many, and a repeat must not call again.
///
/// Prices are Google's list prices, hand-checked against its price sheet: Text Search Pro is $32 per 1,000
/// calls, so one search costs $0.032 and a $0.05 daily limit allows one call and refuses a second.
@Suite(.serialized) struct PaidCallMeteringCLITests {
    static let blueBottle = ["Blue Bottle Coffee", "--near", "37.7763,-122.4232"]
    static let oneSearch = 32_000  // micro-dollars: $0.032

    /// A home whose only paid provider is Google on `fake`, with no free allowance and `dailyUSD` for Google.
    func home(_ fake: FakeUpstream, dailyUSD: String = "1.0") throws -> CLIHarness {
        let cli = try CLIHarness.fresh()
        let config = """
            [providers.google]
            base_url = "\(fake.baseURL.absoluteString)"
            timeout_s = \(FakeUpstream.answerWithinSeconds)
            [providers.yelp]
            enabled = false
            [providers.foursquare]
            enabled = false
            [providers.nominatim]
            enabled = false

            [pipeline]
            chain = ["local", "google"]

            [budget.providers.google]
            daily_usd = \(dailyUSD)
            [budget.free_calls_per_month]
            "google.search.pro" = 0
            "google.search.enterprise" = 0
            "google.nearby.pro" = 0
            "google.details.pro" = 0
            "google.details.essentials" = 0
            "google.autocomplete" = 0

            """
        try Data(config.utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        return cli
    }

    static let key = ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]

    /// Google's calls and spend today as the ledger recorded them.
    func ledger(_ cli: CLIHarness) throws -> (calls: Int, spent: Int) {
        let result = try cli.run("budget", "--json")
        let report = try #require(try result.json() as? [String: Any], "\(result.stderr)")
        let google = (report["providers"] as? [[String: Any]] ?? []).first { $0["provider"] as? String == "google" }
        let today = google?["today"] as? [String: Any]
        // Dollars in the JSON; back to micro-dollars (exact at these sizes) to compare with the price list.
        return (today?["calls"] as? Int ?? 0, Int(((today?["spent_usd"] as? Double ?? 0) * 1_000_000).rounded()))
    }

    @Test func searchWithGoogleUnderAOneCallBudgetCallsOnceAndRepeatsFromTheCache() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try home(fake, dailyUSD: "0.05")
        var names: [String?] = []
        for _ in 1...3 {
            let result = try await cli.run(arguments: ["search"] + Self.blueBottle + ["--provider", "google", "--json"],
                                     environment: Self.key)
            #expect(result.status == 0, "\(result.stderr)")
            names.append((try result.json() as? [[String: Any]])?.first?["name"] as? String)
        }
        // Another question needs another call, which the $0.05 limit refuses before anything is sent.
        let refused = try await cli.run("search", "Sightglass Coffee", "--near", "37.7763,-122.4232", "--provider", "google",
                                  environment: Self.key)
        await fake.shutdown()
        #expect(names == ["Blue Bottle Coffee", "Blue Bottle Coffee", "Blue Bottle Coffee"])
        #expect(fake.requests.count == 1, "\(fake.requests.map(\.uri))")
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("google not asked: google budget per day"), "\(refused.stderr)")
        let spend = try ledger(cli)
        #expect(spend.calls == 1)
        #expect(spend.spent == Self.oneSearch)
    }

    @Test func nearbyDetailsAndSuggestWithGoogleAreMeteredAndCached() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try home(fake)
        let commands = [
            ["nearby", "--at", "37.7763,-122.4232", "--provider", "google", "--json"],
            ["details", "google:\(FakeFixtures.googlePlaceID)", "--json"],
            ["suggest", "blue bot", "--near", "37.7763,-122.4232", "--provider", "google", "--json"],
        ]
        for round in 1...2 {
            for command in commands {
                let result = try await cli.run(arguments: command, environment: Self.key)
                #expect(result.status == 0, "round \(round) \(command[0]): \(result.stderr)")
            }
        }
        await fake.shutdown()
        // One call per command: the second round is answered from the cache.
        #expect(fake.requests.count == 3, "\(fake.requests.map(\.uri))")
        let spend = try ledger(cli)
        #expect(spend.calls == 3)
        #expect(spend.spent > 0)
    }

    @Test func lookupBatchSpotsAndTheServerShareMeteredAnswers() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try home(fake)
        // `lookup` pays once; every other path asks the same question the same way, so the cache answers.
        let lookup = try await cli.run(arguments: ["lookup"] + Self.blueBottle + ["--json"], environment: Self.key)
        #expect(lookup.status == 0, "\(lookup.stderr)")
        let answer = try #require(try lookup.json() as? [String: Any])
        #expect(answer["name"] as? String == "Blue Bottle Coffee")
        #expect(answer["cache"] as? String == "miss")
        #expect(fake.requests.count == 1)

        let batch = cli.home.appendingPathComponent("rows.csv")
        try Data("id,name,lat,lon\n1,Blue Bottle Coffee,37.7763,-122.4232\n".utf8).write(to: batch)
        let batched = try await cli.run("lookup", "--batch", batch.path, environment: Self.key)
        #expect(batched.status == 0, "\(batched.stderr)")
        #expect(batched.stderr.contains("cache hits: 1"), "\(batched.stderr)")

        let added = try await cli.run(arguments: ["spots", "add", "--lookup"] + Self.blueBottle + ["--json"], environment: Self.key)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("from cache"), "\(added.stderr)")
        #expect(fake.requests.count == 1, "\(fake.requests.map(\.uri))")
        // A refresh asks with what the snapshot knows (its address), a new question: one more metered call.
        let refreshed = try await cli.run("spots", "refresh", "--all", "--json", environment: Self.key)
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(fake.requests.count == 2, "\(fake.requests.map(\.uri))")

        if let redisCLI = ServeCLITests.redisCLI {
            let server = try RunningServer.start(cli, environment: Self.key)
            defer { server.kill() }
            let reply = try ServeCLITests.run(redisCLI, ["-p", String(server.port), "LOOKUP", "Blue Bottle Coffee",
                                                         "NEAR", "37.7763", "-122.4232"])
            #expect(try server.stop(signal: SIGTERM) == 0)
            #expect(reply.contains("\"cache\":\"hit\""), "\(reply)")
        } else {
            Issue.record("redis-cli is not installed (apt-get install redis-tools); .ci/run installs it")
        }
        await fake.shutdown()
        #expect(fake.requests.count == 2, "\(fake.requests.map(\.uri))")
        let spend = try ledger(cli)
        #expect(spend.calls == 2)
        #expect(spend.spent == 2 * Self.oneSearch)
    }

    /// The server words the core's typed failures by type: a call the budget refuses is `-ERR budget …`
    /// and sends nothing; a provider that fails is `-ERR upstream …`, naming the provider, never the key.
    @Test func theServerRepliesBudgetAndUpstreamErrorsByType() async throws {
        guard let redisCLI = ServeCLITests.redisCLI else {
            Issue.record("redis-cli is not installed (apt-get install redis-tools); .ci/run installs it")
            return
        }
        let details = ["DETAILS", "google:\(FakeFixtures.googlePlaceID)"]
        let refusing = try await FakeUpstream.start(handler: FakeRoutes.google())
        let poor = try home(refusing, dailyUSD: "0.001")
        #expect(try await poor.run("reverse", "60.17,24.94").status == 0)  // the index is built before the server starts
        let server = try RunningServer.start(poor, environment: Self.key)
        defer { server.kill() }
        let refused = try ServeCLITests.run(redisCLI, ["-p", String(server.port)] + details)
        #expect(try server.stop(signal: SIGTERM) == 0)
        await refusing.shutdown()
        #expect(refused.hasPrefix("ERR budget denied: google not asked: google budget per day"), "\(refused)")
        #expect(refusing.requests.isEmpty)

        let failing = try await FakeUpstream.start { _ in .serverError(503) }
        let unlucky = try home(failing)
        #expect(try await unlucky.run("reverse", "60.17,24.94").status == 0)
        let second = try RunningServer.start(unlucky, environment: Self.key)
        defer { second.kill() }
        let failed = try ServeCLITests.run(redisCLI, ["-p", String(second.port)] + details)
        #expect(try second.stop(signal: SIGTERM) == 0)
        await failing.shutdown()
        #expect(failed.hasPrefix("ERR upstream google"), "\(failed)")
        #expect(!failed.contains(FakeRoutes.testKey))
        #expect(try ledger(unlucky).spent == 0, "a failure Google does not bill is refunded")
    }

    @Test func aLookupTheBudgetRefusesSendsNothingAndSaysSo() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try home(fake, dailyUSD: "0.01")
        let result = try await cli.run(arguments: ["lookup"] + Self.blueBottle + ["--json"], environment: Self.key)
        await fake.shutdown()
        #expect(fake.requests.isEmpty)
        let answer = try #require(try result.json() as? [String: Any], "\(result.stderr)")
        #expect(answer["budget_exhausted"] as? Bool == true)
        #expect(try ledger(cli).calls == 0)
    }

    @Test func lookupJSONCarriesTheTimeZoneAndOpenNowOfAHelsinkiPlace() throws {
        let cli = CLIHarness.shared
        let result = try cli.run("lookup", "Cafe Engel", "--near", "60.1696,24.952", "--offline", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try result.json() as? [String: Any])
        #expect(answer["name"] as? String == "Cafe Engel")
        // Helsinki's zone, from GeoNames (hand-checked); Cafe Engel's OSM node carries opening_hours.
        #expect(answer["time_zone"] as? String == "Europe/Helsinki", "\(answer)")
        #expect(answer["open_now"] is Bool, "\(answer)")
    }

    @Test func spotsAddLookupKeepsTheTimeZone() throws {
        let cli = try CLIHarness.fresh()
        let result = try cli.run("spots", "add", "--lookup", "Cafe Engel", "--near", "60.1696,24.952", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let spot = try #require(try result.json() as? [String: Any])
        let snapshot = try #require(spot["snapshot"] as? [String: Any], "\(spot)")
        #expect(snapshot["time_zone"] as? String == "Europe/Helsinki", "\(snapshot)")
        #expect(snapshot["open_now"] is Bool, "\(snapshot)")
    }
}
