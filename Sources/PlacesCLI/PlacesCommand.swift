import ArgumentParser
import Foundation
import PlacesApp

@main
struct PlacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Look up places cheaply: a free local index first, paid providers only when needed.",
        discussion: """
            State lives under $PLACES_HOME when set, otherwise in the XDG data, config and cache directories.
            The first command on a fresh machine builds the local index from the bundled Helsinki OSM extract
            and a worldwide GeoNames cities list (© OpenStreetMap contributors, ODbL; © GeoNames, CC BY 4.0).

            Examples:
              places search "maya bar" --near 60.1721,24.9450
              places nearby --at 60.1700,24.9410 --radius 300 --category cafe
              places reverse 60.1699,24.9384 --json
            """,
        version: PlacesVersion.string,
        subcommands: [
            SearchCommand.self, DetailsCommand.self, NearbyCommand.self, ReverseCommand.self, SuggestCommand.self,
            ImportCommand.self, IndexCommand.self, ScoreCommand.self, MatchCommand.self, HoursCommand.self, ProvidersCommand.self,
            LookupCommand.self, BudgetCommand.self, CacheCommand.self, ConfigCommand.self,
            SpotsCommand.self, ServeCommand.self, StorageCommand.self, DataCommand.self,
        ]
    )

    /// Parses and runs like ArgumentParser's own `main()`, but a command line it cannot parse (a bad
    /// `--near`, a missing argument, a failed `validate()`) gets one line on stderr and exit status 2, the
    /// same as bad input found while running, instead of the error plus the whole usage text.
    /// `--help` and `--version` print as usual.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
            printError("places: \(message(for: error))")
            exit(withError: ExitCode(2))
        }
    }
}
