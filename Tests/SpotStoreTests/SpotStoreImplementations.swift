import Foundation
import SpotStore
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

    /// Every implementation the contract runs against.
    static let all: [SpotStoreImplementation] = [.sqlite]
}
