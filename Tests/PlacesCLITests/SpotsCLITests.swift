import Foundation
import LoopbackSocket
import GRDB
import PlacesCore
import SpotStore
import Testing

/// `places spots …` run as a user runs it: the built binary, its own `$PLACES_HOME`.
@Suite("places spots CLI")
struct SpotsCLITests {
    func json(_ result: CLIHarness.Result) throws -> Any {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try result.json()
    }

    func add(_ cli: CLIHarness, _ arguments: String...) throws -> [String: Any] {
        let result = try cli.run(arguments: ["spots", "add", "--no-address", "--json"] + arguments)
        return try #require(try json(result) as? [String: Any])
    }

    /// Listing spots only reads them. The spots database used to be opened through GRDB's pool, which creates and
    /// drops a table whenever the `-wal` file is missing (as it is after every command), so every `spots list`
    /// wrote to the user's data and waited for its syncs.
    @Test func listingSpotsWritesNothingToTheirDatabase() throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum")
        let path = cli.home.appendingPathComponent("spots.sqlite").path
        let schemaVersion = { try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA schema_version") } }
        let before = try #require(try schemaVersion())
        for _ in 0..<2 {
            let listed = try cli.run("spots", "list", "--json")
            #expect(listed.status == 0 && listed.stdoutText.contains("Ateneum"), "\(listed.stderr)")
        }
        #expect(try schemaVersion() == before)
    }

    @Test func saveListEditNearLogVisitsAndRemove() throws {
        let cli = try CLIHarness.fresh()
        let cathedral = try add(cli, "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral", "--category", "place_of_worship", "--tag", "view")
        let ateneum = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum", "--category", "museum", "--rating", "like", "--note", "Finnish art")
        _ = try add(cli, "--at", "60.16945,24.9365", "--name", "Kamppi Chapel", "--tag", "quiet")
        #expect(ateneum["rating"] as? String == "like" && ateneum["notes"] as? String == "Finnish art")
        #expect(cathedral["tags"] as? [String] == ["view"])

        // A second save of the same place is refused with one line naming the saved spot.
        let duplicate = try cli.run("spots", "add", "--no-address", "--at", "60.17001,24.95221", "--name", "Helsinki cathedral")
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("already saved as 'Helsinki Cathedral'"))

        let listed = try #require(try json(cli.run("spots", "list", "--json")) as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["Ateneum", "Helsinki Cathedral", "Kamppi Chapel"])
        let liked = try #require(try json(cli.run("spots", "list", "--rating", "like", "--json")) as? [[String: Any]])
        #expect(liked.map { $0["name"] as? String } == ["Ateneum"])
        let grouped = try #require(try json(cli.run("spots", "list", "--group-by", "category", "--json")) as? [String: [[String: Any]]])
        #expect(Set(grouped.keys) == ["museum", "place_of_worship", "uncategorized"])

        let ateneumID = try #require(ateneum["id"] as? String)
        let edited = try cli.run("spots", "edit", String(ateneumID.prefix(6)), "--add-tag", "rainy-day", "--rating", "none", "--json")
        let editedSpot = try #require(try json(edited) as? [String: Any])
        #expect(editedSpot["tags"] as? [String] == ["rainy-day"])
        #expect(editedSpot["rating"] is NSNull)
        let shown = try cli.run("spots", "show", String(ateneumID.prefix(8)))
        #expect(shown.status == 0 && shown.stdoutText.contains("rainy-day"))

        let near = try #require(try json(cli.run("spots", "near", "--at", "60.1700,24.9410", "--json")) as? [[String: Any]])
        #expect(near.map { $0["name"] as? String } == ["Ateneum", "Kamppi Chapel", "Helsinki Cathedral"])
        #expect(near[0]["bearing"] as? String == "E")
        #expect((near[0]["distance_m"] as? Double).map { $0 > 150 && $0 < 200 } == true)
        let close = try #require(try json(cli.run("spots", "near", "--at", "60.1700,24.9410", "--radius", "200", "--json")) as? [[String: Any]])
        #expect(close.count == 1)
        let nearest = try #require(try json(cli.run("spots", "nearest", "--at", "60.1700,24.9600", "--limit", "2", "--json")) as? [[String: Any]])
        #expect(nearest.map { $0["name"] as? String } == ["Helsinki Cathedral", "Ateneum"])

        let categories = try #require(try json(cli.run("spots", "categories", "--json")) as? [[String: Any]])
        #expect(categories.count == 3)

