import BudgetLedger
import Foundation
import LookupCache
import PlaceIndex
import PlacesConfig
import PostgresStorage
import SpotStore

/// The one seam where places' stores are constructed: where each lives and how it is opened. The
/// application opens each store through it, once, when a use case first needs it; nothing else in the
/// program constructs a store, and the CLI and the server never hold one (they ask the application's
/// use-case methods). Another implementation of a store plugs in here and nowhere else: with shared state
/// configured (`PLACES_DATABASE_URL` or `[storage] url`, read by ``SharedStorage``), `openCache()`,
/// `openLedger()` and `openSpots()` return the PostgreSQL stores instead of the SQLite files; the index stays local.
struct StoreFactory: Sendable {
    let environment: PlacesEnvironment
    let settings: PipelineSettings
    /// The shared database when `PLACES_DATABASE_URL` (or `[storage] url`) is set: then the cache, the ledger and
    /// the spots live there, shared with every instance pointed at it; the local index stays a local file.
    let shared: SharedDatabase?
    let lifetime: ProcessLifetime
    let clock: @Sendable () -> Date

    /// The local place index, built from the bundled data on first use and repaired when damaged.
    func openIndex(notice: (String) -> Void) throws -> PlaceIndexStore {
        try opening(in: environment.dataDirectory) {
            try LocalIndexSetup.open(environment, concurrentReaders: concurrentReaders, citiesInMemory: lifetime == .serving,
                                     notice: notice)
        }
    }

    /// The TTL lookup cache (also where provider answers are kept within their terms).
    func openCache() throws -> any LookupCacheStore {
        let configuration = LookupCacheConfiguration(maxBytes: settings.cache.maxBytes)
        if let shared { return PostgresLookupCache(database: shared, configuration: configuration, clock: clock) }
        return try opening(in: environment.cacheDirectory) {
            try SQLiteLookupCacheStore(path: environment.cacheDatabase, configuration: configuration, clock: clock,
                                       concurrentReaders: concurrentReaders)
        }
    }

    /// The spend ledger every paid call reserves in.
    func openLedger() throws -> any BudgetLedger {
        if let shared { return PostgresBudgetLedger(database: shared, policy: Self.budgetPolicy(settings), clock: clock) }
        return try opening(in: environment.dataDirectory) {
            try SQLiteBudgetLedger(path: environment.budgetDatabase, policy: Self.budgetPolicy(settings), clock: clock,
                                   concurrentReaders: concurrentReaders)
        }
    }

    /// Saved spots: user data.
    func openSpots() throws -> any SpotStore {
        if let shared { return PostgresSpotStore(database: shared) }
        return try opening(in: environment.dataDirectory) { try SQLiteSpotStore(path: environment.spotsDatabase, concurrentReaders: concurrentReaders) }
    }

    /// A serving process reads its SQLite files through pools of connections; one command through one connection
    /// each, which writes nothing as it opens.
    private var concurrentReaders: Bool { lifetime == .serving }

    /// A store that cannot be opened is a ``StorageError`` (read-only, full, locked …) when it is one, so
    /// every front end words it from one place.
    private func opening<Store>(in directory: URL, _ open: () throws -> Store) throws -> Store {
        do {
            return try open()
        } catch {
            throw StorageError.classify(error, directory: directory) ?? error
        }
    }

    static func budgetPolicy(_ settings: PipelineSettings) -> BudgetPolicy {
        let budget = settings.budget
        func limits(_ l: BudgetSettings.Limits) -> BudgetLimits { BudgetLimits(perDay: l.perDay, perMonth: l.perMonth) }
        return BudgetPolicy(timeZone: budget.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current,
                            overall: limits(budget.overall), providers: budget.providers.mapValues(limits),
                            freeCallsPerMonth: budget.freeCallsPerMonth)
    }
}

/// A part of the application opened on first use and kept: a CLI command opens only what it uses, and the
/// server opens each part once however many clients ask. A failure is not kept, so the next use retries.
final class OpenedOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    private let open: @Sendable () throws -> Value

    init(_ open: @escaping @Sendable () throws -> Value) {
        self.open = open
    }

    func get() throws -> Value {
        try lock.withLock {
            if let value { return value }
            let opened = try open()
            value = opened
            return opened
        }
    }
}
