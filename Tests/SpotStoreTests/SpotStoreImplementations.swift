import Foundation
import SpotStore
import PostgresStorage
import PostgresTestCluster
import StoreTestSupport
import Testing

/// One way to build a spot store for the contract suite. A second implementation (PostgreSQL) adds its own
/// value to ``SpotStoreImplementation/all``; every test in `SpotStoreContract` (and the export/import round
/// trips in `SpotFormatsTests`) then runs against it.
struct SpotStoreImplementation: Sendable, CustomTestStringConvertible {
    let name: String
    /// Creates fresh, empty storage and returns an opener for it: each call of the opener gives an independent
    /// handle on that same storage (its own connections), as another process would open it.
    let freshStorage: @Sendable () async throws -> @Sendable () async throws -> any SpotStore

    var testDescription: String { name }

    /// A store on fresh storage.
    func make() async throws -> any SpotStore { try await freshStorage()() }

    static let sqlite = SpotStoreImplementation(name: "SQLite") {
        let path = temporaryDatabase("spots.sqlite")
        return { try SQLiteSpotStore(path: path) }
    }

    static let postgres = SpotStoreImplementation(name: "PostgreSQL") {
        let open = try await PostgresTestCluster.freshStorage()
        return { PostgresSpotStore(database: try await open()) }
    }

    /// Every implementation the contract runs against: PostgreSQL where a test cluster is configured, and always in
    /// CI (where a missing cluster fails); `PostgresContractAvailability` prints why it is skipped elsewhere.
    static let all: [SpotStoreImplementation] = PostgresTestCluster.isAvailable ? [.sqlite, .postgres] : [.sqlite]
}

@Suite struct PostgresContractAvailability {
    @Test(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
    func spotStoreContractRunsOnPostgres() {
        #expect(SpotStoreImplementation.all.map(\.name).contains("PostgreSQL"))
    }
}
