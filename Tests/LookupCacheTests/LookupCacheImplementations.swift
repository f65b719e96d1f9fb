import Foundation
import LookupCache
import PostgresStorage
import PostgresTestCluster
import StoreTestSupport
import Testing

/// One way to build a lookup cache for the contract suite. A second implementation (PostgreSQL) adds its
/// own value to ``LookupCacheImplementation/all``; every test in `LookupCacheContract` then runs against it.
struct LookupCacheImplementation: Sendable, CustomTestStringConvertible {
    let name: String
    /// Creates fresh, empty storage and returns an opener for it: each call of the opener gives an independent
    /// handle on that same storage, as another process would open it.
    let freshStorage: @Sendable () async throws -> @Sendable (LookupCacheConfiguration, @escaping @Sendable () -> Date) async throws -> any LookupCacheStore

    var testDescription: String { name }

    /// A store on fresh storage with this configuration and clock.
    func make(_ configuration: LookupCacheConfiguration = LookupCacheConfiguration(),
              clock: @escaping @Sendable () -> Date = { Date() }) async throws -> any LookupCacheStore {
        try await freshStorage()(configuration, clock)
    }

    static let sqlite = LookupCacheImplementation(name: "SQLite") {
        let path = temporaryDatabase("cache.sqlite")
        return { configuration, clock in try SQLiteLookupCacheStore(path: path, configuration: configuration, clock: clock) }
    }

    static let postgres = LookupCacheImplementation(name: "PostgreSQL") {
        let open = try await PostgresTestCluster.freshStorage()
        return { configuration, clock in PostgresLookupCache(database: try await open(), configuration: configuration, clock: clock) }
    }

    /// Every implementation the contract runs against: PostgreSQL where a test cluster is configured, and always in
    /// CI (where a missing cluster fails); `PostgresContractAvailability` prints why it is skipped elsewhere.
    static let all: [LookupCacheImplementation] = PostgresTestCluster.isAvailable ? [.sqlite, .postgres] : [.sqlite]
}

@Suite struct PostgresContractAvailability {
    @Test(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
    func lookupCacheContractRunsOnPostgres() {
        #expect(LookupCacheImplementation.all.map(\.name).contains("PostgreSQL"))
    }
}
