import FakeUpstream
import Foundation
import Testing

/// `places lookup Kalmari` when a free source lists Kalmari Grill and Kalmari Pizzeria side by side: the name
/// fits both, so the answer is "not sure — did you mean…", exit 0, and the paid provider is not asked unless
/// `--pay-when-ambiguous` says so.
@Suite(.serialized) struct AmbiguousLookupCLITests {
    static func venue(_ id: Int, _ name: String, _ type: String, lat: String, lon: String) -> String {
        #"{"place_id": \#(id), "osm_type": "node", "osm_id": \#(id), "lat": "\#(lat)", "lon": "\#(lon)", "category": "amenity", "type": "\#(type)", "name": "\#(name)", "display_name": "\#(name), Helsinki, Suomi / Finland", "address": {"city": "Helsinki", "country_code": "fi"}, "namedetails": {"name": "\#(name)"}}"#
    }

    /// Two restaurants 11 m apart (hand-placed), 60.17210,24.94500 is between them.
    static let kalmari = "[" + venue(9_001, "Kalmari Grill", "restaurant", lat: "60.17214", lon: "24.94505") + ","
        + venue(9_002, "Kalmari Pizzeria", "restaurant", lat: "60.17205", lon: "24.94495") + "]"

    /// A fresh home whose Nominatim stand-in lists both Kalmari restaurants and whose Google stand-in counts calls.
    func homeWithKalmariUpstreams() async throws -> (cli: CLIHarness, nominatim: FakeUpstream, google: FakeUpstream) {
        let cli = try CLIHarness.fresh()
        let nominatim = try await FakeUpstream.start { request in
            request.path.hasPrefix("/search") ? .json(Self.kalmari) : .notFound()
        }
        let google = try await FakeUpstream.start(handler: FakeRoutes.google())
        try setUp(cli, nominatim: nominatim, google: google)
        return (cli, nominatim, google)
    }

    func setUp(_ cli: CLIHarness, nominatim: FakeUpstream, google: FakeUpstream) throws {
        let config = """
            [providers.nominatim]
            enabled = true
            base_url = "\(nominatim.baseURL.absoluteString)"
            contact = "tests@example.org"
            timeout_s = \(FakeUpstream.answerWithinSeconds)
            [providers.google]
            enabled = true
            base_url = "\(google.baseURL.absoluteString)"
            timeout_s = \(FakeUpstream.answerWithinSeconds)
            """
        try Data(config.utf8).write(to: cli.home.appendingPathComponent("config.toml"))
    }

    @Test func anAmbiguousNameIsANotSureAnswerListingThePlacesWithoutAPaidCall() async throws {
        let (cli, nominatim, google) = try await homeWithKalmariUpstreams()
        let environment = ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]
        let table = try await cli.run(arguments: ["lookup", "Kalmari", "--near", "60.17210,24.94500"], environment: environment)
        let json = try await cli.run(arguments: ["lookup", "Kalmari", "--near", "60.17210,24.94500", "--json"], environment: environment)
        let paying = try await cli.run(arguments: ["lookup", "Kalmari", "--near", "60.17210,24.94500", "--pay-when-ambiguous", "--json"],
                                 environment: environment)
        await nominatim.shutdown()
        await google.shutdown()

        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdoutText.contains("did you mean: Kalmari"), "\(table.stdoutText)")
        #expect(table.stdoutText.contains("Kalmari Grill (") && table.stdoutText.contains("Kalmari Pizzeria ("), "\(table.stdoutText)")
        let answer = try #require(try json.json() as? [String: Any], "\(json.stderr)")
        #expect(json.status == 0)
        #expect(answer["ambiguous"] as? Bool == true)
        #expect((answer["match"] as? [String: Any])?["verdict"] as? String == "review")
        #expect(Set(((answer["did_you_mean"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
                == ["Kalmari Grill", "Kalmari Pizzeria"])
        #expect(answer["cost_usd"] as? Double == 0)
        // Only the paying run asked Google.
        let googleCalls = google.requests.filter { $0.path.contains("searchText") }.count
        #expect(googleCalls == 1, "\(google.requests.map(\.path))")
        let paid = try #require(try paying.json() as? [String: Any], "\(paying.stderr)")
        #expect(((paid["calls"] as? [String: Int]) ?? [:])["google"] == 1, "\(paid)")
    }

    /// A batch asks each row as `places lookup` asks it alone, `--pay-when-ambiguous` included: without the
    /// flag the ambiguous row costs nothing, with it Google is asked once.
    @Test func aBatchRowPaysWhenAmbiguousOnlyWithTheFlag() async throws {
        let (cli, nominatim, google) = try await homeWithKalmariUpstreams()
        let batch = cli.home.appendingPathComponent("batch.csv")
        try Data("id,name,lat,lon\nk1,Kalmari,60.17210,24.94500\n".utf8).write(to: batch)
        let environment = ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]
        let unpaid = try await cli.run(arguments: ["lookup", "--batch", batch.path], environment: environment)
        let callsAfterUnpaid = google.requests.filter { $0.path.contains("searchText") }.count
        let paying = try await cli.run(arguments: ["lookup", "--batch", batch.path, "--pay-when-ambiguous"], environment: environment)
        let callsAfterPaying = google.requests.filter { $0.path.contains("searchText") }.count
        await nominatim.shutdown()
        await google.shutdown()

        #expect(unpaid.status == 0, "\(unpaid.stderr)")
        #expect(callsAfterUnpaid == 0, "\(google.requests.map(\.path))")
        #expect(unpaid.stderr.contains("rows: 1") && !unpaid.stderr.contains("calls google"), "\(unpaid.stderr)")
        #expect(paying.status == 0, "\(paying.stderr)")
        #expect(callsAfterPaying == 1, "\(google.requests.map(\.path))")
        #expect(paying.stderr.contains("calls google: 1"), "\(paying.stderr)")
    }
}
