import Foundation
import PlacesCore
@testable import PostgresStorage
import PostgresTestCluster
import Testing

@Suite(.needsPostgres) struct SharedDatabaseTests {
    /// A statement the server is still running when the timeout passes stands for a server that stopped answering
    /// (paused, or its host gone): postgres-nio's queries do not answer cancellation. The caller gets the one clear
    /// error at the timeout, not when the server gets round to answering, and the pool serves the next request.
    @Test func aRequestTheServerDoesNotAnswerFailsAtTheTimeoutAndThePoolGoesOn() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 2, timeout: testTimeout))
        defer { database.close() }
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await database.rows("SELECT pg_sleep(120)", timeout: .seconds(1))
        } throws: { error in
            (error as? StorageUnavailable)?.description
                .hasPrefix("storage unavailable: PostgreSQL at \(url.endpoint): no answer within 1 s") == true
        }
        // Far under the statement's 120 s, however loaded the machine: the request did not wait for the server.
        #expect(clock.now - started < .seconds(60))
        let answer = try await database.rows("SELECT 42", timeout: testTimeout).first?.decode(Int.self)
        #expect(answer == 42)
    }
}
