import Foundation
import Testing

/// `spots watch --brand/--place-category`: places from the local index watched beside (or instead of) saved spots.
///
/// Places and points are from the repository's Helsinki extract (OpenStreetMap): Alko at Mannerheimintie 20
/// (node 306957582, 60.1693328,24.9382903), Robert's Coffee at Mannerheimintie 20 B (node 1381017836,
/// 60.1696135,24.9381557, tagged only by name) and Yliopiston apteekki at Mannerheimintie 5 (node 1369465698,
/// 60.1694956,24.9396951). Around 60.1600,24.9000 (Hietalahti shipyard) there is none within 400 m.
@Suite struct SpotsWatchPlacesCLITests {
    static func events(_ result: CLIHarness.Result) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func entered(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["event"] as? String == "enter" }.compactMap { ($0["spot"] as? [String: Any])?["id"] as? String }
    }

    @Test func anyAlkoOrAnyPharmacyWithoutSavedSpots() throws {
        let cli = try CLIHarness.fresh()
        _ = try cli.run("spots", "add", "--no-address", "--at", "60.1600,24.9000", "--name", "Shipyard")
        let fixes = """
            60.1600,24.9000,5,2026-05-01T07:00:00Z
            60.1693328,24.9382903,5,2026-05-01T07:05:00Z
            60.1600,24.9000,5,2026-05-01T07:10:00Z
            60.1694956,24.9396951,5,2026-05-01T07:15:00Z

            """
        let result = try cli.run("spots", "watch", "--radius", "15", "--exit-margin", "5", "--brand", "ALKO",
                                 "--place-category", "pharmacy", "--no-spots", stdin: Data(fixes.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.events(result)
        let ids = Self.entered(events)
        #expect(ids.contains("osm:node/306957582"), "\(result.stdoutText)")
        #expect(ids.contains("osm:node/1369465698"), "\(result.stdoutText)")
        #expect(!events.contains { ($0["spot"] as? [String: Any])?["name"] as? String == "Shipyard" }, "saved spots are not watched")
        let alko = try #require(events.first { ($0["spot"] as? [String: Any])?["id"] as? String == "osm:node/306957582" }?["spot"] as? [String: Any])
        #expect(alko["kind"] as? String == "place")
        #expect(alko["name"] as? String == "Alko")
        #expect(alko["category"] as? String == "shop")
        #expect(alko.keys.contains("note") && alko.keys.contains("rating"), "every key is present, null when unknown")
        let pharmacy = try #require(events.first { ($0["spot"] as? [String: Any])?["id"] as? String == "osm:node/1369465698" }?["spot"] as? [String: Any])
        #expect(pharmacy["category"] as? String == "pharmacy")
    }

    @Test func brandsMatchWithoutRegardToPunctuationOrCase() throws {
        let cli = try CLIHarness.fresh()
        let fixes = "60.1600,24.9000,5,2026-05-01T07:00:00Z\n60.1696135,24.9381557,5,2026-05-01T07:05:00Z\n"
        let result = try cli.run("spots", "watch", "--radius", "10", "--brand", "roberts coffee", "--no-spots",
                                 stdin: Data(fixes.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.events(result)
        #expect(Self.entered(events) == ["osm:node/1381017836"], "\(result.stdoutText)")
        #expect((events.first?["spot"] as? [String: Any])?["name"] as? String == "Robert's Coffee")
    }

    @Test func savedSpotsAreFilteredByRatingAndCarryTheirNote() throws {
        let cli = try CLIHarness.fresh()
        _ = try cli.run("spots", "add", "--no-address", "--at", "60.1600,24.9000", "--name", "Liked", "--note", "ask for the window table",
                        "--rating", "like", "--category", "cafe")
        _ = try cli.run("spots", "add", "--no-address", "--at", "60.1601,24.9001", "--name", "Disliked", "--rating", "dislike")
        let fixes = "60.1650,24.9200,5,2026-05-01T07:00:00Z\n60.1600,24.9000,5,2026-05-01T07:05:00Z\n"
        let result = try cli.run("spots", "watch", "--radius", "50", "--rating", "like", stdin: Data(fixes.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.events(result)
        #expect(events.count == 1, "\(result.stdoutText)")
        let spot = try #require(events.first?["spot"] as? [String: Any])
        #expect(spot["name"] as? String == "Liked")
        #expect(spot["kind"] as? String == "spot")
        #expect(spot["note"] as? String == "ask for the window table")
        #expect(spot["rating"] as? String == "like")
        #expect(spot["category"] as? String == "cafe")
    }

    @Test func noSpotsWithNothingElseToWatchIsRefused() throws {
        let result = try CLIHarness.shared.run("spots", "watch", "--no-spots", stdin: Data())
        #expect(result.status == 2)
        #expect(result.stderr.contains("--no-spots leaves nothing to watch"), "\(result.stderr)")
    }
}
