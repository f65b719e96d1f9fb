import Foundation
import Testing

/// The "done when": three Helsinki places saved by lookup, one by id, one raw point, two visits; then
/// near, nearest, visits and export show the right data, and refresh finds nothing changed.
/// Runs on the bundled index (built once by `CLIHarness.shared`).
@Suite("places spots on the bundled Helsinki index")
struct SpotsAcceptanceTests {
    @Test func lookupsRawPointVisitsNearNearestVisitsExportAndRefresh() throws {
        let cli = CLIHarness.shared
        func object(_ result: CLIHarness.Result) throws -> [String: Any] {
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try #require(try result.json() as? [String: Any])
        }
        func array(_ result: CLIHarness.Result) throws -> [[String: Any]] {
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try #require(try result.json() as? [[String: Any]])
        }
        let ateneum = try object(cli.run("spots", "add", "--lookup", "Ateneum", "--near", "60.1700,24.9442", "--tag", "art", "--json"))
        let kappeli = try object(cli.run("spots", "add", "--lookup", "Kappeli", "--near", "60.1674,24.9503", "--rating", "like", "--json"))
        let chapel = try object(cli.run("spots", "add", "--lookup", "Kampin kappeli", "--near", "60.1694,24.9359", "--json"))
        #expect((ateneum["place_ids"] as? [String])?.contains("osm:way/8033120") == true)
        #expect((kappeli["place_ids"] as? [String])?.contains("osm:node/1376320188") == true)
        #expect((chapel["place_ids"] as? [String])?.contains("osm:way/185401488") == true)
        #expect((ateneum["snapshot"] as? [String: Any])?["name"] as? String == "Ateneum")
        let bar = try object(cli.run("spots", "add", "--from", "osm:node/2349334833", "--tag", "bar", "--json"))
        #expect(bar["name"] as? String == "Wall St Bar" && bar["tags"] as? [String] == ["bar"])
        let point = try object(cli.run("spots", "add", "--at", "60.1699,24.9384", "--name", "Meeting point", "--json"))
        #expect((point["address"] as? String)?.isEmpty == false, "the raw point is reverse geocoded for an address")

        let ateneumID = try #require(ateneum["id"] as? String)
        #expect(try cli.run("spots", "log", "--spot", ateneumID, "--note", "Schjerfbeck", "--time", "2026-05-01T11:00:00+03:00").status == 0)
        #expect(try cli.run("spots", "log", "--at", "60.1675,24.9525", "--note", "Salmon soup", "--time", "2026-05-01T13:00:00+03:00").status == 0)

        let near = try array(cli.run("spots", "near", "--at", "60.1697,24.9400", "--json"))
        #expect(near.first?["name"] as? String == "Meeting point")
        #expect(Set(near.compactMap { $0["name"] as? String }) == ["Meeting point", "Wall St Bar", "Ateneum", "Kappeli", "Kampin kappeli"])
        let nearest = try array(cli.run("spots", "nearest", "--at", "60.1674,24.9503", "--limit", "2", "--json"))
        #expect(nearest.first?["name"] as? String == "Kappeli")
        #expect(nearest.count == 2)

        let days = try array(cli.run("spots", "visits", "--day", "2026-05-01", "--json"))
        let visits = try #require(days.first?["visits"] as? [[String: Any]])
        #expect(visits.map { $0["note"] as? String } == ["Schjerfbeck", "Salmon soup"])
        #expect(visits[0]["spot_name"] as? String == "Ateneum")

        let export = try cli.run("spots", "export", "--format", "geojson")
        let collection = try object(export)
        let features = try #require(collection["features"] as? [[String: Any]])
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["places_kind"] as? String }
        #expect(kinds.filter { $0 == "spot" }.count == 5 && kinds.filter { $0 == "visit" }.count == 2)

        let refreshed = try array(cli.run("spots", "refresh", "--all", "--json"))
        #expect(refreshed.count == 4)
        #expect(refreshed.allSatisfy { $0["error"] is NSNull || $0["error"] == nil })
    }
}
