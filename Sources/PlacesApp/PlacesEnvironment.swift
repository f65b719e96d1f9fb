import Foundation

/// Where `places` keeps its state: `$PLACES_HOME` when set (everything under one folder, which is
/// what tests and scripts want), otherwise the XDG data, config and cache directories.
public struct PlacesEnvironment: Sendable {
    public var dataDirectory: URL
    public var configDirectory: URL
    public var cacheDirectory: URL
    /// `--config FILE` overrides the default `config.toml`.
    public var configFileOverride: URL?
    /// The process environment, kept so API keys named by `api_key_env` can be read without globals.
    public var variables: [String: String]

    public init(dataDirectory: URL, configDirectory: URL, cacheDirectory: URL, configFileOverride: URL? = nil,
                variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.dataDirectory = dataDirectory
        self.configDirectory = configDirectory
        self.cacheDirectory = cacheDirectory
        self.configFileOverride = configFileOverride
        self.variables = variables
    }

    /// Resolves the directories from the environment, the way the CLI and the server do.
    public static func resolve(variables: [String: String] = ProcessInfo.processInfo.environment,
                               configFile: URL? = nil) -> PlacesEnvironment {
        if let home = variables["PLACES_HOME"], !home.isEmpty {
            let root = URL(fileURLWithPath: home, isDirectory: true)
            return PlacesEnvironment(dataDirectory: root, configDirectory: root, cacheDirectory: root,
                                     configFileOverride: configFile, variables: variables)
        }
        let userHome = URL(fileURLWithPath: variables["HOME"] ?? NSHomeDirectory(), isDirectory: true)
        func xdg(_ name: String, _ fallback: String) -> URL {
            let base = variables[name].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
                ?? userHome.appendingPathComponent(fallback, isDirectory: true)
            return base.appendingPathComponent("places", isDirectory: true)
        }
        return PlacesEnvironment(
            dataDirectory: xdg("XDG_DATA_HOME", ".local/share"), configDirectory: xdg("XDG_CONFIG_HOME", ".config"),
            cacheDirectory: xdg("XDG_CACHE_HOME", ".cache"), configFileOverride: configFile, variables: variables)
    }

    /// The local place index (OSM + GeoNames), rebuilt from the embedded data when missing.
    public var indexDatabase: URL { dataDirectory.appendingPathComponent("index.sqlite") }
    /// Saved spots: user data, in its own database so no cache command can touch it.
    public var spotsDatabase: URL { dataDirectory.appendingPathComponent("spots.sqlite") }
    /// The spend ledger; kept with data, not cache, because deleting it would forget money spent.
    public var budgetDatabase: URL { dataDirectory.appendingPathComponent("budget.sqlite") }
    /// The TTL lookup cache; safe to delete.
    public var cacheDatabase: URL { cacheDirectory.appendingPathComponent("cache.sqlite") }
    public var configFile: URL { configFileOverride ?? configDirectory.appendingPathComponent("config.toml") }

    public func createDirectories() throws {
        for directory in Set([dataDirectory, configDirectory, cacheDirectory]) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }
}
