import Foundation
import Testing

/// The foundation's promises, checked through the real executable on the embedded default data.
@Suite(.serialized) struct LocalLookupCLITests {
    let cli = CLIHarness.shared

    @Test func firstRunBuildsTheIndexAndSaysSoOnlyOnce() throws {
        let fresh = try CLIHarness.fresh()
        let first = try fresh.run("search", "maya bar", "--near", "60.1721,24.9450", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("building the local index"))
        let second = try fresh.run("search", "maya bar", "--json")
        #expect(second.status == 0)
        #expect(!second.stderr.contains("building"))
    }

    @Test func searchFindsMayaBarFirstWithItsDetails() throws {
        let result = try cli.run("search", "maya bar", "--near", "60.1721,24.9450", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let places = try #require(try result.json() as? [[String: Any]])
        let first = try #require(places.first)
        #expect(first["name"] as? String == "Maya Bar & Grill")
        #expect((first["formatted_address"] as? String)?.isEmpty == false)
        #expect((first["website"] as? String)?.hasPrefix("http") == true)
        #expect((first["opening_hours"] as? String)?.isEmpty == false)
        #expect(first["source"] as? String == "osm")
        #expect((first["id"] as? String)?.hasPrefix("osm:") == true)
        #expect(first["distance_m"] is Double)
        for key in ["lat", "lon", "categories", "phone"] { #expect(first.keys.contains(key), "missing \(key)") }
    }

    @Test func nearbyCafesAreWithinTheRadiusAndSortedByDistance() throws {
        let result = try cli.run("nearby", "--at", "60.1700,24.9410", "--radius", "300", "--category", "cafe", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let places = try #require(try result.json() as? [[String: Any]])
        #expect(!places.isEmpty)
        let distances = places.compactMap { $0["distance_m"] as? Double }
        #expect(distances.count == places.count)
        #expect(distances == distances.sorted())
        #expect(distances.allSatisfy { $0 <= 300 })
        #expect(places.allSatisfy { $0["category"] as? String == "cafe" })
    }

    @Test func reverseNamesCityCountryAndTimeZone() throws {
        let result = try cli.run("reverse", "60.1699,24.9384", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try result.json() as? [String: Any])
        #expect(answer["city"] as? String == "Helsinki")
        #expect(answer["country"] as? String == "FI")
        #expect(answer["time_zone"] as? String == "Europe/Helsinki")
    }

    @Test func detailsRoundTripsAnIdFromSearch() throws {
        let search = try cli.run("search", "maya bar", "--json")
        let id = try #require((try search.json() as? [[String: Any]])?.first?["id"] as? String)
        let details = try cli.run("details", id, "--json")
        #expect(details.status == 0, "\(details.stderr)")
        let place = try #require(try details.json() as? [String: Any])
        #expect(place["id"] as? String == id)
        #expect(place["time_zone"] as? String == "Europe/Helsinki")
    }

    @Test func geoJSONIsAFeatureCollectionWithLonLatOrder() throws {
        let result = try cli.run("search", "maya bar", "--geojson")
        let collection = try #require(try result.json() as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let feature = try #require((collection["features"] as? [[String: Any]])?.first)
        let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(abs(coordinates[0] - 24.94) < 0.02 && abs(coordinates[1] - 60.17) < 0.02)
    }

    @Test func tableOutputIsReadable() throws {
        let result = try cli.run("search", "maya bar", "--near", "60.1721,24.9450")
        #expect(result.status == 0)
        #expect(result.stdoutText.hasPrefix("#"))
        #expect(result.stdoutText.contains("Maya Bar & Grill"))
    }
}

@Suite struct BadInputCLITests {
    let cli = CLIHarness.shared

    @Test(arguments: [
        ["reverse", "91,200"], ["reverse", "abc"], ["nearby", "--at", "60.17"], ["search", "x", "--near", "1,2,3"],
        ["details", "osm:node/1"], ["details", "nonsense"], ["search", "x", "--radius", "100"],
    ])
    func badInputGetsOneClearLineAndANonZeroExit(arguments: [String]) throws {
        let result = try cli.run(arguments: arguments)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("places: "))
        #expect(result.stdout.isEmpty)
    }

    @Test func aCorruptExtractLeavesTheIndexAsItWas() throws {
        let home = try CLIHarness.fresh()
        let before = try home.run("search", "cafe", "--limit", "50", "--json")
        let original = try Data(contentsOf: CLIHarness.embeddedData.appendingPathComponent("helsinki.osm.pbf"))
        let truncated = home.home.appendingPathComponent("truncated.osm.pbf")
        try original.prefix(original.count * 2 / 3).write(to: truncated)
        let failed = try home.run("import", truncated.path)
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("truncated.osm.pbf"), "\(failed.stderr)")
        let after = try home.run("search", "cafe", "--limit", "50", "--json")
        #expect(after.stdout == before.stdout)
    }

    @Test func aFileThatIsNotGeoNamesIsRefused() throws {
        let home = try CLIHarness.fresh()
        let bogus = home.home.appendingPathComponent("cities.txt")
        try Data("this is not\ta geonames dump\n".utf8).write(to: bogus)
        let result = try home.run("import", bogus.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("cities.txt"))
    }
}
