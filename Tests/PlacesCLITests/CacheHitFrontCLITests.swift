import FakeUpstream
import Foundation
import LoopbackSocket
import PostgresTestCluster
import Testing

/// `places serve` answers repeated cache-hit LOOKUPs from memory (the cache hit front), yet another process's purge
/// of the cache reaches it: the server's next LOOKUPs stop answering the removed entry and ask the provider again.
/// Checked through the real binaries: a server, and a `places cache purge` CLI process on the same state, on
/// PostgreSQL (the server hears the purge's NOTIFY) and on SQLite (the file's data version changes).
@Suite("cache hit front across processes", .serialized)
struct CacheHitFrontCLITests {
    static let request = "LOOKUP \"Blue Bottle Coffee\" NEAR 37.7763 -122.4232"

    @Test(.enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
    func anotherProcessPurgingPostgresReachesTheServersNextLookup() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let url = try await PostgresTestCluster.freshDatabase("front").description
        try await purgeReachesTheServer(fake, environment: ["PLACES_DATABASE_URL": url], shared: true)
        await fake.shutdown()
    }

    @Test func anotherProcessPurgingSQLiteReachesTheServersNextLookup() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        try await purgeReachesTheServer(fake, environment: [:], shared: false)
        await fake.shutdown()
    }

    /// The reply memo repeats a cache-hit LOOKUP's reply as it was computed, byte for byte: the second LOOKUP is
    /// computed (a cache hit read from the store, whose lease the memo keeps the reply under), the third is the memo's.
    @Test func aMemoisedLookupReplyIsByteIdenticalToTheComputedOne() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try PaidCallMeteringCLITests().home(fake, dailyUSD: "1.0")
        let environment = SharedStateMultiProcessTests.key
        let built = try await offPool { try cli.run(arguments: ["reverse", "60.17,24.94"], environment: environment) }
        #expect(built.status == 0, "\(built.stderr)")
        let server = try await offPool { try RunningServer.start(cli, environment: environment) }
        defer { server.kill() }
        let (replies, memoHits) = try await offPool {
            let client = try RedisLineClient(port: server.port)
            func memoHits() throws -> String? {
                try client.request("INFO cache").split(separator: "\r\n").first { $0.hasPrefix("memo_hits:") }.map(String.init)
            }
            let first = try client.request(Self.request), computed = try client.request(Self.request)
            let before = try memoHits()
            let memoised = try client.request(Self.request)
            return ([first, computed, memoised], [before, try memoHits()])
        }
        await fake.shutdown()
        #expect(fake.requests.count == 1, "\(fake.requests.map(\.uri))")
        #expect(replies[1].hasPrefix("$") && replies[1].contains("Blue Bottle Coffee"), "\(replies[1].prefix(300))")
        #expect(memoHits == ["memo_hits:0", "memo_hits:1"], "the third LOOKUP was the memo's")
        #expect(Array(replies[2].utf8) == Array(replies[1].utf8))
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }

    /// One home, one server: a lookup (one upstream call), its repeats (hits, no call), a purge by a CLI process,
    /// then lookups until the server asks upstream again: on SQLite the very next one (the data version changed with
    /// the purge's commit), on PostgreSQL as soon as the purge's notification arrives, within a deadline.
    func purgeReachesTheServer(_ fake: FakeUpstream, environment extra: [String: String], shared: Bool) async throws {
        let environment = SharedStateMultiProcessTests.key.merging(extra) { $1 }
        let cli = try PaidCallMeteringCLITests().home(fake, dailyUSD: "1.0")
        if shared {
            // Few connections: the test cluster is shared with every other suite running at once.
            let config = cli.home.appendingPathComponent("config.toml")
            try Data((try String(contentsOf: config, encoding: .utf8) + "\n[storage]\npool_size = 2\ntimeout = \"120s\"\n").utf8).write(to: config)
        }
        let built = try await offPool { try cli.run(arguments: ["reverse", "60.17,24.94"], environment: environment) }
        #expect(built.status == 0, "\(built.stderr)")
        let server = try await offPool { try RunningServer.start(cli, environment: environment) }
        defer { server.kill() }

        func lookup() async throws -> String? {
            let (replies, _) = try await offPool { try HalfClosingClient.send(Self.request + "\r\n", port: server.port) }
            return (try? JSONSerialization.jsonObject(with: Data((replies.first ?? "").utf8)) as? [String: Any])?["name"] as? String
        }
        #expect(try await lookup() == "Blue Bottle Coffee")
        #expect(fake.requests.count == 1)
        for _ in 0..<5 { #expect(try await lookup() == "Blue Bottle Coffee") }
        #expect(fake.requests.count == 1, "repeats are cache hits: \(fake.requests.map(\.uri))")

        let purged = try await offPool { try cli.run(arguments: ["cache", "purge"], environment: environment) }
        #expect(purged.status == 0, "\(purged.stderr)")
        // The purge reaches the server as a notification (PostgreSQL) or a data version (SQLite): wait for that
        // condition, not for a time. A server that kept answering from memory would never call upstream again.
        let deadline = ContinuousClock.now + .seconds(shared ? 30 : 0)
        repeat {
            #expect(try await lookup() == "Blue Bottle Coffee")
        } while fake.requests.count == 1 && ContinuousClock.now < deadline
        #expect(fake.requests.count == 2, "after the purge the server asked upstream again")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }
}
