import FakeUpstream
import Foundation
import LoopbackSocket
import PostgresTestCluster
import Testing

/// Several `places` processes on one PostgreSQL database behave as one service (issue 15): two `places serve`
/// instances and CLI processes, each with its own home (its own local index, no shared files), share one budget,
/// one cache and one spot store. A Google stand-in on 127.0.0.1 counts the calls that really went out.
///
/// Prices are Google's list prices, hand-checked against its price sheet: a Text Search call costs at least
/// $0.032, so a $0.16 daily limit allows at most 5 calls, however many processes ask.
@Suite("shared state across processes", .serialized,
       .enabled(if: PostgresTestCluster.isAvailable, Comment(rawValue: PostgresTestCluster.skipReason)))
struct SharedStateMultiProcessTests {
    static let key = ["GOOGLE_PLACES_API_KEY": FakeRoutes.testKey]

    /// Two homes configured alike (Google on `fake`, `dailyUSD` for Google, no free allowance), each with its
    /// index built, both pointed at one fresh database.
    func homes(_ fake: FakeUpstream, dailyUSD: String) async throws -> (homes: [CLIHarness], environment: [String: String]) {
        let url = try await PostgresTestCluster.freshDatabase("shared").description
        let environment = Self.key.merging(["PLACES_DATABASE_URL": url]) { $1 }
        var homes: [CLIHarness] = []
        for _ in 0..<2 {
            // The metering tests' home: Google on the fake, the other providers off, no free allowance.
            let cli = try PaidCallMeteringCLITests().home(fake, dailyUSD: dailyUSD)
            // Few connections per process: the test cluster is shared with every other suite running at once.
            let config = cli.home.appendingPathComponent("config.toml")
            try Data((try String(contentsOf: config, encoding: .utf8) + "\n[storage]\npool_size = 2\ntimeout = \"120s\"\n").utf8).write(to: config)
            let built = try await offPool { try cli.run(arguments: ["reverse", "60.17,24.94"], environment: environment) }
            #expect(built.status == 0, "\(built.stderr)")
            homes.append(cli)
        }
        return (homes, environment)
    }

    /// Sends each request on a connection of its own, all at once, and returns the replies in request order (a
    /// null bulk reply, "no such place", is ""); `complete` says whether every connection ended after its reply.
    static func concurrently(_ requests: [(port: Int, request: String)]) async throws -> (replies: [String], complete: Bool) {
        try await withThrowingTaskGroup(of: (Int, String, Bool).self) { group in
            for (index, item) in requests.enumerated() {
                group.addTask {
                    let (replies, closed) = try await offPool { try HalfClosingClient.send(item.request + "\r\n", port: item.port) }
                    return (index, replies.first ?? "", closed && replies.count == 1)
                }
            }
            var replies = Array(repeating: "", count: requests.count)
            var complete = true
            for try await (index, reply, closed) in group {
                replies[index] = reply
                complete = complete && closed
            }
            return (replies, complete)
        }
    }

    /// Google's calls today as the shared ledger recorded them, read by `home`'s CLI.
    static func ledgerCalls(_ home: CLIHarness, _ environment: [String: String]) throws -> Int {
        let result = try home.run(arguments: ["budget", "--json"], environment: environment)
        let report = try #require(try result.json() as? [String: Any], "\(result.stderr)")
        let google = (report["providers"] as? [[String: Any]] ?? []).first { $0["provider"] as? String == "google" }
        return (google?["today"] as? [String: Any])?["calls"] as? Int ?? 0
    }

