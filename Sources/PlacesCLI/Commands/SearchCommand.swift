import ArgumentParser
import PlacesApp
import PlacesCore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find places by name or words, optionally near a point.",
        discussion: """
            Places are POIs, cities, and the streets, squares, parts of a city and postcodes an extract names \
            ("Mannerheimintie", "Narinkkatori", "Kamppi", "00100"; `nearby` and `reverse` list POIs only). \
            Every name a place has counts (other languages, old and short names, GeoNames alternate names: \
            "Tukholma" finds Stockholm, and JSON says which name matched), and so does its address \
            ("Mikonkatu 18", "18 Mikonkatu", "Mikonkatu 18, Helsinki"). Case, accents, punctuation and spacing \
            do not matter ("rkioski" finds "R-kioski"); a word with a typo is corrected (results marked \
            fuzzy), and when nothing is found a "did you mean" line says what was meant. Category words \
            ("chemist", "bookshop", "cash machine") list real members of the category first. "What near where" \
            ("pharmacy near kiasma", "sushi in kamppi", "atm near me" with --near) looks around the place named, \
            nearest first, and says which place that was.
            Without --near, important places (big cities, famous sights) come first; with --near, results \
            blend relevance, importance and distance, and each result shows how far it is.

            Examples:
              places search "maya bar" --near 60.1721,24.9450
              places search pizza --near 60.17,24.94 --radius 500 --category restaurant --json
              places search sushi --near 60.17,24.94 --open-now
              places search Tukholma
              places search "Mikonkatu 18"
              places search chemist --near 60.1699,24.9450
              places search "pharmacy near kiasma"
            """)

    @Argument(help: "Words to look for in place names.")
    var query: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Rank and measure distance from this point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --near, or a place named after \"near\", only places within this many metres of it.", valueName: "M"),
            transform: Metres.argument)
    var radius: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many results.", valueName: "N"), transform: ResultLimit.argument)
    var limit: Int = SearchQuery.defaultLimit

    @Option(help: ArgumentHelp("Only this normalised category (cafe, restaurant, bar, shop, …).", valueName: "C"))
    var category: String?

    @OptionGroup var openFilter: OpenFilterOptions
    @Option(help: ArgumentHelp(
        "Ask this provider instead of the local index (see `places providers`); the call is metered and cached.",
        valueName: "NAME"))
    var provider: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func validate() throws {
        if radius != nil && near == nil && !AroundPhrase.namesAPlace(in: query) {
            throw ValidationError("--radius needs --near LAT,LON, or a place to search around (\"cafe near kiasma\")")
        }
    }

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let app = try state.openApp()
            let query = SearchQuery(
                text: query, near: near, radius: radius, limit: limit, category: category?.lowercased())
            let outcome = try await app.search(query, provider: provider?.lowercased(), open: openFilter.filter)
            for note in outcome.notes { printError("places: \(Self.text(note))") }
            let places = outcome.places
            if places.isEmpty, !outcome.notes.isEmpty, !output.json, !output.geojson { return }
            try output.print(places, reference: outcome.reference)
        }
    }

    /// What a local search's note says on the command line.
    static func text(_ note: LocalSearchNote) -> String {
        switch note {
        case .didYouMean(let correction):
            "did you mean \"\(correction)\"?"
        case .searchedAround(let name, let point):
            // Five decimals: about a metre, as far as a place's point means anything.
            "around \(name) (\(String(format: "%.5f,%.5f", point.latitude, point.longitude))); distances are from there"
        case .outsideMapData(let near, let covered):
            "\(near) is outside the imported map data"
                + (covered.isEmpty ? "" : " (\(covered.joined(separator: "; ")))")
                + ": only GeoNames cities are known there; add an OpenStreetMap extract of the area with "
                + "`places import REGION.osm.pbf` (e.g. from download.geofabrik.de)"
        case .nothingMatches(let text, let importedFiles):
            "nothing in the local index matches \"\(text)\" (\(importedFiles) imported file(s), "
                + "see `places index`); `places import FILE` adds an .osm.pbf extract or a GeoNames dump"
        }
    }
}

struct NearbyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby",
        abstract: "List places around a point, nearest first.",
        discussion: """
            Examples:
              places nearby --at 60.1700,24.9410 --radius 300 --category cafe
              places nearby --at 60.17,24.94 --brand Starbucks      # the nearest branches of a chain
              places nearby --at 60.17,24.94 --category bar --open-at 2026-11-21T23:30
              places nearby --at 37.7763,-122.4232 --provider google    # metered in the budget, cached
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("The centre point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate

    @Option(parsing: .unconditional, help: ArgumentHelp("Search radius in metres.", valueName: "M"), transform: Metres.argument)
    var radius: Double = NearbyQuery.defaultRadius

    @Option(help: ArgumentHelp("Only this normalised category (cafe, restaurant, bar, shop, …).", valueName: "C"))
    var category: String?

    @Option(help: ArgumentHelp("Only places of this brand or chain.", valueName: "NAME"))
    var brand: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many results.", valueName: "N"), transform: ResultLimit.argument)
    var limit: Int = NearbyQuery.defaultLimit

    @Option(help: ArgumentHelp(
        "Ask this provider instead of the local index (see `places providers`); the call is metered and cached.",
        valueName: "NAME"))
    var provider: String?

    @OptionGroup var openFilter: OpenFilterOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let center = at
            let app = try state.openApp()
            let query = NearbyQuery(
                center: center, radius: radius, category: category?.lowercased(), brand: brand, limit: limit)
            try output.print(try await app.nearby(query, provider: provider, open: openFilter.filter), reference: center)
        }
    }
}
