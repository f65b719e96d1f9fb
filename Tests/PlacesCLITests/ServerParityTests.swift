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
        let config = "[providers.google]\nenabled = true\nbase_url = \"\(google.baseURL.absoluteString)\"\ntimeout_s = \(FakeUpstream.answerWithinSeconds)\n"
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
            // Searched around the place named: distances from Kiasma on both sides, though no point was given.
            (["search", "pharmacy near kiasma", "--limit", "3"], #"SEARCH "pharmacy near kiasma" LIMIT 3"#),
            (["search", "pharmacy near kiasma", "--radius", "300"], #"SEARCH "pharmacy near kiasma" RADIUS 300"#),
            // Two OSM nodes named Aktia 25 m apart, folded into one result on both sides.
            (["search", "aktia", "--near", "60.1687,24.9397"], "SEARCH aktia NEAR 60.1687 24.9397"),
            (["details", "geonames:658225"], "DETAILS geonames:658225"),
            // An OSM POI with opening hours and no zone of its own: its city's zone, then hours, open now, provenance.
            (["details", "osm:node/59622323"], "DETAILS osm:node/59622323"),
            (["nearby", "--at", "60.1721,24.9450", "--radius", "120", "--category", "bar"], "NEARBY 60.1721 24.9450 RADIUS 120 CATEGORY bar"),
            (["reverse", "60.1699,24.9384"], "REVERSE 60.1699 24.9384"),
            (["suggest", "kias"], "SUGGEST kias"),
            (["suggest", "mann", "--near", "60.17,24.94", "--limit", "3"], "SUGGEST mann NEAR 60.17 24.94 LIMIT 3"),
            (["suggest", "mann", "--limit", "3", "--near", "60.17,24.94"], "SUGGEST mann LIMIT 3 NEAR 60.17 24.94"),
            (["nearby", "--at", "60.1699,24.9410", "--radius", "100", "--open-at", "2026-11-23T03:00"],
             "NEARBY 60.1699 24.9410 OPEN AT 2026-11-23T03:00 RADIUS 100"),
            (["search", "rautatientori", "--near", "60.1699,24.9410", "--limit", "5", "--open-at", "2026-11-23T12:00"],
             "SEARCH rautatientori NEAR 60.1699 24.9410 LIMIT 5 OPEN AT 2026-11-23T12:00"),
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

    /// Spot and visit edits and deletions from either side: an edit through the server is what the CLI then
    /// shows, byte for byte, and the other way round; a deletion replies with what was deleted, as the CLI's
    /// `--json` prints it. Ids or 4+ character prefixes work; a prefix two spots share, an unknown id and an
    /// unknown visit are one `-ERR` line each, and nothing changes.
    @Test func spotEditsAndDeletionsMatchTheCLI() async throws {
        let google = try await FakeUpstream.start(handler: FakeRoutes.google())
        let (cli, spotID) = try await offPool { try prepare(google) }
        // Two spots whose ids share their first 8 characters, so a short prefix names both.
        let twins = "id,name,lat,lon\nabcd0000-0000-4000-8000-000000000001,Kappeli,60.1675,24.9490\n"
            + "abcd0000-0000-4000-8000-000000000002,Sea Horse,60.1590,24.9460\n"
        let twinsFile = cli.home.appendingPathComponent("twins.csv")
        try Data(twins.utf8).write(to: twinsFile)
        let imported = try await offPool { try cli.run("spots", "import", twinsFile.path) }
        #expect(imported.status == 0, "\(imported.stderr)")
        let visits = try await offPool { try cli.run("spots", "visits", "--day", "2026-05-02", "--json") }
        let visit = try #require((try visits.json() as? [[String: Any]])?.first?["visits"] as? [[String: Any]])
        let visitID = try #require(visit.first?["id"] as? String)
        let server = try await offPool { try RunningServer.start(cli, environment: Self.environment) }
        defer { server.kill() }
        func send(_ line: String) async throws -> String {
            let replies = try await offPool { try HalfClosingClient.send(line + "\r\n", port: server.port) }.replies
            #expect(replies.count == 1, "\(line): \(replies)")
            return replies.first ?? ""
        }

        // The server edits; the CLI shows the same bytes, with what each option changed.
        let edited = try await send(#"SPOT.EDIT \#(spotID.prefix(6)) NAME "Ateneum Art Museum" REMOVE-TAG art ADD-TAG paintings "#
            + #"RATING none NOTE "Free on Fridays""#)
        let shown = try await offPool { try cli.run("spots", "show", spotID, "--json") }
        #expect(shown.stdoutText == edited + "\n")
        let editedSpot = try #require(try JSONSerialization.jsonObject(with: Data(edited.utf8)) as? [String: Any], "\(edited)")
        #expect(editedSpot["name"] as? String == "Ateneum Art Museum")
        #expect(editedSpot["tags"] as? [String] == ["paintings"])
        #expect(editedSpot["rating"] is NSNull)
        #expect(editedSpot["notes"] as? String == "Free on Fridays")
        #expect(editedSpot["category"] as? String == "museum", "an option not given leaves its field alone")

        // The CLI edits; the server shows the same bytes.
        let cliEdit = try await offPool {
            try cli.run("spots", "edit", String(spotID.prefix(8)), "--note", "", "--at", "60.1703,24.9442", "--json")
        }
        #expect(cliEdit.status == 0, "\(cliEdit.stderr)")
        #expect(try await send("SPOT.SHOW \(spotID)") + "\n" == cliEdit.stdoutText)
        let moved = try #require(try cliEdit.json() as? [String: Any])
        #expect(moved["notes"] is NSNull && moved["lat"] as? Double == 60.1703 && moved["lon"] as? Double == 24.9442)

        // Errors: one line each, the same words the CLI uses for an ambiguous prefix.
        #expect(try await send("SPOT.EDIT abcd0000 NAME x")
            == "-ERR ambiguous spot id 'abcd0000': several spots start with it; type more characters")
        let cliAmbiguous = try await offPool { try cli.run("spots", "edit", "abcd0000", "--name", "x") }
        #expect(cliAmbiguous.status == 2 && cliAmbiguous.stderr == "places: ambiguous spot id 'abcd0000': several spots start with it; type more characters\n")
        #expect(try await send("SPOT.RM ffffffff") == "-ERR unknown spot 'ffffffff': SPOT.LIST shows the saved ids")
        #expect(try await send("SPOT.EDIT no-such NAME x") == "-ERR unknown spot 'no-such': SPOT.LIST shows the saved ids")
        #expect(try await send("SPOT.VISITS.RM 0000ffff") == "-ERR unknown visit '0000ffff': SPOT.VISITS shows the logged ids")
        #expect(try await send("SPOT.EDIT \(spotID)").hasPrefix("-ERR wrong number of arguments for 'spot.edit' command"))
        let list = try await offPool { try cli.run("spots", "list", "--json") }
        #expect((try list.json() as? [[String: Any]])?.map { $0["name"] as? String } == ["Ateneum Art Museum", "Kappeli", "Sea Horse"],
                "no error changed anything")

        // Visits: the server edits, the CLI deletes and prints the edited visit; the CLI logs, the server deletes.
        let visitEdit = try await send(#"SPOT.VISITS.EDIT \#(visitID.prefix(8)) NOTE "Late show, again" TIME "2026-05-02T01:15:00+03:00""#)
        let visitJSON = try #require(try JSONSerialization.jsonObject(with: Data(visitEdit.utf8)) as? [String: Any], "\(visitEdit)")
        #expect(visitJSON["note"] as? String == "Late show, again")
        #expect(visitJSON["spot_name"] as? String == "Ateneum Art Museum")
        let cliVisitRemove = try await offPool { try cli.run("spots", "visits", "rm", visitID, "--json") }
        #expect(cliVisitRemove.status == 0, "\(cliVisitRemove.stderr)")
        #expect(cliVisitRemove.stdoutText == visitEdit + "\n")
        let logged = try await offPool {
            try cli.run("spots", "log", "--at", "60.1675,24.9525", "--note", "Coffee", "--time", "2026-05-03T09:00:00+03:00", "--json")
        }
        let loggedID = try #require((try logged.json() as? [String: Any])?["id"] as? String, "\(logged.stderr)")
        #expect(try await send("SPOT.VISITS.RM \(loggedID.prefix(8))") + "\n" == logged.stdoutText)
        let left = try await offPool { try cli.run("spots", "visits", "list", "--since", "2026-01-01", "--json") }
        #expect(left.stdoutText == "[]\n", "both visits are gone")

        // Spots: the server deletes one twin (by its full id) and replies with it; the CLI deletes the other spot.
        let twin = try await offPool { try cli.run("spots", "show", "abcd0000-0000-4000-8000-000000000001", "--json") }
        #expect(try await send("SPOT.RM abcd0000-0000-4000-8000-000000000001") + "\n" == twin.stdoutText)
        let before = try await offPool { try cli.run("spots", "show", spotID, "--json") }
        let cliRemove = try await offPool { try cli.run("spots", "rm", spotID, "--yes", "--json") }
        #expect(cliRemove.status == 0 && cliRemove.stdoutText == before.stdoutText, "\(cliRemove.stderr)")
        #expect(try await send("SPOT.SHOW \(spotID)") == "", "a deleted spot is a miss")
        #expect(try await send("SPOT.EDIT abcd NAME Kappeli") != "", "the prefix now names one spot")
        let remaining = try await offPool { try cli.run("spots", "list", "--json") }
        #expect((try remaining.json() as? [[String: Any]])?.map { $0["id"] as? String } == ["abcd0000-0000-4000-8000-000000000002"])
        #expect((try remaining.json() as? [[String: Any]])?.map { $0["name"] as? String } == ["Kappeli"], "Sea Horse renamed by its prefix")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        await google.shutdown()
    }

    /// `OPEN NOW` / `OPEN AT`: a place is kept only when its hours say open at that moment on its own clock;
    /// places without hours are dropped. Expected places are read off their OSM `opening_hours` by hand:
    /// Ale pub and Milliklubi are `Mo-Su 21:00-04:00`, so open at 03:00 on Monday 2026-11-23 (Sunday's
    /// evening), and nothing else within 100 m of the point is (the rest close by 01:00 or have no hours);
    /// the city-bike stations are `24/7`, open whenever the test runs; the two squares named Rautatientori
    /// (osm:node/418089207, osm:node/1380974090) have no hours. Options in either order; a repeated or
    /// unknown one is one `-ERR` line naming it.
    @Test func openNowAndOptionOrderThroughASocket() async throws {
        let google = try await FakeUpstream.start(handler: FakeRoutes.google())
        let (cli, _) = try await offPool { try prepare(google) }
        let server = try await offPool { try RunningServer.start(cli, environment: Self.environment) }
        defer { server.kill() }
        let requests = [
            "NEARBY 60.1699 24.9410 RADIUS 100 OPEN AT 2026-11-23T03:00",
            "NEARBY 60.1699 24.9410 RADIUS 100",
            "SEARCH kaupunkipyöräasema NEAR 60.1699 24.9410 LIMIT 3 OPEN NOW",
            "SEARCH rautatientori OPEN NOW NEAR 60.1699 24.9410 LIMIT 5",
            "SEARCH rautatientori NEAR 60.1699 24.9410 LIMIT 5",
            "SUGGEST mann LIMIT 3 LIMIT 4",
            "SUGGEST mann NEAR 60.17 24.94 RADIUS 100",
            "SEARCH bar OPEN LATE",
        ]
        let replies = try await offPool { try HalfClosingClient.send(requests.map { $0 + "\r\n" }.joined(), port: server.port) }.replies
        #expect(replies.count == requests.count)
        func places(_ reply: String) -> [[String: Any]] {
            (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [[String: Any]] ?? []
        }
        func ids(_ reply: String) -> [String] { places(reply).compactMap { $0["id"] as? String } }
        #expect(places(replies[0]).compactMap { $0["name"] as? String } == ["Ale pub", "Milliklubi Bar & Disco"], "\(replies[0])")
        #expect(ids(replies[1]).count > 2 && ids(replies[1]).contains("osm:node/2466500127"),
                "without OPEN the same area also has places without hours (Telia Kauppa) and closed ones")
        #expect(Set(ids(replies[2])) == ["osm:node/4811014444", "osm:node/4811014442", "osm:node/4811014449"],
                "the three stations nearest the point, all 24/7: \(replies[2])")
        #expect(ids(replies[3]).contains("osm:node/4811014444"), "the 24/7 station is kept: \(replies[3])")
        #expect(!ids(replies[3]).contains("osm:node/418089207") && !ids(replies[3]).contains("osm:node/1380974090"),
                "squares without hours are dropped: \(replies[3])")
        #expect(ids(replies[4]).contains("osm:node/418089207"), "without OPEN NOW the square is found: \(replies[4])")
        #expect(replies[5] == "-ERR option 'LIMIT' given twice; give each option once; usage: SUGGEST prefix [NEAR lat lon] [LIMIT n]")
        #expect(replies[6] == "-ERR syntax error at 'RADIUS'; usage: SUGGEST prefix [NEAR lat lon] [LIMIT n]")
        #expect(replies[7].hasPrefix("-ERR invalid OPEN 'LATE': expected OPEN NOW or OPEN AT time; usage: SEARCH"))
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        await google.shutdown()
    }
}
