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

    /// A server that refuses connections is reported with its reason when the first attempt fails, not as "no answer"
    /// once the timeout has passed (postgres-nio's pool keeps retrying and keeps the request waiting).
    @Test(arguments: [
        ("postgres://places@127.0.0.1:1/places", "connection refused"),
        ("ROLE", #"role "nobody_here" does not exist"#),
        ("DATABASE", #"database "no_such_database" does not exist"#),
    ])
    func aServerThatRefusesTheConnectionIsReportedWithItsReasonAtOnce(url text: String, reason: String) async throws {
        var url = try await PostgresTestCluster.freshDatabase()
        switch text {
        case "ROLE": url.user = "nobody_here"
        case "DATABASE": url.database = "no_such_database"
        default: url = try PostgresURL(parsing: text)
        }
        let database = try SharedDatabase(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        defer { database.close() }
        let clock = ContinuousClock()
        let started = clock.now
        // The next request too, while the pool waits out its backoff before trying again.
        for _ in 1...2 {
            await #expect {
                _ = try await database.rows("SELECT 1")
            } throws: { error in
                (error as? StorageUnavailable)?.description == "storage unavailable: PostgreSQL at \(url.endpoint): \(reason)"
            }
        }
        // Far under the 300 s timeout: the requests did not wait for it.
        #expect(clock.now - started < .seconds(60))
    }

    /// A listening connection that goes silent (the proxy between passes nothing and closes nothing, as a NAT that
    /// forgot it) ends the listening with an error once a heartbeat goes unanswered, so the listener stops trusting
    /// what it remembers; without the heartbeat it would wait for notifications for ever.
    @Test func aListeningConnectionThatGoesSilentEndsTheListening() async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let proxy = try SilenceableProxy(toPort: url.port)
        defer { proxy.stop() }
        var proxied = url
        proxied.port = proxy.port
        proxied.sslMode = .disable
        let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: proxied, poolSize: 1, timeout: testTimeout))
        defer { database.close() }
        let (listening, announce) = AsyncStream.makeStream(of: Void.self)
        let listener = Task {
            try await database.listen(on: "places_heartbeat_test", heartbeat: .milliseconds(200), answerWithin: .seconds(2),
                                      ready: { announce.yield() }, notified: {})
        }
        defer { listener.cancel() }
        for await _ in listening { break }
        proxy.goSilent()
        struct StillListeningAfterTwoMinutes: Error {}
        let ended = try await outcome(within: .seconds(120), else: { StillListeningAfterTwoMinutes() }) { await listener.result }
        #expect(throws: StorageUnavailable.self) { try ended.get() }
    }
}
