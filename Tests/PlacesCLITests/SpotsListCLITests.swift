import Foundation
import Testing

/// `spots list`: the note (first line, truncated) and rating in the table; `--sort added|visited`.
@Suite struct SpotsListCLITests {
    func add(_ cli: CLIHarness, _ arguments: String...) throws -> String {
        let result = try cli.run(arguments: ["spots", "add", "--no-address", "--json"] + arguments)
        let spot = try #require(try result.json() as? [String: Any], "\(result.stderr)")
        return try #require(spot["id"] as? String)
    }

    @Test func theTableShowsTheRatingAndTheNoteTruncated() throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1700,24.9400", "--name", "Kiosk", "--rating", "like", "--category", "ice_cream",
                    "--note", "Cinnamon buns on Tuesdays, and the best view of the harbour")
        let result = try cli.run("spots", "list")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.first?.contains("NOTE") == true, "\(result.stdoutText)")
        let row = try #require(lines.first { $0.contains("Kiosk") })
        #expect(row.contains("like"))
        // Categories print as words; --json keeps the key.
        #expect(row.contains("ice cream") && !row.contains("ice_cream"), "\(row)")
        // 23 characters of the note and an ellipsis: 24 columns.
        #expect(row.contains("Cinnamon buns on Tuesda…"), "\(row)")
        #expect(!row.contains("harbour"))
    }

    @Test func filtersByCategoryTagAndRating() throws {
        let cli = try CLIHarness.fresh()
        let kiosk = try add(cli, "--at", "60.1700,24.9400", "--name", "Kiosk", "--category", "cafe", "--tag", "harbour", "--rating", "like")
        let sauna = try add(cli, "--at", "60.1710,24.9410", "--name", "Sauna", "--category", "sauna", "--tag", "harbour",
                            "--rating", "dislike")
        let bar = try add(cli, "--at", "60.1720,24.9420", "--name", "Bar", "--category", "bar")
        func ids(_ filter: String...) throws -> [String] {
            let result = try cli.run(arguments: ["spots", "list", "--json"] + filter)
            return try #require(try result.json() as? [[String: Any]], "\(result.stderr)").compactMap { $0["id"] as? String }
        }
        #expect(try ids("--category", "cafe") == [kiosk])
        #expect(try ids("--tag", "harbour") == [kiosk, sauna])
        #expect(try ids("--rating", "dislike") == [sauna])
        #expect(try ids("--rating", "none") == [bar])
        #expect(try ids("--tag", "harbour", "--rating", "like") == [kiosk])
    }

    @Test func sortByAddedAndByVisited() throws {
        let cli = try CLIHarness.fresh()
        let first = try add(cli, "--at", "60.1700,24.9400", "--name", "Aalto café")
        let second = try add(cli, "--at", "60.1710,24.9410", "--name", "Bar B")
        let third = try add(cli, "--at", "60.1720,24.9420", "--name", "Cafe C")
        func order(_ sort: String) throws -> [String] {
            let result = try cli.run("spots", "list", "--sort", sort, "--json")
            let spots = try #require(try result.json() as? [[String: Any]], "\(result.stderr)")
            return spots.compactMap { $0["id"] as? String }
        }
        #expect(try order("added") == [third, second, first])
        for (spot, time) in [(first, "2026-05-01T10:00:00Z"), (second, "2026-05-03T10:00:00Z"), (first, "2026-05-02T10:00:00Z")] {
            let logged = try cli.run("spots", "log", "--spot", spot, "--time", time)
            #expect(logged.status == 0, "\(logged.stderr)")
        }
        // Bar B last visited on 3 May, Aalto café on 2 May, Cafe C never.
        #expect(try order("visited") == [second, first, third])
        let bad = try cli.run("spots", "list", "--sort", "rating")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'name', 'recent', 'added', 'visited' or 'distance'"), "\(bad.stderr)")
        let noPoint = try cli.run("spots", "list", "--sort", "distance")
        #expect(noPoint.status == 2)
        #expect(noPoint.stderr.contains("--sort distance needs --at LAT,LON"), "\(noPoint.stderr)")
    }
}
