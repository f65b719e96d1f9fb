import BudgetLedger
import Foundation
import LookupCache
import PlacesConfig
import PlacesCore
import PostgresStorage
import SpotStore

/// Where the shared state lives: `PLACES_DATABASE_URL` (or `[storage] url` in config.toml; the environment wins)
/// moves the lookup cache, the budget ledger and the spots to PostgreSQL; without it they are SQLite files under
/// the home. The local index stays a local file either way.
public enum SharedStorage {
    /// The `[storage]` settings of `configuration`, with `PLACES_DATABASE_URL` from `environment` overriding the URL.
    public static func settings(_ configuration: PlacesConfiguration, _ environment: PlacesEnvironment) throws(InputError) -> StorageSettings {
        try StorageSettings(root: configuration.root, environment: environment.variables)
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

    /// The process's pool on the configured database, or `nil` when the state is in SQLite files. Opening starts
    /// the pool without waiting for the server, so a process whose database is down still answers from its
    /// local index; the first store request brings the schema up to date.
    static func open(_ settings: StorageSettings) throws(InputError) -> SharedDatabase? {
        guard let url = settings.url else { return nil }
        do {
            return try SharedDatabase(configuration(url: url, settings: settings))
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError("\(error)")
        }
    }
}

/// What `places serve` does in the background when the state is shared: removes expired cache entries (one
/// instance at a time; the others skip that round) and refunds reservations left behind by an instance that died
/// between reserving and settling. A reservation older than the longest provider timeout (plus a margin) can no
/// longer be settled by a live call, so refunding it gives the budget back without ever refunding a real call.
public struct SharedStateMaintenance: Sendable {
    let cache: PostgresLookupCache
    let ledger: PostgresBudgetLedger
    /// How often a round runs.
    public var interval: Duration
    /// Reservations older than this are dangling.
    public var danglingAge: TimeInterval

    /// One round: the purge, then the refunds. A database that is down makes the round fail; the next one retries.
    /// - Returns: entries purged (`nil` when another instance purged) and reservations refunded.
    @discardableResult
    public func runOnce() async throws -> (purged: Int?, refunded: Int) {
        let purged = try await cache.purgeExpired()
        let refunded = try await ledger.refundDangling(olderThan: danglingAge)
        return (purged, refunded)
    }

    /// Rounds every ``interval`` until the task is cancelled (the server shutting down); failures are reported to
    /// `report` and do not end the loop.
    public func run(report: @Sendable (String) -> Void = { _ in }) async {
        while !Task.isCancelled {
            do {
                let (purged, refunded) = try await runOnce()
                if let purged, purged > 0 { report("purged \(purged) expired cache entries") }
                if refunded > 0 { report("refunded \(refunded) dangling budget reservations") }
            } catch {
                report("shared-state maintenance skipped: \(error)")
            }
            try? await Task.sleep(for: interval)
        }
    }
}

extension PlacesApplication {
    /// What `places serve` runs in the background when the state is shared, or `nil` when it is in SQLite files
    /// (each file's own store expires entries itself, and one process owns its reservations).
    ///
    /// A reservation is dangling once no live call can still settle it: a call makes at most three attempts, each
    /// bounded by the provider's `timeout_s`, with at most 30 s of `Retry-After` between them; two minutes of
    /// margin on top of the longest such call keeps a slow real call from ever being refunded under it.
    public func sharedStateMaintenance(interval: Duration = .seconds(60)) throws -> SharedStateMaintenance? {
        guard sharedDatabase != nil,
              let cache = try cache as? PostgresLookupCache, let ledger = try ledger as? PostgresBudgetLedger else { return nil }
        let longestTimeout = configuration.providers.values.map(\.timeout).max() ?? 10
        return SharedStateMaintenance(cache: cache, ledger: ledger, interval: interval,
                                      danglingAge: longestTimeout * 3 + 60 + 120)
    }
}