        #expect(try cli.run("spots", "log", "--spot", String(ateneumID.prefix(8)), "--note", "Late show", "--time", "2026-05-02T00:30:00+03:00").status == 0)
        #expect(try cli.run("spots", "log", "--at", "60.1675,24.9525", "--note", "Salmon soup", "--time", "2026-05-01T12:00:00+03:00").status == 0)
        let days = try #require(try json(cli.run("spots", "visits", "--json")) as? [[String: Any]])
        #expect(days.map { $0["day"] as? String } == ["2026-05-01", "2026-05-02"])
        let lateShow = try #require((days[1]["visits"] as? [[String: Any]])?.first)
        #expect(lateShow["spot_name"] as? String == "Ateneum")
        #expect(lateShow["time"] as? String == "2026-05-02T00:30:00+03:00")
        let oneDay = try #require(try json(cli.run("spots", "visits", "--day", "2026-05-01", "--json")) as? [[String: Any]])
        #expect(oneDay.count == 1)

        // rm asks; from a script without --yes it refuses instead of hanging.
        let refused = try cli.run("spots", "rm", String(ateneumID.prefix(8)))
        #expect(refused.status != 0 && refused.stderr.contains("add --yes"))
        #expect(try cli.run("spots", "rm", String(ateneumID.prefix(8)), "--yes").status == 0)
        let remaining = try #require(try json(cli.run("spots", "list", "--json")) as? [[String: Any]])
        #expect(remaining.count == 2)
        let unknown = try cli.run("spots", "show", "ffffffff")
        #expect(unknown.status == 2 && unknown.stderr.hasPrefix("places: unknown spot"))
    }

    @Test(arguments: ["geojson", "gpx", "kml", "csv"])
    func exportThenImportIntoAnEmptyHomeKeepsEverySpot(format: String) throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum", "--category", "museum", "--tag", "art", "--tag", "a, b", "--note", "Line one\nLine \"two\"")
        _ = try add(cli, "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral", "--rating", "dislike")
        #expect(try cli.run("spots", "log", "--at", "60.1675,24.9525", "--note", "Coffee", "--time", "2026-05-01T12:00:00+03:00").status == 0)
        let file = cli.home.appendingPathComponent("export.\(format)")
        #expect(try cli.run("spots", "export", "--format", format, "--output", file.path).status == 0)

        let other = try CLIHarness.fresh()
        let imported = try other.run("spots", "import", file.path)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        #expect(try other.run("spots", "list", "--json").stdout == cli.run("spots", "list", "--json").stdout)
        if format == "geojson" {
            #expect(try other.run("spots", "visits", "--json").stdout == cli.run("spots", "visits", "--json").stdout)
        }
        // Importing the same file again finds every spot already saved.
        let again = try other.run("spots", "import", file.path, "--json")
        let report = try #require(try json(again) as? [String: Any])
        #expect(report["added"] as? Int == 0)
        #expect((report["duplicates"] as? [Any])?.count == 2)
    }

    @Test func replacingImportWritesABackupFirst() throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum")
        let backup = cli.home.appendingPathComponent("backup.geojson")
        #expect(try cli.run("spots", "export", "--output", backup.path).status == 0)
        _ = try add(cli, "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral")
        let restored = try cli.run("spots", "import", backup.path, "--replace", "--json")
        let report = try #require(try json(restored) as? [String: Any])
        let backupPath = try #require(report["backup"] as? String)
        #expect(backupPath.contains("spots-backup-"))
        let saved = try String(contentsOfFile: backupPath, encoding: .utf8)
        #expect(saved.contains("Helsinki Cathedral"))
        let names = try #require(try json(cli.run("spots", "list", "--json")) as? [[String: Any]]).map { $0["name"] as? String }
        #expect(names == ["Ateneum"])
    }

    @Test func takeoutSavedPlacesImportThroughTheCLI() throws {
        let cli = try CLIHarness.fresh()
        let file = cli.home.appendingPathComponent("Saved Places.json")
        try Data(SpotsCLITests.takeout.utf8).write(to: file)
        let result = try cli.run("spots", "import", file.path)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("imported 2 spots"))
        let spots = try #require(try json(cli.run("spots", "list", "--json")) as? [[String: Any]])
        #expect(spots.map { $0["name"] as? String } == ["Café Regatta", "Löyly"])
        #expect(spots[1]["url"] as? String == "http://maps.google.com/?cid=11254585613837298911")
    }

    @Test func watchPrintsEnterAndExitEventsAsJSONLines() throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum")
        _ = try add(cli, "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral")
        let fixes = """
            60.1700,24.9400,5,2026-05-01T07:00:00Z
            60.1700,24.9425,5,2026-05-01T07:00:10Z
            60.1700,24.9441,80,2026-05-01T07:00:20Z
            not a fix
            60.1700,24.9462,5,2026-05-01T07:00:30Z
            60.1700,24.9465,5,2026-05-01T07:00:40Z
            60.1700,24.9510,5,2026-05-01T07:00:50Z
            60.1700,24.9600,5,2026-05-01T07:01:00Z

            """
        let result = try cli.run("spots", "watch", "--radius", "100", "--exit-margin", "30", stdin: Data(fixes.utf8))
        #expect(result.status == 0)
        let events = try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let summary = events.map { "\($0["event"] as? String ?? "") \(($0["spot"] as? [String: Any])?["name"] as? String ?? "") \($0["time"] as? String ?? "")" }
        #expect(summary == [
            "enter Ateneum 2026-05-01T07:00:10Z", "exit Ateneum 2026-05-01T07:00:40Z",
            "enter Helsinki Cathedral 2026-05-01T07:00:50Z", "exit Helsinki Cathedral 2026-05-01T07:01:00Z",
        ])
        #expect(result.stderr.contains("line 4"))
        #expect(result.stderr.contains("ignored 1 of 7 fixes"))
    }

    @Test func twoProcessesAddingAtOnceLoseNothing() async throws {
        let cli = try CLIHarness.fresh()
        let count = Int(ProcessInfo.processInfo.environment["SPOTS_CONCURRENT_ADDS"] ?? "") ?? 500
        // Each writer is one shell process that runs `places spots add` `count` times; both run at once.
        let writers = (0..<2).map { writer -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", """
                i=0; while [ $i -lt \(count) ]; do
                  "$PLACES" spots add --no-address --at "$((40 + i / 50)).$((1000 + (i % 50) * 100)),2\(writer).5" --name "writer \(writer) spot $i" > /dev/null || exit 1
                  i=$((i + 1))
                done
                """]
            var environment = ProcessInfo.processInfo.environment
            environment["PLACES_HOME"] = cli.home.path
            environment["PLACES"] = CLIHarness.executable.path
            process.environment = environment
            return process
        }
        for writer in writers { try ProcessLaunch.run(writer) }
        for writer in writers { writer.waitUntilExit() }
        #expect(writers.allSatisfy { $0.terminationStatus == 0 })
        let store = try SQLiteSpotStore(path: cli.home.appendingPathComponent("spots.sqlite"))
        #expect(try await store.count() == 2 * count)
    }

    @Test func killingALargeImportLeavesCommittedSpotsIntactAndNothingPartial() async throws {
        let cli = try CLIHarness.fresh()
        _ = try add(cli, "--at", "60.1702,24.9441", "--name", "Ateneum", "--tag", "art")
        _ = try add(cli, "--at", "60.1700,24.9522", "--name", "Helsinki Cathedral")
        let path = cli.home.appendingPathComponent("spots.sqlite")
        let before = try await SQLiteSpotStore(path: path).allSpots()

        // 20,000 spots on a grid over southern Finland, in one GeoJSON file.
        var features: [String] = []
        for n in 0..<20_000 {
            let lat = 60.0 + Double(n / 200) * 0.005, lon = 22.0 + Double(n % 200) * 0.02
            features.append(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"name":"Bulk \#(n)"}}"#)
        }
        let file = cli.home.appendingPathComponent("bulk.geojson")
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: file)

        let process = Process()
        process.executableURL = CLIHarness.executable
        process.arguments = ["spots", "import", file.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["PLACES_HOME": cli.home.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        // Kill it once its transaction has started writing (the WAL grows), or after 20 s at most.
        let wal = cli.home.appendingPathComponent("spots.sqlite-wal")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, process.isRunning {
            let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
            if size > 2_000_000 { break }
            usleep(5_000)
        }
        let killedMidway = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        let after = try SQLiteSpotStore(path: path)
        let count = try await after.count()
        #expect(count == before.count || count == before.count + 20_000, "a partial import left \(count) spots")
        if killedMidway { #expect(count == before.count) }
        for spot in before { #expect(try await after.spot(id: spot.id) == spot) }
        let integrity = try await after.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }

    static let takeout = """
        {"type": "FeatureCollection", "features": [
          {"geometry": {"coordinates": [24.9417449, 60.1520763], "type": "Point"},
           "properties": {"Google Maps URL": "http://maps.google.com/?cid=11254585613837298911",
             "Location": {"Address": "Hernesaarenranta 4, 00150 Helsinki, Finland", "Business Name": "Löyly",
               "Country Code": "FI", "Geo Coordinates": {"Latitude": "60.1520763", "Longitude": "24.9417449"}},
             "Published": "2021-10-19T11:05:03Z", "Title": "Löyly", "Updated": "2021-10-19T11:05:03Z"}, "type": "Feature"},
          {"geometry": {"coordinates": [24.9095513, 60.1830467], "type": "Point"},
           "properties": {"Google Maps URL": "http://maps.google.com/?cid=4917013585128187949",
             "Location": {"Address": "Merikannontie 10, 00260 Helsinki, Finland", "Business Name": "Café Regatta",
               "Geo Coordinates": {"Latitude": 60.1830467, "Longitude": 24.9095513}},
             "Published": "2022-06-01T08:00:00Z", "Title": "Café Regatta"}, "type": "Feature"}
        ]}
        """
}
