import FakeUpstream
import Foundation
import LoopbackSocket
import Testing

/// The CLI and `places serve` are twins: for every command pair, the bulk reply of the server is byte for
/// byte what `places … --json` prints to a pipe (less its final newline), on the same `PLACES_HOME`, with
/// the built binary on both sides. Paid calls go to a Google stand-in on 127.0.0.1 that counts them.
@Suite("CLI and server parity", .serialized)
struct ServerParityTests {
    /// A home with the index built, Google configured against `google`, a budget, a saved spot and a visit.
    func prepare(_ google: FakeUpstream) throws -> (cli: CLIHarness, spotID: String) {
        let cli = try CLIHarness.fresh()
        let config = "[providers.google]\nenabled = true\nbase_url = \"\(google.baseURL.absoluteString)\"\ntimeout_s = 5\n"
        try Data(config.utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        #expect(try cli.run("reverse", "60.17,24.94").status == 0, "the index is built before the server starts")
        #expect(try cli.run("budget", "set", "google", "0.50/day").status == 0)
        let added = try cli.run("spots", "add", "--no-address", "--at", "60.1702,24.9441", "--name", "Ateneum", "--category", "museum",
                                "--tag", "art", "--rating", "like", "--json")
        let spot = try #require(try added.json() as? [String: Any], "\(added.stderr)")
        let spotID = try #require(spot["id"] as? String)
        #expect(try cli.run("spots", "log", "--spot", spotID, "--note", "Late show", "--time", "2026-05-02T00:30:00+03:00").status == 0)
        return (cli, spotID)
    }

    static let environment = ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]

