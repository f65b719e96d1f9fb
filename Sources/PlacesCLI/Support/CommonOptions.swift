import ArgumentParser
import Foundation
import PlacesApp
import PlacesCore

/// How results are printed: a table for people, JSON or GeoJSON for programs.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print a JSON array of places.")
    var json = false

    @Flag(name: .long, help: "Print a GeoJSON FeatureCollection.")
    var geojson = false

    func validate() throws {
        if json && geojson { throw ValidationError("choose one of --json and --geojson") }
    }
}

/// Where state lives, and how the terminal is addressed; shared by every command that touches the index, cache,
/// budget or spots. `PlacesCommand.main()` applies `--color` before the command runs.
struct StateOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read configuration from FILE instead of config.toml.", valueName: "FILE"))
    var config: String?

    @Flag(name: .long, help: "On a storage failure, also print the underlying error in full.")
    var verbose = false

    @Option(name: .long, help: ArgumentHelp(
        "Colour tables: auto (only on a terminal, and not when NO_COLOR is set), always, or never.", valueName: "WHEN"))
    var color: ColorChoice = .auto

    var environment: PlacesEnvironment {
        PlacesEnvironment.resolve(configFile: config.map { URL(fileURLWithPath: $0) })
    }
}

/// Writes to stderr; progress, notes and warnings go there so stdout stays parseable.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((TerminalText.safe(message, keepingNewlines: true) + "\n").utf8))
}

/// Writes raw bytes plus a newline to stdout.
func printData(_ data: Data) {
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}
