import ArgumentParser
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Create or show the configuration file.",
        discussion: """
            Examples:
              places config init                # writes config.toml with every default, commented
              places config init --force        # overwrite an existing file
              places config show                # the effective configuration, secrets redacted
            """,
        subcommands: [ConfigInitCommand.self, ConfigShowCommand.self])
}

struct ConfigInitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Write a commented default config.toml (keys stay in environment variables).",
        discussion: """
            Examples:
              places config init
              places config init --force     # overwrite an existing file with the defaults
            """)

    @Flag(help: "Replace an existing file.")
    var force = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let environment = state.environment
            let url = environment.configFile
            if FileManager.default.fileExists(atPath: url.path) && !force {
                throw InputError("\(url.path) already exists: edit it, or pass --force to overwrite it with the defaults")
            }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let text = ConfigFileTemplate.text
            try Data(text.utf8).write(to: url, options: .atomic)
            print("wrote \(url.path)")
        }
    }
}
