import Foundation
import PlacesCore
@testable import PostgresStorage
import PostgresTestCluster
import Testing

@Suite(.needsPostgres) struct PostgresMigrationTests {
    @Test func instancesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let databases = try await withThrowingTaskGroup(of: SharedDatabase.self) { group in
            for _ in 0..<4 { group.addTask { try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for database in databases { database.close() } }
        #expect(try await databases[0].appliedMigrations() == [1, 2])
        // A later start finds nothing to do.
        let again = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        defer { again.close() }
        #expect(try await again.appliedMigrations() == [1, 2])
    }

    @Test func anUnreachableServerIsOneClearErrorWithinTheTimeout() async throws {
        // Port 1 on loopback: nothing listens there.
        let url = try PostgresURL(parsing: "postgres://places:secret@127.0.0.1:1/places")
        await #expect {
            _ = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, timeout: .seconds(2)))
        } throws: { error in
            guard let error = error as? StorageUnavailable else { return false }
            return error.endpoint == "127.0.0.1:1" && !error.description.contains("secret")
                && error.description.hasPrefix("storage unavailable: PostgreSQL at 127.0.0.1:1: ")
        }
    }

    @Test func sslmodeRequireConnectsWhenTheServerOffersTLS() async throws {
        // cluster.sh turns TLS on with a self-signed certificate: `require` encrypts without checking it, as libpq does.
        let fresh = try await PostgresTestCluster.freshDatabase()
        var url = fresh
        url.sslMode = .require
        let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        defer { database.close() }
        let ssl = try await database.rows("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first?.decode(Bool.self)
        #expect(ssl == true)
        // verify-full refuses the self-signed certificate.
        url.sslMode = .verifyFull
        await #expect(throws: StorageUnavailable.self) {
            _ = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: .seconds(3)))
        }
    }
}
