import FakeUpstream
import Foundation
import LoopbackSocket
import PostgresTestCluster
import Testing

/// PostgreSQL stopped and restarted under load (issue 15): while it is down, requests that need it get
/// `-ERR storage unavailable: …` within the pool's timeout and the local index keeps answering; no server crashes;
/// once it is back the same servers serve fully again, and every spot whose SPOT.ADD was acknowledged is there.
/// The cluster is this test's own, so stopping it disturbs no other test.
@Suite("shared state outage", .serialized,
       .enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
struct SharedStateOutageTests {
    /// Sends one request on its own connection and returns its reply.
    static func ask(_ port: Int, _ request: String) async throws -> String {
        try await offPool { try HalfClosingClient.send(request + "\r\n", port: port) }.replies.first ?? ""
    }

    /// Polls `condition` until it holds or `seconds` pass (a bound for a failure, not a wait that must be long enough).
    static func eventually(within seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func stoppedAndRestartedUnderLoadLosesNothingAndRecovers() async throws {
        let cluster = try await offPool { try PrivateCluster.start() }
        defer { cluster.stop() }
        let cli = try CLIHarness.fresh()
        // A short pool timeout so the outage shows quickly; the test's own deadlines are far longer.
        try Data("[storage]\ntimeout = \"3s\"\npool_size = 2\n".utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        let environment = ["PLACES_DATABASE_URL": cluster.url]
        #expect(try await offPool { try cli.run(arguments: ["reverse", "60.17,24.94"], environment: environment) }.status == 0)
        let servers = try await offPool {
            try [RunningServer.start(cli, environment: environment), RunningServer.start(cli, environment: environment)]
        }
        defer { servers.forEach { $0.kill() } }

        // The load: SPOT.ADD after SPOT.ADD, alternating servers, each reply recorded.
        let acknowledged = Recorder()
        let load = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let name = "Load \(n)"
                let reply = (try? await Self.ask(servers[n % 2].port, "SPOT.ADD \"\(name)\" 60.1717 24.9363")) ?? ""
                acknowledged.record(name: name, reply: reply)
            }
        }
        defer { load.cancel() }
        #expect(try await Self.eventually(within: 120) { acknowledged.saved.count >= 5 }, "spots are saved before the outage")

        try await offPool { try cluster.pause() }
        #expect(try await Self.eventually(within: 120) {
            acknowledged.errors.contains { $0.hasPrefix("-ERR storage unavailable: PostgreSQL at 127.0.0.1:") }
        }, "the outage is reported as such: \(acknowledged.errors.suffix(3))")
        // The local index needs no database.
        for server in servers {
            let search = try await Self.ask(server.port, "SEARCH kiasma LIMIT 1")
            #expect(search.hasPrefix("["), "SEARCH during the outage: \(search)")
        }
        #expect(acknowledged.errors.allSatisfy { $0.hasPrefix("-ERR storage unavailable") }, "\(Set(acknowledged.errors).prefix(3))")

        try await offPool { try cluster.resume() }
        let savedBefore = acknowledged.saved.count
        #expect(try await Self.eventually(within: 120) { acknowledged.saved.count >= savedBefore + 5 }, "writes succeed again")
        load.cancel()
        _ = await load.value

        let listed = try await Self.ask(servers[1].port, "SPOT.LIST")
        let names = Set(((try? JSONSerialization.jsonObject(with: Data(listed.utf8))) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        let missing = acknowledged.saved.filter { !names.contains($0) }
        #expect(missing.isEmpty, "acknowledged but not stored: \(missing.prefix(5))")
        for server in servers { #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0, "\(server.stderr.suffix(500))") }
    }
}

/// The load's replies: names whose SPOT.ADD was acknowledged, and the error replies.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var savedNames: [String] = []
    private var errorReplies: [String] = []

    func record(name: String, reply: String) {
        lock.withLock {
            if reply.hasPrefix("{") { savedNames.append(name) } else { errorReplies.append(reply) }
        }
    }

    var saved: [String] { lock.withLock { savedNames } }
    var errors: [String] { lock.withLock { errorReplies } }
}
