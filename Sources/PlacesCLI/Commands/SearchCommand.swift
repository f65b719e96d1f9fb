import ArgumentParser
import PlacesApp
import PlacesCore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find places by name or words, optionally near a point.",
        discussion: """
            Matching ignores case and accents ("cafe" finds "Café") and completes the last word as a prefix.
            With --near, results blend text relevance with distance, and each result shows how far it is.

            Examples:
              places search "maya bar" --near 60.1721,24.9450
              places search pizza --near 60.17,24.94 --radius 500 --category restaurant --json
              places search sushi --near 60.17,24.94 --open-now
            """)

    @Argument(help: "Words to look for in place names.")
    var query: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Rank and measure distance from this point.", valueName: "LAT,LON"), transform: Coordinate.argument)
    var near: Coordinate?

    @Option(help: ArgumentHelp("With --near, only places within this many metres.", valueName: "M"))
    var radius: Double?

    @Option(help: "At most this many results.")
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
            try output.print(try openFilter.apply(try await service.search(query, provider: provider?.lowercased()), limit: limit), reference: near)
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

    @Option(help: ArgumentHelp("Search radius in metres.", valueName: "M"))
    var radius = 500.0

    @Option(help: ArgumentHelp("Only this normalised category (cafe, restaurant, bar, shop, …).", valueName: "C"))
    var category: String?

    @Option(help: ArgumentHelp("Only places of this brand or chain.", valueName: "NAME"))
    var brand: String?

    @Option(help: "At most this many results.")
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
