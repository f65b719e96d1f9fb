import Foundation
import PlacesConfig
import PlacesCore

/// The providers a lookup may use on this installation, and why the others are left out.
public struct LookupProviders: Sendable {
    /// The local index first, then every network provider that is enabled and has what it needs.
    public var usable: [any PlaceProvider]
    /// Provider name → one line saying why it is skipped ("no API key: set YELP_API_KEY").
    public var skipped: [String: String]

    public static func resolve(service: PlacesService, environment: PlacesEnvironment) throws -> LookupProviders {
        let configuration = try PlacesConfiguration.load(environment)
        var usable: [any PlaceProvider] = [service.local]
        var skipped: [String: String] = [:]
        for configured in ProviderFactory.makeAll(configuration: configuration, environment: environment) {
            if let provider = configured.provider { usable.append(provider) } else { skipped[configured.name] = configured.reason }
        }
        return LookupProviders(usable: usable, skipped: skipped)
    }
}

/// The whole commented default `config.toml`: the providers' sections, then the pipeline's.
public enum ConfigFileTemplate {
    public static var text: String {
        """
        # places configuration. Every value shown is the default; delete what you do not change.

        """ + ProvidersConfigTemplate.text + "\n" + PipelineConfigTemplate.text
    }
}
