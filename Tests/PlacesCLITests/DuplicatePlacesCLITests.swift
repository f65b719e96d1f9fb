import Foundation
import Testing

/// The Helsinki extract maps some places twice. Pairs found with Python's sqlite3 over the index (same name after
/// folding case and punctuation, haversine ≤ 30 m) and checked on openstreetmap.org:
/// - Aktia (bank): osm:node/464729830 and osm:node/5011656000, 25.0 m apart
/// - IT Interasco (office): osm:node/5011281354 and osm:node/5011281355, 0.0 m apart
@Suite struct DuplicatePlacesCLITests {
    static let aktia: Set<String> = ["osm:node/464729830", "osm:node/5011656000"]
    let cli = CLIHarness.shared

    func places(_ arguments: String...) throws -> [[String: Any]] {
        let result = try cli.run(arguments: arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try result.json() as? [[String: Any]], "\(result.stdoutText)")
    }

    /// One result for the pair: one of the two ids, the other in `alternate_ids`.
    func expectFolded(_ places: [[String: Any]], named name: String, ids: Set<String>, _ context: String) {
        let matches = places.filter { $0["name"] as? String == name }
        #expect(matches.count == 1, "\(context): \(matches.count) results named \(name): \(matches.map { $0["id"] ?? "" })")
        guard let place = matches.first, let id = place["id"] as? String else { return }
        #expect(ids.contains(id), "\(context): \(id)")
        let alternates = Set(place["alternate_ids"] as? [String] ?? [])
        #expect(alternates.isSuperset(of: ids.subtracting([id])), "\(context): alternate_ids \(alternates)")
    }

    @Test func searchAndNearbyListADoubleMappedPlaceOnce() throws {
        expectFolded(try places("search", "aktia", "--near", "60.1687,24.9397"), named: "Aktia", ids: Self.aktia, "search")
        expectFolded(try places("nearby", "--at", "60.1687,24.9397", "--radius", "100", "--category", "bank"),
                     named: "Aktia", ids: Self.aktia, "nearby")
        expectFolded(try places("search", "interasco"), named: "IT Interasco",
                     ids: ["osm:node/5011281354", "osm:node/5011281355"], "search without --near")
        // The table lists it once, too.
        let table = try cli.run("search", "aktia", "--near", "60.1687,24.9397")
        // (A name cell is padded, so "Aktia" alone is followed by two spaces; "Aktia Pankki" 1.2 km away is another bank.)
        #expect(table.stdoutText.split(separator: "\n").filter { $0.contains("  Aktia  ") }.count == 1, "\(table.stdoutText)")
    }

    @Test func eitherIdStillHasItsDetails() throws {
        for id in Self.aktia {
            let result = try cli.run("details", id, "--json")
            #expect(result.status == 0 && result.stdoutText.contains("\"Aktia\""), "\(id): \(result.stderr)")
        }
    }

    @Test func anUnknownCategoryListsTheKnownOnes() throws {
        for command in [["search", "cafe", "--category", "cafee"], ["nearby", "--at", "60.17,24.94", "--category", "cafee"]] {
            let result = try cli.run(arguments: command)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(command)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("unknown category 'cafee' (did you mean cafe?)"), "\(result.stderr)")
            #expect(result.stderr.contains("restaurant") && result.stderr.contains("pharmacy"), "\(result.stderr)")
        }
        // A word people use for a known category is read as it.
        let coffee = try places("nearby", "--at", "60.1699,24.9384", "--radius", "200", "--category", "coffee")
        #expect(!coffee.isEmpty && coffee.allSatisfy { $0["category"] as? String == "cafe" }, "\(coffee.map { $0["category"] ?? "" })")
    }
}
