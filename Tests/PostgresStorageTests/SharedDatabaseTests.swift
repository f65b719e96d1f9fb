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
            _ = try await database.rows("SELECT pg_sleep(600)", timeout: .seconds(1))
        } throws: { error in
            (error as? StorageUnavailable)?.description
                .hasPrefix("storage unavailable: PostgreSQL at \(url.endpoint): no answer within 1 s") == true
        }
        // Far under the statement's 600 s, however loaded the machine: the request did not wait for the server.
        #expect(clock.now - started < .seconds(300))
        let answer = try await database.rows("SELECT 42", timeout: testTimeout).first?.decode(Int.self)
        #expect(answer == 42)
    }

    /// postgres-nio's pool opens a connection for a queued request only when a lease is asked for, or when it has
    /// fewer than its minimum (0 here): a request queued behind the only connection when that connection is lost
    /// (its backend terminated, or its request timed out and closed it) waited for its own timeout, though the pool
    /// could open another. It gets a new connection and its answer.
    @Test(arguments: ["terminated", "timed out"])
    func aRequestQueuedWhenTheLeasedConnectionIsLostGetsANewConnection(lostBy way: String) async throws {
        let url = try await PostgresTestCluster.freshDatabase()
        let database = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        defer { database.close() }
        let admin = try await SharedDatabase.open(PostgresStorageConfiguration(url: url, poolSize: 1, timeout: testTimeout))
        defer { admin.close() }
        let holderTimeout: Duration = way == "timed out" ? .seconds(2) : testTimeout
        let holder = Task { try await database.rows("SELECT pg_sleep(600) -- holds the only connection", timeout: holderTimeout) }
        var backend: Int32?  // the holder's, found in this test's own database (the arguments run in parallel)
        while backend == nil {
            backend = try await admin.rows("""
                SELECT pid FROM pg_stat_activity WHERE query LIKE '%-- holds the only connection' AND state = 'active'
                  AND datname = current_database() AND pid <> pg_backend_pid()
                """).first?.decode(Int32.self)
        }
        let waiting = Task { try await database.rows("SELECT 42").first?.decode(Int.self) }
        // Nothing announces that the request has reached the pool's queue. If it has not by the time the connection
        // is lost, it asks for a connection itself: the test then proves less, and never fails wrongly.
        try await Task.sleep(for: .milliseconds(500))
        if way == "terminated" { _ = try await admin.rows("SELECT pg_terminate_backend(\(backend!))") }
        await #expect(throws: StorageUnavailable.self) { try await holder.value }
        // Without a new connection this waits for the request's timeout and fails with "no answer within 300 s".
        #expect(try await waiting.value == 42)
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
        // The reason comes only from the connection opened to learn it: waiting out the timeout says "no answer".
        // The next request too, while the pool waits out its backoff before trying again.
        for _ in 1...2 {
            await #expect {
                _ = try await database.rows("SELECT 1")
            } throws: { error in
                (error as? StorageUnavailable)?.description == "storage unavailable: PostgreSQL at \(url.endpoint): \(reason)"
            }
        }
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
        struct StillListeningAfterFiveMinutes: Error {}
        let ended = try await outcome(within: .seconds(300), else: { StillListeningAfterFiveMinutes() }) { await listener.result }
        #expect(throws: StorageUnavailable.self) { try ended.get() }
    }
}
