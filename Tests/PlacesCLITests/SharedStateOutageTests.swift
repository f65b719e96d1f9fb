import Foundation
import LoopbackSocket
import PostgresTestCluster
import Testing

/// PostgreSQL stopped and restarted under load (issue 15). Two `places serve` instances and a CLI process keep
/// adding spots, each under a name of its own, while the database goes away and comes back. Meanwhile requests that
/// need it get one clear line (`-ERR storage unavailable: …` from a server, `places: storage unavailable: …` and
/// exit 1 from the CLI) and the local index keeps answering; no server crashes; once it is back the same processes
/// serve fully again. Afterwards every acknowledged spot is stored, whole, exactly once, and no refused one is.
///
/// The cluster is this test's own (``PrivateCluster``), so stopping it disturbs no other test; its directory is
/// removed at the end. Every wait is on a condition with a deadline that bounds only a failure.
@Suite("shared state outage", .serialized,
       .enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
struct SharedStateOutageTests {
    /// Where the load adds its spots (Kiasma), so a stored spot can be checked field by field.
    static let latitude = 60.1717, longitude = 24.9363

    /// Sends one request on its own connection and returns its reply ("" when none came).
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
        return try await condition()
    }

    @Test func stoppedAndRestartedUnderLoadLosesNothingAndRecovers() async throws {
        let cluster = try await offPool { try PrivateCluster.start() }
        defer { cluster.stop() }
        let cli = try CLIHarness.fresh()
        // A short pool timeout so the outage shows quickly; the test's own deadlines are far longer.
        try Data("[storage]\ntimeout = \"3s\"\npool_size = 2\n".utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        let environment = ["PLACES_DATABASE_URL": cluster.url]
        let built = try await offPool { try cli.run(arguments: ["reverse", "60.17,24.94"], environment: environment) }
        #expect(built.status == 0, "\(built.stderr)")
        let servers = try await offPool {
            try [RunningServer.start(cli, environment: environment), RunningServer.start(cli, environment: environment)]
        }
        defer { servers.forEach { $0.kill() } }

        // The load: SPOT.ADD after SPOT.ADD alternating between the servers, and `places spots add` after
        // `places spots add` from the CLI, each outcome recorded under its spot's unique name.
        let outcomes = Outcomes()
        let serverLoad = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let name = "Server spot \(n)"
                let reply = (try? await Self.ask(servers[n % 2].port, "SPOT.ADD \"\(name)\" \(Self.latitude) \(Self.longitude)")) ?? ""
                outcomes.record(name: name, via: .server, saved: reply.hasPrefix("{"), message: reply)
            }
        }
        defer { serverLoad.cancel() }
        let cliLoad = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let name = "CLI spot \(n)"
                let arguments = ["spots", "add", "--no-address", "--at", "\(Self.latitude),\(Self.longitude)", "--name", name]
                let result = try? await offPool { try cli.run(arguments: arguments, environment: environment) }
                outcomes.record(name: name, via: .cli, saved: result?.status == 0,
                                message: result.map { "exit \($0.status): \($0.stderr)" } ?? "the CLI did not run")
            }
        }
        defer { cliLoad.cancel() }

        #expect(try await Self.eventually(within: 300) { outcomes.saved(via: .server) >= 5 && outcomes.saved(via: .cli) >= 2 },
                "spots are saved before the outage: \(outcomes.refusals.suffix(3))")
        try await offPool { try cluster.pause() }
        #expect(try await Self.eventually(within: 300) {
            outcomes.refusals(via: .server) >= 2 && outcomes.refusals(via: .cli) >= 1
        }, "the outage is seen by both kinds of client: \(outcomes.refusals.suffix(3))")
        // The local index needs no database.
        for server in servers {
            let search = try await Self.ask(server.port, "SEARCH kiasma LIMIT 1")
            #expect(search.hasPrefix("[") && search.contains("Kiasma"), "SEARCH during the outage: \(search)")
        }

        try await offPool { try cluster.resume() }
        let (serverSavedBefore, cliSavedBefore) = (outcomes.saved(via: .server), outcomes.saved(via: .cli))
        #expect(try await Self.eventually(within: 300) {
            outcomes.saved(via: .server) >= serverSavedBefore + 5 && outcomes.saved(via: .cli) >= cliSavedBefore + 2
        }, "writes succeed again through both servers and the CLI: \(outcomes.refusals.suffix(3))")
        serverLoad.cancel()
        cliLoad.cancel()
        _ = await (serverLoad.value, cliLoad.value)

        // Every refusal was the one clear line, nothing else (no crash, no hang, no half answer).
        for refusal in outcomes.refusals {
            switch refusal.via {
            case .server:
                #expect(refusal.message.hasPrefix("-ERR storage unavailable: PostgreSQL at 127.0.0.1:"), "\(refusal.message)")
            case .cli:
                #expect(refusal.message.hasPrefix("exit 1: places: storage unavailable: PostgreSQL at 127.0.0.1:")
                        && refusal.message.split(separator: "\n").count == 1, "\(refusal.message)")
            }
        }

        // Both servers list the same spots: each acknowledged one exactly once and whole, no refused one.
        for server in servers {
            let listed = try await Self.ask(server.port, "SPOT.LIST")
            let spots = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]], "\(listed.prefix(300))")
            var countByName: [String: Int] = [:]
            for spot in spots {
                let name = spot["name"] as? String ?? "?"
                countByName[name, default: 0] += 1
                #expect(spot["lat"] as? Double == Self.latitude && spot["lon"] as? Double == Self.longitude, "\(spot)")
            }
            let acknowledged = outcomes.savedNames
            #expect(acknowledged.allSatisfy { countByName[$0] == 1 },
                    "acknowledged but not stored once: \(acknowledged.filter { countByName[$0] != 1 }.prefix(5))")
            let refusedButStored = outcomes.refusals.map(\.name).filter { countByName[$0] != nil }
            #expect(refusedButStored.isEmpty, "refused but stored: \(refusedButStored.prefix(5))")
            #expect(countByName.count == acknowledged.count, "stored spots nobody added: \(countByName.count) vs \(acknowledged.count)")
        }
        for server in servers {
            #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0, "\(server.stderr.suffix(500))")
        }
    }
}

/// What the load's clients were told: the names whose add was acknowledged, and the refusals with their message.
final class Outcomes: @unchecked Sendable {
    enum Client: Sendable { case server, cli }
    struct Refusal: Sendable {
        var name: String
        var via: Client
        var message: String
    }

    private let lock = NSLock()
    private var savedByClient: [(name: String, via: Client)] = []
    private var refused: [Refusal] = []

    func record(name: String, via client: Client, saved: Bool, message: String) {
        lock.withLock {
            if saved {
                savedByClient.append((name, client))
            } else {
                refused.append(Refusal(name: name, via: client, message: message))
            }
        }
    }

    var savedNames: [String] { lock.withLock { savedByClient.map(\.name) } }
    var refusals: [Refusal] { lock.withLock { refused } }
    func saved(via client: Client) -> Int { lock.withLock { savedByClient.filter { $0.via == client }.count } }
    func refusals(via client: Client) -> Int { lock.withLock { refused.filter { $0.via == client }.count } }
}
