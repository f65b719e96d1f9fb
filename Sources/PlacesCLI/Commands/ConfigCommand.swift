import ArgumentParser
import Foundation
import PlacesApp
import PlacesConfig
import PlacesCore

/// `places config show`: registered as a subcommand of the `config` group.
struct ConfigShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the effective configuration, defaults filled in, secrets redacted.",
        discussion: """
            Reads config.toml under $PLACES_HOME (or the XDG config directory), or the file given with \
            --config. A missing file means every default. API keys never appear: a key written in the \
            file shows as "[REDACTED]", and for each provider a comment says whether the environment \
            variable named by api_key_env is set.

            Examples:
              places config show
              places config show --config ./config.toml
            """)

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            let environment = state.environment
            let configuration = try PlacesConfiguration.load(environment)
            var text = configuration.redactedDescription
            let keyNotes = PlacesConfiguration.networkProviders.compactMap { name -> String? in
                guard let env = configuration.settings(for: name).apiKeyEnv else { return nil }
                let isSet = !(environment.variables[env] ?? "").isEmpty
                return "# \(name): $\(env) is \(isSet ? "set" : "not set")"
            }
            text += "\n" + keyNotes.joined(separator: "\n") + "\n"
            // Belt and braces: whatever the sections hold, no configured key leaves this command.
            let secrets = PlacesConfiguration.networkProviders.compactMap {
                configuration.settings(for: $0).resolvedAPIKey(environment: environment.variables)
            }
            print(Redaction.scrub(text, secrets: secrets), terminator: "")
        }
    }
}
