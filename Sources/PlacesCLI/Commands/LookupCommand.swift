import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore
import PlacesPipeline

struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find one specific place as cheaply as possible: cache, free sources, then paid ones under a budget.",
        discussion: """
            The cache is consulted first. Then providers are asked in increasing cost (local index, Nominatim, \
            Foursquare, Yelp, Google, skipping any without a key); each candidate is scored by the fuzzy matcher \
            on name, distance from --near, and phone/address when given. The first confident match that has \
            every --fields value ends the lookup; answers for the same place are merged field by field.
            A paid call is made only if the budget allows it (`places budget`); otherwise the best free answer \
            is printed, flagged budget_exhausted, with a note on stderr and exit status 0.
            A doubtful candidate is still shown, marked "not sure" (verdict review in JSON), and the same lookup \
            gives the same answer until the cache forgets it.
            A name several nearby places fit equally well ("Kalmari" beside Kalmari Grill and Kalmari Pizzeria) \
            is ambiguous: a paid provider would only answer with its own guess, so none is asked. The answer is \
            "not sure — did you mean: Kalmari Grill (12 m), Kalmari Pizzeria (30 m)?" (JSON: "ambiguous": true \
            and "did_you_mean"), exit status 0, nothing spent. Type the full name to pick one, or pass \
            --pay-when-ambiguous ([pipeline] pay_when_ambiguous = true in config.toml) to pay anyway. A provider that fails is named on stderr \
            ("places: yelp failed: …; answered from local") and in the JSON's errors.
            Exit status 1 means no plausible candidate was found (unless the budget stopped the search: then 0).

            Examples:
              places lookup "Maya Bar & Grill" --near 60.1721,24.9450 --fields phone,hours
              places lookup "Maya Bar & Grill" --near 60.1721,24.9450 --explain --max-cost 0.05
              places lookup "Kiasma" --offline --json
              places lookup "Kalmari" --near 60.1721,24.9450 --pay-when-ambiguous
              places lookup --batch shops.csv --output enriched.jsonl --fields phone,website
            Batch files use the columns of `places match`: id,name,address,city,phone,lat,lon,category,country \
            (CSV with a header, or JSON lines). Re-running a batch resumes it: answered rows come from the cache.
            """)

    @Argument(help: "The place's name (omit with --batch).")
    var name: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Where the place is, roughly.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(help: "Street address, to help the matcher.")
    var address: String?

    @Option(help: "Phone number, to help the matcher.")
    var phone: String?

    @Option(help: ArgumentHelp("Fields the answer must have before the lookup stops paying (phone,website,hours,…).",
                               valueName: "LIST"), transform: FieldList.argument)
    var fields: Set<PlaceField>?

    @Flag(help: "Print every step on stderr: cache status, providers tried, candidates, scores, cost, why it stopped.")
    var explain = false

    @Option(name: .customLong("max-cost"), help: ArgumentHelp("Spend at most this many dollars on this lookup (per row with --batch).", valueName: "USD"), transform: MicroDollars.argument)
    var maxCost: MicroDollars?

    @Flag(help: "Use only the cache and the local index.")
    var offline = false

    @Flag(name: .customLong("pay-when-ambiguous"),
          help: "Ask paid providers even when several nearby places fit the name equally (they answer with a guess).")
    var payWhenAmbiguous = false

    @Option(help: ArgumentHelp("Look up every row of a CSV or JSON-lines file.", valueName: "FILE"))
    var batch: String?

    @Option(help: ArgumentHelp("With --batch, write JSON lines here instead of stdout.", valueName: "FILE"))
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --batch, lookups in flight at once (default from config).", valueName: "N"))
    var concurrency: Int?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        if let concurrency, !(1...256).contains(concurrency) {
            throw ValidationError("invalid --concurrency \(concurrency): expected 1…256 lookups in flight")
        }
        if batch != nil && name != nil { throw ValidationError("give either a NAME or --batch FILE, not both") }
        if batch == nil && (name ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("missing NAME: say which place to look up, or use --batch FILE")
        }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let requested = fields
            let app = try state.openApp()
            if let batch {
                try await runBatch(app, BatchLookupRequest(file: URL(fileURLWithPath: batch), extraFields: requested ?? [],
                                                           maxCostPerRow: maxCost, offline: offline,
                                                           payWhenAmbiguous: payWhenAmbiguous, concurrency: concurrency))
                return
            }
            let name = name ?? ""
            // Show the usual fields when known, but pay only for the ones asked for.
            let request = LookupRequest.asking(MatchQuery(name: name, near: near, address: address, phone: phone),
                                               for: requested ?? [], maxCost: maxCost, offline: offline,
                                               payWhenAmbiguous: payWhenAmbiguous)
            let outcome = try await app.lookup(request)
            if explain {
                printError("lookup \"\(name)\"" + (near.map { " near \($0)" } ?? ""))
                printError("  chain: " + (try app.lookupChain(for: request))
                    .map { "\($0.provider) (\($0.quote.cost))" }.joined(separator: " → "))
                for (provider, reason) in try app.unusableProviders() {
                    printError("  unusable \(provider): \(reason)")
                }
                for step in outcome.steps { printError("  " + step.description.replacingOccurrences(of: "\n", with: "\n  ")) }
            }
            if let note = outcome.budgetNote, outcome.budgetExhausted {
                printError("places: note: budget exhausted (\(note)); showing the best cheaper answer")
            }
            for line in Self.failureLines(outcome) { printError(line) }
            if outcome.cache == .stale {
                printError("places: note: every provider failed; showing an expired cached answer (stale)")
            }
            if json {
                printData(try PlacesJSON.lookup(outcome, reference: near, pretty: isTerminal(.standardOutput)))
            } else if let place = outcome.place {
                print(Self.render(place, outcome, query: request.query), terminator: "")
            }
            // A budget stop is not a failure: the user set the limit, and the note above says what happened.
            if outcome.place == nil && !outcome.budgetExhausted {
                if !json && outcome.failures.isEmpty { printError("places: no place matching \"\(name)\" was found") }
                throw ExitCode(1)
            }
            if outcome.place == nil && !json {
                printError("places: no cheaper source knows \"\(name)\"; raise the budget (`places budget set`) to ask the paid ones")
            }
        }
    }

    private func runBatch(_ app: PlacesApplication, _ request: BatchLookupRequest) async throws {
        let sink = try BatchSink(path: output)
        let progress = ProgressBar.ifWanted(label: "lookup")
        let summary = try await app.lookupBatch(request) { result, done, total in
            try sink.write(PlacesJSON.batchLine(result))
            progress?.update(done: Int64(done), total: Int64(total))
        }
        progress?.finish()
        try sink.close()
        for line in summary.lines { printError(line) }
    }

    /// One stderr line per failed provider, saying what the answer rests on instead:
    /// `places: yelp failed: 503 UNAVAILABLE; answered from local`. A failure is never silent.
    static func failureLines(_ outcome: LookupOutcome) -> [String] {
        let fallback = outcome.cache == .stale ? "answered from an expired cache entry"
            : outcome.answeredBy.map { "answered from \($0)" } ?? "no other source knew the place; exit status 1"
        return outcome.failures.map { "places: \($0.provider) failed: \($0.message); \(fallback)" }
    }

    static func render(_ place: Place, _ outcome: LookupOutcome, query: MatchQuery) -> String {
        let reference = query.near
        var lines = ["\(place.name)  (\(place.id))"]
        func add(_ label: String, _ value: String?) { if let value { lines.append("  \(label.padding(toLength: 9, withPad: " ", startingAt: 0)) \(value)") } }
        add("address", place.formattedAddress ?? place.address?.formatted)
        add("phone", place.phone)
        add("website", place.website)
        add("hours", place.openingHoursText)
        add("category", place.category)
        if let reference {
            add("distance", String(format: "%.0f m", GeoMath.distance(reference, place.coordinate)))
        }
        if let match = outcome.match {
            add("match", String(format: "%@ (%.2f)", match.verdict.rawValue, match.score))
            if !outcome.ambiguousCandidates.isEmpty {
                let names = outcome.ambiguousCandidates.map(\.name)
                let listed = outcome.ambiguousCandidates.map { candidate in
                    // Namesakes (the street Simonkatu and the restaurant on it) say what each is.
                    let kind = names.count { $0 == candidate.name } > 1
                        ? candidate.categoryLabel.map(PlaceTable.words) : nil
                    let distance = reference.map { String(format: "%.0f m", GeoMath.distance($0, candidate.coordinate)) }
                    let details = [kind, distance].compactMap { $0 }
                    return candidate.name + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
                }
                add("not sure", "— did you mean: \(listed.joined(separator: ", "))?")
            } else if match.verdict != .match {
                // Only the options not given yet: asked with --near, "add --near" said nothing.
                let untried = [("--near", query.near == nil), ("--address", query.address == nil), ("--phone", query.phone == nil)]
                    .filter(\.1).map(\.0)
                let hint = untried.isEmpty ? "" : "add " + (untried.count == 1 ? untried[0]
                    : untried.dropLast().joined(separator: ", ") + " or " + untried[untried.count - 1]) + ", or "
                add("not sure", "this may not be the place you meant; \(hint)see --explain")
            }
        }
        add("cost", outcome.cost.description)
        add("cache", outcome.cache.rawValue + (outcome.budgetExhausted ? ", budget exhausted" : ""))
        let sources = Set(place.provenance.values.map(\.provider)).sorted()
        if !sources.isEmpty { add("sources", sources.joined(separator: ", ")) }
        add("note", place.attribution)
        return lines.map { TerminalText.safe($0) }.joined(separator: "\n") + "\n"
    }
}

/// Where batch lines go: a file (created or truncated) or stdout.
private final class BatchSink: @unchecked Sendable {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private let lock = NSLock()

    init(path: String?) throws {
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw InputError("cannot write --output \(path): check the folder exists and is writable")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            ownsHandle = true
        } else {
            handle = .standardOutput
            ownsHandle = false
        }
    }

    func write(_ line: Data) throws {
        try lock.withLock {
            try handle.write(contentsOf: line)
            try handle.write(contentsOf: Data("\n".utf8))
        }
    }

    func close() throws { if ownsHandle { try handle.close() } }
}
