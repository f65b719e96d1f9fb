import Foundation
import Testing

/// Google Takeout's "Saved Places.json" in the newer shape (2024 on): lower-case `location` with `name`, `address`
/// and `country_code`, `date`, `google_maps_url`, the position only in the geometry, and `[0, 0]` plus a `Comment`
/// for a place Google kept no position for. Written by hand from that documented shape.
@Suite struct TakeoutCLITests {
    static let newer = """
        {"type": "FeatureCollection", "features": [
          {"geometry": {"coordinates": [24.9417449, 60.1520763], "type": "Point"},
           "properties": {"date": "2024-03-15T10:20:30Z",
             "google_maps_url": "https://maps.google.com/?cid=11254585613837298911",
             "location": {"address": "Hernesaarenranta 4, 00150 Helsinki, Finland", "country_code": "FI", "name": "Löyly"}},
           "type": "Feature"},
          {"geometry": {"coordinates": [24.9561, 60.1676], "type": "Point"},
           "properties": {"date": "2024-05-02T07:00:00Z",
             "google_maps_url": "https://maps.google.com/?q=60.1676,24.9561",
             "location": {"address": "Pohjoisesplanadi 11, 00170 Helsinki, Finland", "country_code": "FI"}},
           "type": "Feature"},
          {"geometry": {"coordinates": [0, 0], "type": "Point"},
           "properties": {"Comment": "No location information is available for this saved place", "date": "2024-06-01T12:00:00Z",
             "google_maps_url": "https://maps.google.com/?cid=123"},
           "type": "Feature"}
        ]}
        """

    @Test func theNewerExportImportsWithNamesAddressesDatesAndLinks() throws {
        let cli = try CLIHarness.fresh()
        let file = cli.home.appendingPathComponent("Saved Places.json")
        try Data(Self.newer.utf8).write(to: file)
        let result = try cli.run("spots", "import", file.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("imported 2 spots"), "\(result.stdoutText)")
        #expect(result.stderr.contains("skipped feature 3"), "\(result.stderr)")
        let listed = try cli.run("spots", "list", "--json")
        let spots = try #require(try listed.json() as? [[String: Any]], "\(listed.stderr)")
        let byName = Dictionary(spots.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        // A place without a name is named by its address, as the older export's unnamed entries are.
        #expect(Set(byName.keys) == ["Löyly", "Pohjoisesplanadi 11, 00170 Helsinki, Finland"])
        let loyly = try #require(byName["Löyly"])
        #expect(loyly["address"] as? String == "Hernesaarenranta 4, 00150 Helsinki, Finland")
        #expect(loyly["url"] as? String == "https://maps.google.com/?cid=11254585613837298911")
        #expect((loyly["created_at"] as? String)?.hasPrefix("2024-03-15T10:20:30") == true, "\(loyly)")
        #expect(abs((loyly["lat"] as? Double ?? 0) - 60.1520763) < 1e-7)
        #expect(abs((loyly["lon"] as? Double ?? 0) - 24.9417449) < 1e-7)
    }

    @Test func aFileWhoseEveryEntryIsSkippedFailsAndSavesNothing() throws {
        let cli = try CLIHarness.fresh()
        let file = cli.home.appendingPathComponent("Saved Places.json")
        let unplaced = """
            {"type": "FeatureCollection", "features": [
              {"geometry": {"coordinates": [0, 0], "type": "Point"},
               "properties": {"Comment": "No location information is available for this saved place",
                 "date": "2024-06-01T12:00:00Z", "google_maps_url": "https://maps.google.com/?cid=123",
                 "location": {"name": "Somewhere"}}, "type": "Feature"},
              {"geometry": {"coordinates": [0, 0], "type": "Point"},
               "properties": {"date": "2024-06-02T12:00:00Z", "google_maps_url": "https://maps.google.com/?cid=456"},
               "type": "Feature"}
            ]}
            """
        try Data(unplaced.utf8).write(to: file)
        let result = try cli.run("spots", "import", file.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("nothing imported"), "\(result.stderr)")
        #expect(result.stderr.contains("all 2 entries were skipped"), "\(result.stderr)")
        #expect(result.stderr.contains("'Somewhere': no coordinates"), "\(result.stderr)")
        let listed = try cli.run("spots", "list", "--json")
        #expect((try listed.json() as? [Any])?.isEmpty == true, "\(listed.stdoutText)")
    }
}
