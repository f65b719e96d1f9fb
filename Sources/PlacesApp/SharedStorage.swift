import Foundation
import PlacesConfig
import PlacesCore
import PostgresStorage

/// Where the shared state lives: `PLACES_DATABASE_URL` (or `[storage] url` in config.toml; the environment wins)
/// moves the lookup cache, the budget ledger and the spots to PostgreSQL; without it they are SQLite files under
/// the home. The local index stays a local file either way.
public enum SharedStorage {
    /// The `[storage]` settings of `environment`'s config file, with `PLACES_DATABASE_URL` overriding the URL.
    public static func settings(_ environment: PlacesEnvironment) throws(InputError) -> StorageSettings {
        let configuration = try PlacesConfiguration.load(from: environment.configFile)
        return try StorageSettings(root: configuration.root, environment: environment.variables)
    }

    /// How to reach PostgreSQL at `url` with the settings' pool size and timeout.
    /// - Throws: ``InputError`` naming the URL (password redacted) when it is not a `postgres://` URL.
    public static func configuration(url: String, settings: StorageSettings) throws(InputError) -> PostgresStorageConfiguration {
        let parsed: PostgresURL
        do {
            parsed = try PostgresURL(parsing: url)
        } catch {
            throw InputError(error.description)
        }
        return PostgresStorageConfiguration(url: parsed, poolSize: settings.poolSize,
                                            timeout: settings.timeout.map { .milliseconds(Int64($0 * 1000)) })
    }
}
