import Foundation
import Testing

/// Every command's JSON has exactly the keys docs/json.md lists: the "Always" keys in every object (null when
/// unknown), the "When it applies" keys only when they apply, nothing undocumented. The lists are read from the page
/// itself, so page and output cannot drift. Coordinates have at most 7 decimals; money keys say their unit.
@Suite struct JSONShapeCLITests {
    struct Shape { var always: Set<String>; var conditional: Set<String> }

    /// The shapes of docs/json.md, by heading (`## place` → "place").
    static let shapes: [String: Shape] = {
        let url = CLIHarness.repositoryRoot.appendingPathComponent("docs/json.md")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var shapes: [String: Shape] = [:]
        for section in text.components(separatedBy: "\n## ").dropFirst() {
            let name = String(section.prefix { $0 != "\n" })
            // A list runs from its label to the next blank line; its keys are the backquoted words in it.
            func keys(after label: String) -> Set<String> {
                guard let start = section.range(of: label + ":") else { return [] }
                let paragraph = section[start.upperBound...].components(separatedBy: "\n\n")[0]
                let parts = paragraph.components(separatedBy: "`")
                return Set(stride(from: 1, to: parts.count, by: 2).map { parts[$0] })
            }
            shapes[name] = Shape(always: keys(after: "Always"), conditional: keys(after: "When it applies"))
        }
        return shapes
    }()

    let cli = CLIHarness.shared

    func check(_ object: Any?, is shapeName: String, _ context: String) throws {
        let shape = try #require(Self.shapes[shapeName], "docs/json.md has no `## \(shapeName)` section")
        #expect(!shape.always.isEmpty, "the `## \(shapeName)` section lists no keys")
        let dictionary = try #require(object as? [String: Any], "\(context): not an object: \(String(describing: object))")
        let keys = Set(dictionary.keys)
        #expect(shape.always.isSubset(of: keys), "\(context): missing \(shape.always.subtracting(keys).sorted())")
        #expect(keys.isSubset(of: shape.always.union(shape.conditional)),
                "\(context): undocumented \(keys.subtracting(shape.always.union(shape.conditional)).sorted())")
    }

    func json(_ arguments: String...) throws -> (value: Any, text: String) {
        let result = try cli.run(arguments: arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return (try result.json(), result.stdoutText)
    }

    /// No number after a `"lat"`/`"lon"` key or in a GeoJSON pair has more than 7 decimals.
    func expectCoordinatesRounded(_ text: String, _ context: String) throws {
        let pattern = try Regex(#""(?:lat|lon)":\s*-?\d+\.(\d+)"#)
        for match in text.matches(of: pattern) {
            let decimals = match.output[1].substring?.count ?? 0
            #expect(decimals <= 7, "\(context): \(match.output[0].substring ?? "")")
        }
    }

    @Test func placeCommandsPrintTheDocumentedKeys() throws {
        let search = try json("search", "cafe", "--near", "60.1699,24.9384", "--limit", "5", "--json")
        let places = try #require(search.value as? [Any])
        #expect(!places.isEmpty)
        for place in places { try check(place, is: "place", "search --near") }
        // With a reference point the conditional keys that need one are there.
        #expect((places.first as? [String: Any])?["distance_m"] != nil)
        try expectCoordinatesRounded(search.text, "search")

        let nearby = try json("nearby", "--at", "60.1699,24.9384", "--limit", "5", "--json")
        for place in try #require(nearby.value as? [Any]) { try check(place, is: "place", "nearby") }
        try expectCoordinatesRounded(nearby.text, "nearby")

        // An artwork in the extract (Kilpiveistos, checked on openstreetmap.org) has no address: the key stays, as null.
        let details = try json("details", "osm:node/5301171692", "--json")
        try check(details.value, is: "place", "details")
        #expect((details.value as? [String: Any])?["address"] is NSNull, "\(details.text)")
        try expectCoordinatesRounded(details.text, "details")

        let geojson = try json("search", "cafe", "--near", "60.1699,24.9384", "--limit", "3", "--geojson")
        let features = try #require((geojson.value as? [String: Any])?["features"] as? [[String: Any]])
        for feature in features {
            try check(feature["properties"], is: "place", "--geojson properties")
            let pair = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            for degrees in pair { #expect((degrees * 10_000_000).rounded() / 10_000_000 == degrees, "\(pair)") }
        }
    }

    @Test func reverseAndSuggestPrintTheDocumentedKeys() throws {
        let reverse = try json("reverse", "60.16991234567,24.93841234567", "--json")
        try check(reverse.value, is: "reverse", "reverse")
        try check((reverse.value as? [String: Any])?["nearest"], is: "place", "reverse's nearest")
        // The point given with 11 decimals comes back with 7.
        #expect((reverse.value as? [String: Any])?["lat"] as? Double == 60.1699123, "\(reverse.text)")
        try expectCoordinatesRounded(reverse.text, "reverse")

        let suggest = try json("suggest", "hels", "--json")
        let suggestions = try #require(suggest.value as? [Any])
        #expect(!suggestions.isEmpty)
        for suggestion in suggestions { try check(suggestion, is: "suggestion", "suggest") }
        try expectCoordinatesRounded(suggest.text, "suggest")
    }

    @Test func theBudgetPrintsDollarsWithTheUnitInTheKey() throws {
        let home = try CLIHarness.fresh()
        #expect(try home.run("budget", "set", "google", "2.5/day").status == 0)
        let result = try home.run("budget", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let budget = try result.json() as? [String: Any]
        try check(budget, is: "budget", "budget")
        try check(budget?["overall_today"], is: "budget period", "budget overall_today")
        try check(budget?["overall_month"], is: "budget period", "budget overall_month")
        let providers = try #require(budget?["providers"] as? [[String: Any]])
        for provider in providers {
            try check(provider, is: "budget provider", "budget provider")
            try check(provider["today"], is: "budget period", "budget provider today")
            try check(provider["month"], is: "budget period", "budget provider month")
        }
        let google = try #require(providers.first { $0["provider"] as? String == "google" })
        #expect((google["today"] as? [String: Any])?["limit_usd"] as? Double == 2.5, "\(result.stdoutText)")
    }
}
