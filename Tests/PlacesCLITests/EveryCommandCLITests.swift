import Foundation
import Testing

/// Every `places` command a user can type, run through the built binary with its own `$PLACES_HOME`.
///
/// Expected values come from outside the code under test: string_score's published examples
/// (`"Hello World".score("Hello")` is 0.7318181818181818), Google's price list ($32 per 1,000 Text Search
/// Pro calls), GeoNames (Stockholm is geonames:2673730), the README's matching rules, the calendar
/// (21 November 2026 is a Saturday), and pairs and amounts labelled by hand in the tests themselves.
@Suite("Every command through the binary")
struct EveryCommandCLITests {
    let cli = CLIHarness.shared

    /// A fresh home that starts with the shared harness's local index, so commands that need the index
    /// do not build it again (building takes a minute on a loaded machine).
    static func freshWithIndex() throws -> CLIHarness {
        let harness = try CLIHarness.fresh()
        // The database and its write-ahead log (committed pages may still be there), not the lock or shared memory.
        for name in ["index.sqlite", "index.sqlite-wal"] {
            let source = CLIHarness.shared.home.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: harness.home.appendingPathComponent(name))
        }
        return harness
    }

    func object(_ result: CLIHarness.Result) throws -> [String: Any] {
        try #require(try result.json() as? [String: Any], "stdout is not a JSON object: \(result.stdoutText)")
    }

    // MARK: hours

    @Test func hoursSaysOpenOnASaturdayAfternoonAndWhenItCloses() throws {
        // 21 November 2026 is a Saturday; 17:30 falls in "Sa 09:00-18:00"; Helsinki is UTC+2 in November.
        let rule = "Mo-Fr 09:00-19:00; Sa 09:00-18:00; PH off"
        let json = try cli.run("hours", rule, "--at", "2026-11-21T17:30", "--tz", "Europe/Helsinki", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let report = try object(json)
        #expect(report["open_now"] as? Bool == true)
        let next = try #require(report["next_change"] as? [String: Any])
        #expect(next["at"] as? String == "2026-11-21T18:00:00+02:00" && next["state"] as? String == "closed")
        let week = try #require((report["hours"] as? [String: Any])?["week"] as? [[String: Any]])
        #expect(week.map { $0["day"] as? String } == ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"])
        #expect(week.first?["date"] as? String == "2026-11-16")
        #expect((week.last?["intervals"] as? [Any])?.isEmpty == true)

        let table = try cli.run("hours", rule, "--at", "2026-11-22T10:00", "--tz", "Europe/Helsinki")
        #expect(table.status == 0)
        #expect(table.stdoutText.hasPrefix("closed at Sun 2026-11-22 10:00 Europe/Helsinki"), "\(table.stdoutText)")
        #expect(table.stdoutText.contains("opens Mon 2026-11-23 at 09:00 (2026-11-23T09:00:00+02:00)"), "\(table.stdoutText)")
    }

    @Test func hoursSaysOpenOrClosedIsUnknownWhenTheValueCannotBeRead() throws {
        let result = try cli.run("hours", "Mo-Fr 25:00-26:00", "--at", "2026-11-21T17:30", "--tz", "Europe/Helsinki")
        #expect(result.status == 1)
        #expect(result.stdoutText.hasPrefix("unknown at Sat 2026-11-21 17:30 Europe/Helsinki\n"), "\(result.stdoutText)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("start time '25:00' is after 24:00"))
    }

    // MARK: score

    @Test(arguments: [
        // string_score's own examples (Joshaven Potter's README), checked by hand against its algorithm.
        (["Hello World", "Hello"], "0.7318181818181818"),
        (["hello world", "ow"], "0.35454545454545455"),
        (["hello world", "axl"], "0.0"),
        (["hello world", "hello wor1", "--fuzziness", "0.5"], "0.6081818181818182"),
        (["Same Name", "Same Name"], "1.0"),
    ])
    func stringScoreMatchesItsPublishedExamples(arguments: [String], expected: String) throws {
        let result = try cli.run(arguments: ["score", "--algorithm", "stringscore"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == expected + "\n")
    }

    @Test func placeScoreGivesAVerdictAndItsReasons() throws {
        // README: "a name alone is at most review"; the article is not part of the core name.
        let alike = try object(try cli.run("score", "The Cheesecake Factory", "Cheesecake Factory", "--json"))
        #expect(alike["verdict"] as? String == "review")
        let reasons = try #require(alike["reasons"] as? [[String: Any]])
        #expect(reasons.contains { $0["signal"] as? String == "name" && $0["agreement"] as? String == "agrees" })
        // With a phone in common written two ways, the same place is a match.
        let records = try object(try cli.run(
            "score", #"{"name":"Hotel Bel-Air","phone":"310/246-1501"}"#, #"{"name":"Bel-Air Hotel","phone":"+1 310-246-1501"}"#,
            "--region", "US", "--json"))
        #expect(records["verdict"] as? String == "match")
        let unlike = try object(try cli.run("score", "abc", "xyz", "--json"))
        #expect(unlike["verdict"] as? String == "non-match" && unlike["score"] as? Double == 0)
        let table = try cli.run("score", "The Cheesecake Factory", "Cheesecake Factory")
        #expect(table.status == 0 && table.stdoutText.contains("verdict  review"))
    }

    // MARK: match

    /// Four Helsinki places on each side, labelled by hand: L1–R1, L2–R2 and L3–R3 are the same places
    /// (written differently), L4 (Café Regatta) and R4 (Kauppatori) have no partner.
    static let left = """
        id,name,address,city,phone,lat,lon,category
        L1,Maya Bar & Grill,Mikonkatu 18,Helsinki,,60.1721,24.9450,restaurant
        L2,Ateneum,Kaivokatu 2,Helsinki,+358 294 500 401,60.1702,24.9441,museum
        L3,Kiasma,Mannerheiminaukio 2,Helsinki,,60.1718,24.9368,museum
        L4,Café Regatta,Merikannontie 10,Helsinki,,60.1830,24.9096,cafe

        """
    static let right = """
        {"id":"R1","name":"Maya Bar and Grill","address":"Mikonkatu 18","lat":60.17212,"lon":24.94502,"category":"restaurant"}
        {"id":"R2","name":"Ateneum","phone":"+358294500401","lat":60.17025,"lon":24.94405,"category":"museum"}
        {"id":"R3","name":"Kiasma","address":"Mannerheiminaukio 2","lat":60.17183,"lon":24.93684}
        {"id":"R4","name":"Kauppatori","lat":60.1675,"lon":24.9525,"category":"marketplace"}

        """

    @Test func matchPairsTheHandLabelledPlacesOneToOne() throws {
        let home = try CLIHarness.fresh()
        let left = home.home.appendingPathComponent("left.csv"), right = home.home.appendingPathComponent("right.jsonl")
        try Data(Self.left.utf8).write(to: left)
        try Data(Self.right.utf8).write(to: right)
        let result = try home.run("match", left.path, right.path)
        #expect(result.status == 0, "\(result.stderr)")
        var lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.removeFirst() == "left_id,right_id,score,verdict")
        let pairs = Set(lines.map { line -> String in
            let fields = line.split(separator: ",")
            return "\(fields[0])-\(fields[1]) \(fields[3])"
        })
        #expect(pairs == ["L1-R1 match", "L2-R2 match", "L3-R3 match"])
        #expect(result.stderr.contains("3 pairs matched from 4 left and 4 right records"))

        let output = home.home.appendingPathComponent("pairs.csv")
        let written = try home.run("match", left.path, right.path, "--review", "--output", output.path)
        #expect(written.status == 0 && written.stdout.isEmpty)
        #expect(try String(contentsOf: output, encoding: .utf8).split(separator: "\n").count == 4)
    }

    // MARK: providers

    @Test func providersSayWhichAreUsableAndNeverPrintAKey() throws {
        let key = "test-google-key-5f1c9a"
        let environment = ["GOOGLE_PLACES_API_KEY": key, "YELP_API_KEY": "", "FOURSQUARE_API_KEY": ""]
        let json = try cli.run("providers", "--json", environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let providers = try #require(try json.json() as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: providers.map { ($0["name"] as? String ?? "", $0) })
        #expect(Set(byName.keys) == ["google", "yelp", "foursquare", "nominatim"])
        #expect(byName["google"]?["usable"] as? Bool == true)
        // Google's price list: Text Search Pro is $32 per 1,000 calls.
        #expect((byName["google"]?["prices_per_1000"] as? [String: Any])?["google.search.pro"] as? Double == 32)
        #expect(byName["yelp"]?["usable"] as? Bool == false)
        #expect((byName["yelp"]?["reason"] as? String)?.contains("set YELP_API_KEY") == true)
        #expect((byName["nominatim"]?["reason"] as? String)?.contains("contact") == true)
        #expect(!json.stdoutText.contains(key) && !json.stderr.contains(key))

        let table = try cli.run("providers", environment: environment)
        #expect(table.status == 0)
        #expect(table.stdoutText.contains("google     usable"))
        #expect(table.stdoutText.contains("yelp       unusable"))
        #expect(!table.stdoutText.contains(key))
    }

    // MARK: budget

    @Test func budgetSetThenShowInDollarsAndMicroDollars() throws {
        let home = try CLIHarness.fresh()
        try Data("[budget]\ntime_zone = \"Europe/Helsinki\"\n".utf8).write(to: home.home.appendingPathComponent("config.toml"))
        let set = try home.run("budget", "set", "google", "5/day", "50/month")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdoutText == "google: $5.000000 per day\ngoogle: $50.000000 per month\n")
        #expect(try home.run("budget", "set", "overall", "1.50/day").status == 0)

        var report = try object(try home.run("budget", "--json"))
        #expect(report["time_zone"] as? String == "Europe/Helsinki")
        let overallToday = try #require(report["overall_today"] as? [String: Any])
        // Money in dollars, the unit in the key.
        #expect(overallToday["limit_usd"] as? Double == 1.5 && overallToday["spent_usd"] as? Double == 0)
        var google = try #require((report["providers"] as? [[String: Any]])?.first { $0["provider"] as? String == "google" })
        #expect((google["today"] as? [String: Any])?["limit_usd"] as? Double == 5)
        #expect((google["month"] as? [String: Any])?["remaining_usd"] as? Double == 50)

        // `none` lifts a cap; the other period stays.
        #expect(try home.run("budget", "set", "google", "none/month").status == 0)
        report = try object(try home.run("budget", "show", "--json"))
        google = try #require((report["providers"] as? [[String: Any]])?.first { $0["provider"] as? String == "google" })
        #expect((google["month"] as? [String: Any])?["limit_usd"] is NSNull, "no limit: the key stays, as null")
        #expect((google["today"] as? [String: Any])?["limit_usd"] as? Double == 5)

        let table = try home.run("budget")
        #expect(table.status == 0)
        #expect(table.stdoutText.hasPrefix("budget (days in Europe/Helsinki;"), "\(table.stdoutText)")
        #expect(table.stdoutText.contains("$1.5000"))

        let bad = try home.run("budget", "set", "google", "5/week")
        #expect(bad.status != 0 && bad.stdout.isEmpty)
        #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }

    // MARK: cache and lookup

    @Test func aLookupIsCachedCountedPurgedAndVacuumed() throws {
        let home = try Self.freshWithIndex()
        var stats = try object(try home.run("cache", "stats", "--json"))
        #expect(stats["entries"] as? Int == 0)

        let first = try object(try home.run("lookup", "Maya Bar & Grill", "--near", "60.1721,24.9450", "--offline", "--json"))
        #expect(first["id"] as? String == "osm:node/59622323" && first["cache"] as? String == "miss")
        let second = try object(try home.run("lookup", "Maya Bar & Grill", "--near", "60.1721,24.9450", "--offline", "--json"))
        #expect(second["id"] as? String == "osm:node/59622323" && second["cache"] as? String == "hit")

        stats = try object(try home.run("cache", "stats", "--json"))
        #expect(stats["entries"] as? Int == 1 && stats["answers"] as? Int == 1 && stats["negatives"] as? Int == 0)
        let providers = try #require(stats["providers"] as? [[String: Any]])
        #expect(providers.map { $0["provider"] as? String } == ["local"])
        let table = try home.run("cache", "stats")
        #expect(table.stdoutText.hasPrefix("cache \(home.home.path)/cache.sqlite\n"), "\(table.stdoutText)")
        #expect(table.stdoutText.contains("entries   1 (1 answers, 0 not-found, 0 expired)"))

        #expect(try home.run("cache", "purge", "--provider", "google").stdoutText == "removed 0 cache entries\n")
        #expect(try home.run("cache", "purge", "--expired").stdoutText == "removed 0 cache entries\n")
        #expect(try home.run("cache", "purge", "--provider", "local").stdoutText == "removed 1 cache entry\n")
        let vacuum = try home.run("cache", "vacuum")
        #expect(vacuum.status == 0 && vacuum.stdoutText.hasPrefix("cache compacted: "))
        stats = try object(try home.run("cache", "stats", "--json"))
        #expect(stats["entries"] as? Int == 0)
    }

    @Test func lookupPrintsATableAndExplainsOnStderr() throws {
        let result = try cli.run("lookup", "Kiasma", "--near", "60.1718,24.9368", "--offline", "--explain")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("Kiasma  (osm:"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("Mannerheiminaukio 2, 00100 Helsinki"))
        #expect(result.stderr.contains("chain: local ($0.000000)"))
        #expect(result.stderr.contains("stopped: "))
    }

    @Test func lookupBatchAnswersEveryRowAndSaysWhichFoundNothing() throws {
        let home = try Self.freshWithIndex()
        let batch = home.home.appendingPathComponent("batch.csv")
        try Data("""
            id,name,lat,lon
            b1,Maya Bar & Grill,60.1721,24.9450
            b2,Kiasma,60.1718,24.9368
            b3,Zyzzyva Nowhere Sauna,60.1721,24.9450

            """.utf8).write(to: batch)
        let output = home.home.appendingPathComponent("enriched.jsonl")
        let result = try home.run("lookup", "--batch", batch.path, "--offline", "--output", output.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("rows: 3") && result.stderr.contains("accepted: 2") && result.stderr.contains("unanswered: 1"))
        let rows = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let byRow = Dictionary(uniqueKeysWithValues: rows.map { ($0["row_id"] as? String ?? "", $0) })
        #expect(byRow["b1"]?["formatted_address"] as? String == "Mikonkatu 18, 00100 Helsinki")
        #expect(byRow["b2"]?["formatted_address"] as? String == "Mannerheiminaukio 2, 00100 Helsinki")
        #expect(byRow["b3"]?["found"] as? Bool == false)
        // A re-run resumes from the cache: no provider is asked again.
        let again = try home.run("lookup", "--batch", batch.path, "--offline", "--output", output.path)
        #expect(again.status == 0 && again.stderr.contains("cache hits: 3"), "\(again.stderr)")
    }

    // MARK: suggest

    @Test func suggestCompletesACityAndANearbyBar() throws {
        // GeoNames: Stockholm is 2673730; its Finnish name is Tukholma.
        let json = try cli.run("suggest", "tukhol", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let first = try #require((try json.json() as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "geonames:2673730" && first["text"] as? String == "Stockholm")
        let table = try cli.run("suggest", "maya b", "--near", "60.1721,24.9450")
        #expect(table.status == 0)
        #expect(table.stdoutText.hasPrefix("Maya Bar & Grill  Mikonkatu 18, 00100 Helsinki  osm:node/59622323\n"), "\(table.stdoutText)")
    }

    // MARK: config

    @Test func configInitWritesOnceAndShowRedactsSecrets() throws {
        let home = try CLIHarness.fresh()
        let defaults = try home.run("config", "show")
        #expect(defaults.status == 0 && defaults.stdoutText.contains("[providers.google]"))

        let created = try home.run("config", "init")
        #expect(created.status == 0 && created.stdoutText == "wrote \(home.home.path)/config.toml\n")
        let again = try home.run("config", "init")
        #expect(again.status != 0 && again.stderr.contains("--force"))
        #expect(try home.run("config", "init", "--force").status == 0)

        let secret = "sekret-in-file-7d3e"
        try Data("[providers.yelp]\napi_key = \"\(secret)\"\ntimeout_s = 7\n".utf8)
            .write(to: home.home.appendingPathComponent("config.toml"))
        let shown = try home.run("config", "show", environment: ["GOOGLE_PLACES_API_KEY": "env-secret-0a1b"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdoutText.contains("api_key = \"[REDACTED]\""))
        #expect(shown.stdoutText.contains("timeout_s = 7"))
        #expect(!shown.stdoutText.contains(secret) && !shown.stdoutText.contains("env-secret-0a1b"))
    }

    // MARK: --help

    /// Every command path this suite or another CLI test file runs through the binary. A new command fails
    /// ``everyCommandIsTestedAndHasExamples()`` until it gets an end-to-end test and is added here.
    static let testedCommands: Set<String> = [
        "search", "details", "nearby", "reverse", "suggest", "import", "index", "score", "match", "hours", "providers",
        "lookup", "budget show", "budget set", "cache stats", "cache purge", "cache vacuum", "config init", "config show",
        "spots add", "spots list", "spots show", "spots edit", "spots rm", "spots categories", "spots near",
        "spots nearest", "spots refresh", "spots log", "spots visits list", "spots visits edit",
        "spots visits rm", "spots watch", "spots import", "spots export",
        "serve", "storage migrate", "data list", "data fetch", "data update",
    ]

    /// The subcommand names listed under SUBCOMMANDS in a help text.
    static func subcommands(in help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line -> String? in
            // Names are indented by two spaces; wrapped abstracts by many more.
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }.filter { $0 != "See" }
    }

    @Test func everyCommandIsTestedAndHasExamples() throws {
        var pending = [[String]()]
        var leaves: Set<String> = []
        while let path = pending.popLast() {
            let result = try cli.run(arguments: path + ["--help"])
            let name = (["places"] + path).joined(separator: " ")
            #expect(result.status == 0, "\(name) --help failed: \(result.stderr)")
            let help = result.stdoutText
            let children = Self.subcommands(in: help).filter { $0 != "help" }
            if !path.isEmpty {
                #expect(help.contains("Example"), "\(name) --help has no examples")
                let examples = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { $0 == name || $0.hasPrefix(name + " ") }
                #expect(!examples.isEmpty, "\(name) --help has no example that runs \(name)")
            }
            if children.isEmpty { leaves.insert(path.joined(separator: " ")) }
            pending += children.map { path + [$0] }
        }
        #expect(leaves.count >= 30, "the walk found only \(leaves.sorted())")
        #expect(leaves.subtracting(Self.testedCommands).isEmpty, "commands without an end-to-end test: \(leaves.subtracting(Self.testedCommands).sorted())")
        #expect(Self.testedCommands.subtracting(leaves).isEmpty, "listed but not found: \(Self.testedCommands.subtracting(leaves).sorted())")
    }
}
