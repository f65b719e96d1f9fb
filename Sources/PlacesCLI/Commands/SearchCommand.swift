import ArgumentParser
import PlacesApp
import PlacesCore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find places by name or words, optionally near a point.",
        discussion: """
            Every name a place has counts (other languages, old and short names, GeoNames alternate names:
            "Tukholma" finds Stockholm, and JSON says which name matched), and so does its address
            ("Mikonkatu 18", "18 Mikonkatu", "Mikonkatu 18, Helsinki"). Case, accents, punctuation and spacing
            do not matter ("rkioski" finds "R-kioski"); a word with a typo is corrected (results marked
            fuzzy), and when nothing is found a "did you mean" line says what was meant. Category words
            ("chemist", "bookshop", "cash machine") list real members of the category first.
            Without --near, important places (big cities, famous sights) come first; with --near, results
            blend relevance, importance and distance, and each result shows how far it is.

            Examples:
              places search "maya bar" --near 60.1721,24.9450
              places search pizza --near 60.17,24.94 --radius 500 --category restaurant --json
              places search sushi --near 60.17,24.94 --open-now
              places search Tukholma
              places search "Mikonkatu 18"
              places search chemist --near 60.1699,24.9450
            """)

    @Argument(help: "Words to look for in place names.")
    var query: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Rank and measure distance from this point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --near, only places within this many metres.", valueName: "M"))
    var radius: Double?

    @Option(parsing: .unconditional, help: "At most this many results.")
    var limit = 10

    @Option(help: ArgumentHelp("Only this normalised category (cafe, restaurant, bar, shop, …).", valueName: "C"))
    var category: String?

    @OptionGroup var openFilter: OpenFilterOptions
    @Option(help: ArgumentHelp(
        "Ask this provider directly instead of the local index (see `places providers`).", valueName: "NAME"))
    var provider: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            try requireMetres(radius, "--radius")
            try requireLimit(limit)
            if radius != nil && near == nil { throw InputError("--radius needs --near LAT,LON") }
            let service = try state.openService()
            let query = SearchQuery(
                text: query, near: near, radius: radius, limit: openFilter.fetchLimit(limit), category: category?.lowercased())
            let providerName = provider?.lowercased()
            if let providerName, providerName != "local" {
                try output.print(try openFilter.apply(try await service.search(query, provider: providerName), limit: limit), reference: near)
                return
            }
            let outcome = try service.searchLocally(query)
            for note in outcome.notes { printError("places: \(note)") }
            let places = try openFilter.apply(outcome.places, limit: limit)
            if places.isEmpty, !outcome.notes.isEmpty, !output.json, !output.geojson { return }
            try output.print(places, reference: near)
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
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("The centre point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var at: Coordinate

    @Option(parsing: .unconditional, help: ArgumentHelp("Search radius in metres.", valueName: "M"))
    var radius = 500.0

    @Option(help: ArgumentHelp("Only this normalised category (cafe, restaurant, bar, shop, …).", valueName: "C"))
    var category: String?

    @Option(help: ArgumentHelp("Only places of this brand or chain.", valueName: "NAME"))
    var brand: String?

    @Option(parsing: .unconditional, help: "At most this many results.")
    var limit = 20

    @OptionGroup var openFilter: OpenFilterOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let center = at
            try requireMetres(radius, "--radius")
            try requireLimit(limit)
            let service = try state.openService()
            let query = NearbyQuery(
                center: center, radius: radius, category: category?.lowercased(), brand: brand, limit: openFilter.fetchLimit(limit))
            try output.print(try openFilter.apply(try await service.nearby(query), limit: limit), reference: center)
        }
    }
}
