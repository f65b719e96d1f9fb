import ArgumentParser
import CSQLiteSettings
import Foundation
import PlacesApp
import PlacesCore

@main
struct PlacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Look up places cheaply: a free local index first, paid providers only when needed.",
        discussion: """
            State lives under $PLACES_HOME when set, otherwise in the XDG data, config and cache directories.
            The first command on a fresh machine builds the local index from the bundled Helsinki OSM extract \
            and a worldwide GeoNames cities list (© OpenStreetMap contributors, ODbL; © GeoNames, CC BY 4.0).
            Tables fit the terminal and are coloured only on one; NO_COLOR or --color never turns colour off.

            Examples:
              places search "maya bar" --near 60.1721,24.9450
              places nearby --at 60.1700,24.9410 --radius 300 --category cafe
              places reverse 60.1699,24.9384 --json
              places search cafe --near 60.17,24.94 --color always | less -R
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
    /// `--help` and `--version` print as usual, but for a USAGE line wrapped to the terminal (``HelpLayout``).
    static func main() async {
        // Before any command opens a database: SQLite reads its process-wide settings when first used.
        _ = places_sqlite_turn_off_memory_statistics()
        do {
            var command = try parseAsRoot()
            TerminalColor.apply(colorChoice(of: command))
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if !(error is ExitCode), exitCode(for: error) == .success {
                // --help, `help`, --version: printed as ArgumentParser would, with the USAGE line fitted to the width.
                print(HelpLayout.fitted(fullMessage(for: error), width: TerminalWidth.current))
                exit(withError: ExitCode.success)
            }
            if error is ExitCode { exit(withError: error) }
            let text = message(for: error)
            let hint = text.contains("nexpected argument") ? subcommandSuggestion(for: Array(CommandLine.arguments.dropFirst())) : nil
            printError("places: \(hint ?? text)")
            exit(withError: ExitCode(2))
        }
    }

    /// The `--color` the parsed command was given (every command with state options has it), else `auto`.
    static func colorChoice(of command: any ParsableCommand) -> ColorChoice {
        Mirror(reflecting: command).children.lazy.compactMap { ($0.value as? OptionGroup<StateOptions>)?.wrappedValue.color }
            .first ?? .auto
    }

    /// "Did you mean" for a mistyped subcommand (`places serch`, `places spots lsit`): follows the typed words down
    /// the command tree, and the first word that names no subcommand where one is expected gets the nearest name
    /// within two edits. `nil` when there is none, so the parser's own message stands.
    static func subcommandSuggestion(for arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = PlacesCommand.self
        var path = ["places"]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !word.hasPrefix("-"), !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { $0._commandName == word }) {
                command = next
                path.append(word)
                continue
            }
            let nearest = subcommands.compactMap { candidate -> (name: String, distance: Int)? in
                SearchText.editDistance(word.lowercased(), candidate._commandName, limit: 2).map { (candidate._commandName, $0) }
            }.min { ($0.distance, $0.name) < ($1.distance, $1.name) }
            guard let nearest else { return nil }
            let parent = path.joined(separator: " ")
            return "unknown command '\(word.prefix(40))': did you mean `\(parent) \(nearest.name)`? (`\(parent) --help` lists them)"
        }
        return nil
    }
}
