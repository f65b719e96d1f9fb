import Foundation
import GRDB
import Synchronization
import Testing

/// The local index is never trusted half-built (issue 16, item 4): a failed first build leaves nothing,
/// a cut-short or damaged index is repaired on the next run with one line, and two first runs at once
/// both end with a good index.
@Suite struct IndexBuildCLITests {
    static let embeddedCities = "geonames-cities15000.txt.gz"

    /// `reverse` on central Helsinki names the city only when the GeoNames part of the build is there.
    private func expectWholeIndex(_ result: CLIHarness.Result, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        let answer = try #require(try result.json() as? [String: Any], sourceLocation: sourceLocation)
        #expect(answer["city"] as? String == "Helsinki", sourceLocation: sourceLocation)
        #expect(answer["country"] as? String == "FI", sourceLocation: sourceLocation)
    }

    private func lines(_ text: String, containing word: String) -> Int {
        text.split(separator: "\n").filter { $0.contains(word) }.count
    }

    @Test func aBuildThatFailsHalfwayLeavesNothingAndTheNextRunBuildsAgain() throws {
        let cli = try CLIHarness.fresh()
        let failed = try cli.run("reverse", "60.1699,24.9384", "--json",
                                 environment: ["PLACES_TEST_FAIL_BUILD_AFTER": "helsinki.osm.pbf"])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("disk is full"), "\(failed.stderr)")
        #expect(lines(failed.stderr, containing: "places:") == 2, "one line announcing the build, one saying why it failed")

        let next = try cli.run("reverse", "60.1699,24.9384", "--json")
        try expectWholeIndex(next)
        #expect(lines(next.stderr, containing: "building the local index") == 1, "\(next.stderr)")
        let after = try cli.run("reverse", "60.1699,24.9384", "--json")
        try expectWholeIndex(after)
        #expect(after.stderr.isEmpty, "\(after.stderr)")
    }

    @Test func anIndexLeftWithoutItsCitiesIsRepairedWithOneLine() throws {
        let cli = try CLIHarness.fresh()
        try expectWholeIndex(try cli.run("reverse", "60.1699,24.9384", "--json"))
        // What an older build left after "database or disk is full": the OSM places, no cities.
        let database = try DatabaseQueue(path: cli.home.appendingPathComponent("index.sqlite").path)
        try database.write { db in
            try db.execute(sql: """
                DELETE FROM place_fts WHERE rowid IN (SELECT rowid FROM place WHERE source = ?);
                DELETE FROM place_rtree WHERE id IN (SELECT rowid FROM place WHERE source = ?);
                DELETE FROM place WHERE source = ?;
                DELETE FROM city; DELETE FROM source WHERE name = ?;
                """, arguments: [Self.embeddedCities, Self.embeddedCities, Self.embeddedCities, Self.embeddedCities])
        }
        try database.close()

        let repaired = try cli.run("reverse", "60.1699,24.9384", "--json")
        try expectWholeIndex(repaired)
        #expect(lines(repaired.stderr, containing: "is incomplete") == 1, "\(repaired.stderr)")
        #expect(repaired.stderr.contains(Self.embeddedCities))
        let after = try cli.run("reverse", "60.1699,24.9384", "--json")
        #expect(after.stderr.isEmpty, "\(after.stderr)")
    }

    /// A warm search only reads the index. It used to open it through GRDB's pool, which creates and drops a table
    /// whenever the `-wal` file is missing (as it is after every command): SQLite's schema version went up by two,
    /// with four syncs, on every `places search`.
    @Test func aSearchWritesNothingToTheIndex() throws {
        let cli = try CLIHarness.fresh()
        try expectWholeIndex(try cli.run("reverse", "60.1699,24.9384", "--json"))
        let path = cli.home.appendingPathComponent("index.sqlite").path
        let schemaVersion = { try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA schema_version") } }
        let before = try #require(try schemaVersion())
        for _ in 0..<2 {
            let search = try cli.run("search", "maya bar", "--near", "60.1721,24.9450", "--json")
            #expect(search.status == 0 && search.stdoutText.contains("Maya"), "\(search.stderr)")
        }
        #expect(try schemaVersion() == before)
    }

    @Test func aTruncatedIndexFileIsSetAsideAndRebuilt() throws {
        let cli = try CLIHarness.fresh()
        try expectWholeIndex(try cli.run("reverse", "60.1699,24.9384", "--json"))
        let path = cli.home.appendingPathComponent("index.sqlite")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? NSNumber).intValue
        let handle = try FileHandle(forWritingTo: path)
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()

        let repaired = try cli.run("reverse", "60.1699,24.9384", "--json")
        try expectWholeIndex(repaired)
        #expect(lines(repaired.stderr, containing: "is damaged") == 1, "\(repaired.stderr)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter { $0.hasPrefix("index.sqlite.damaged-") }
        #expect(kept.count == 1, "the damaged file is kept for inspection")
    }

    @Test func twoFirstRunsAtOnceBothEndWithAGoodIndex() throws {
        let cli = try CLIHarness.fresh()
        let results = Mutex<[CLIHarness.Result]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = try? cli.run("reverse", "60.1699,24.9384", "--json")
            results.withLock { $0.append(contentsOf: result.map { [$0] } ?? []) }
        }
        let both = results.withLock { $0 }
        #expect(both.count == 2)
        for result in both { try expectWholeIndex(result) }
        let builds = both.map { lines($0.stderr, containing: "building the local index") }.reduce(0, +)
        #expect(builds == 1, "the second process waits for the first build and uses it")
    }
}