    @Test func aHundredDistinctLookupsFromFourProcessesSpendOneBudget() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let (homes, environment) = try await homes(fake, dailyUSD: "0.16")
        let servers = try await offPool { try homes.map { try RunningServer.start($0, environment: environment) } }
        defer { servers.forEach { $0.kill() } }
        // 80 through the two servers, 20 through two CLI processes (a batch of 10 each, 5 at a time), all at once.
        let socketRequests = (0..<80).map { index in
            (port: servers[index % 2].port, request: "LOOKUP \"Blue Bottle Coffee \(index)\" NEAR 37.7763 -122.4232")
        }
        async let replies = Self.concurrently(socketRequests)
        let printed = try await withThrowingTaskGroup(of: CLIHarness.Result.self) { group in
            for process in 0..<2 {
                let batch = homes[process].home.appendingPathComponent("batch.csv")
                let rows = (0..<10).map { "\(80 + process * 10 + $0),Blue Bottle Coffee \(80 + process * 10 + $0),37.7763,-122.4232" }
                try Data((["id,name,lat,lon"] + rows).joined(separator: "\n").utf8).write(to: batch)
                group.addTask {
                    try await offPool {
                        try homes[process].run(arguments: ["lookup", "--batch", batch.path, "--concurrency", "5"], environment: environment)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let answered = try await replies
        #expect(answered.complete, "every client got its reply")
        // Past the budget a lookup finds nothing it may pay for: a null reply, never an error.
        #expect(answered.replies.allSatisfy { !$0.hasPrefix("-") }, "\(answered.replies.filter { $0.hasPrefix("-") }.prefix(3))")
        #expect(printed.allSatisfy { $0.status == 0 }, "\(printed.map(\.stderr).filter { !$0.isEmpty }.prefix(3))")
        let upstream = fake.requests.count
        #expect(upstream <= 5, "a $0.16 limit allows at most 5 calls of at least $0.032: \(upstream) went out")
        #expect(upstream >= 1)
        #expect(try Self.ledgerCalls(homes[1], environment) == upstream, "the shared ledger counts every call that went out")
        for server in servers { #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0) }
        await fake.shutdown()
    }

    @Test func twentyLookupsOfOneNameAcrossBothServersMakeOneUpstreamCall() async throws {
        // A slow answer keeps the first call in flight while the others arrive at both instances.
        let google = FakeRoutes.google()
        let fake = try await FakeUpstream.start { request in .slow(1, then: google(request)) }
        let (homes, environment) = try await homes(fake, dailyUSD: "1.0")
        let servers = try await offPool { try homes.map { try RunningServer.start($0, environment: environment) } }
        defer { servers.forEach { $0.kill() } }
        let request = "LOOKUP \"Blue Bottle Coffee\" NEAR 37.7763 -122.4232"
        let (replies, complete) = try await Self.concurrently((0..<20).map { (port: servers[$0 % 2].port, request: request) })
        #expect(complete)
        let names = replies.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["name"] as? String }
        #expect(names.allSatisfy { $0 == "Blue Bottle Coffee" }, "\(replies.prefix(3))")
        #expect(fake.requests.count == 1, "\(fake.requests.map(\.uri))")
        #expect(try Self.ledgerCalls(homes[0], environment) == 1)
        for server in servers { #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0) }
        await fake.shutdown()
    }

    @Test func aSpotAddedThroughOneServerIsListedByTheOtherAndTheCLIByteForByte() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let (homes, environment) = try await homes(fake, dailyUSD: "1.0")
        let servers = try await offPool { try homes.map { try RunningServer.start($0, environment: environment) } }
        defer { servers.forEach { $0.kill() } }
        let added = try await offPool {
            try HalfClosingClient.send(#"SPOT.ADD "Cafe Regatta" 60.1830 24.9096 CATEGORY cafe TAG coffee RATING like"# + "\r\n",
                                       port: servers[0].port)
        }.replies
        #expect(added.first?.hasPrefix("{") == true, "\(added)")
        let listings = try await Self.concurrently(servers.map { (port: $0.port, request: "SPOT.LIST") }).replies
        #expect(listings[0] == listings[1])
        #expect(listings[1].contains("Cafe Regatta"))
        let printed = try await offPool { try homes[1].run(arguments: ["spots", "list", "--json"], environment: environment) }
        #expect(printed.stdoutText == listings[1] + "\n")
        for server in servers { #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0) }
        await fake.shutdown()
    }
}