    /// Each pair: the CLI's arguments (without `--json`) and the same request to the server.
    static func readPairs(spotID: String) -> [(cli: [String], server: String)] {
        [
            (["search", "maya bar", "--near", "60.1721,24.9450"], #"SEARCH "maya bar" NEAR 60.1721 24.9450"#),
            (["search", "kiasma", "--limit", "3"], "SEARCH kiasma LIMIT 3"),
            (["details", "geonames:658225"], "DETAILS geonames:658225"),
            (["nearby", "--at", "60.1721,24.9450", "--radius", "120", "--category", "bar"], "NEARBY 60.1721 24.9450 RADIUS 120 CATEGORY bar"),
            (["reverse", "60.1699,24.9384"], "REVERSE 60.1699 24.9384"),
            (["suggest", "kias"], "SUGGEST kias"),
            (["suggest", "mann", "--near", "60.17,24.94", "--limit", "3"], "SUGGEST mann NEAR 60.17 24.94 LIMIT 3"),
            (["score", "Maya Bar & Grill", "Maya Bar and Grill"], #"SCORE "Maya Bar & Grill" "Maya Bar and Grill""#),
            (["budget"], "BUDGET"),
            (["cache", "stats"], "CACHE.STATS"),
            (["spots", "list"], "SPOT.LIST"),
            (["spots", "list", "--rating", "like", "--tag", "art"], "SPOT.LIST RATING like TAG art"),
            (["spots", "show", spotID], "SPOT.SHOW \(spotID)"),
            (["spots", "near", "--at", "60.1700,24.9410"], "SPOT.NEAR 60.1700 24.9410"),
            (["spots", "nearest", "--at", "60.1700,24.9600", "--limit", "1"], "SPOT.NEAREST 60.1700 24.9600 LIMIT 1"),
            (["spots", "visits", "--day", "2026-05-02"], "SPOT.VISITS DAY 2026-05-02"),
        ]
    }

    @Test func everyReadCommandPairPrintsTheSameBytes() async throws {
        let google = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
        let (cli, spotID) = try await offPool { try prepare(google) }
        let server = try await offPool { try RunningServer.start(cli, environment: Self.environment) }
        defer { server.kill() }
        let pairs = Self.readPairs(spotID: spotID)
        let (replies, _) = try await offPool {
            try HalfClosingClient.send(pairs.map { $0.server + "\r\n" }.joined(), port: server.port)
        }
        #expect(replies.count == pairs.count)
        for (pair, reply) in zip(pairs, replies) {
            let printed = try await offPool { try cli.run(arguments: pair.cli + ["--json"], environment: Self.environment) }
            #expect(printed.status == 0, "\(pair.cli): \(printed.stderr)")
            #expect(!reply.hasPrefix("-"), "\(pair.server): \(reply)")
            #expect(reply + "\n" == printed.stdoutText, "\(pair.server) and places \(pair.cli.joined(separator: " ")) --json differ")
        }
        #expect(google.requests.isEmpty, "no read touches the paid provider")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        await google.shutdown()
    }

    /// Writes from either side: a spot saved or a visit logged through the server is what the CLI then
    /// shows, byte for byte.
    @Test func writesThroughTheServerReadBackIdenticallyThroughTheCLI() async throws {
        let google = try await FakeUpstream.start(handler: FakeRoutes.google())
        let (cli, _) = try await offPool { try prepare(google) }
        let server = try await offPool { try RunningServer.start(cli, environment: Self.environment) }
        defer { server.kill() }
        let (replies, _) = try await offPool {
            try HalfClosingClient.send(#"SPOT.ADD "Cafe Regatta" 60.1830 24.9096 CATEGORY cafe TAG coffee NOTE "Cinnamon buns" RATING like"#
                + "\r\n" + #"SPOT.LOG AT 60.1675 24.9525 NOTE Coffee TIME 2026-05-02T09:00:00+03:00"# + "\r\n", port: server.port)
        }
        #expect(replies.count == 2)
        let added = try #require(try JSONSerialization.jsonObject(with: Data(replies[0].utf8)) as? [String: Any], "\(replies)")
        let id = try #require(added["id"] as? String)
        let shown = try await offPool { try cli.run("spots", "show", id, "--json") }
        #expect(shown.stdoutText == replies[0] + "\n")
        let logged = try #require(try JSONSerialization.jsonObject(with: Data(replies[1].utf8)) as? [String: Any], "\(replies)")
        #expect(logged["day"] as? String == "2026-05-02")
        let days = try await offPool { try cli.run("spots", "visits", "--day", "2026-05-02", "--json") }
        let visits = try #require((try days.json() as? [[String: Any]])?.first?["visits"] as? [[String: Any]])
        #expect(visits.count == 2, "the visit logged by the CLI and the one logged through the server")
        #expect(visits.contains { $0["note"] as? String == "Coffee" })
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        await google.shutdown()
    }

    /// "Server LOOKUP and CLI lookup return the same bytes and share cache entries": a place only the paid
    /// provider knows, asked through the server first (one upstream call, metered), then through the CLI
    /// (a cache hit: no second call), then through the server again (the same bytes as the CLI).
    @Test func lookupThroughTheServerAndTheCLIShareOneCacheEntry() async throws {
        let google = try await FakeUpstream.start(handler: FakeRoutes.google(validator: try GoogleDiscoveryValidator()))
        let (cli, _) = try await offPool { try prepare(google) }
        let server = try await offPool { try RunningServer.start(cli, environment: Self.environment) }
        defer { server.kill() }
        let request = "LOOKUP \"Blue Bottle Coffee\" NEAR 37.7763 -122.4232\r\n"
        let first = try await offPool { try HalfClosingClient.send(request, port: server.port) }.replies
        let paidCalls = google.requests.count
        #expect(paidCalls >= 1, "nothing local is near San Francisco: Google is asked")
        let firstReply = try #require(first.first)
        let firstAnswer = try #require(try JSONSerialization.jsonObject(with: Data(firstReply.utf8)) as? [String: Any], "\(first)")
        #expect(firstAnswer["name"] as? String == "Blue Bottle Coffee")

        let printed = try await offPool {
            try cli.run(arguments: ["lookup", "Blue Bottle Coffee", "--near", "37.7763,-122.4232", "--json"], environment: Self.environment)
        }
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(google.requests.count == paidCalls, "the CLI's lookup is answered from the entry the server's lookup cached")
        let cliAnswer = try #require(try printed.json() as? [String: Any])
        #expect(cliAnswer["cache"] as? String == "hit")

        let again = try await offPool { try HalfClosingClient.send(request + "BUDGET\r\n", port: server.port) }.replies
        #expect(again.first.map { $0 + "\n" } == printed.stdoutText, "a cached LOOKUP is byte for byte the CLI's lookup --json")
        #expect(google.requests.count == paidCalls)
        let budget = try await offPool { try cli.run("budget", "--json") }
        #expect(again.last.map { $0 + "\n" } == budget.stdoutText)
        #expect(budget.stdoutText.contains("\"calls\":\(paidCalls)"), "the ledger counts the paid calls: \(budget.stdoutText)")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        await google.shutdown()
    }
}
