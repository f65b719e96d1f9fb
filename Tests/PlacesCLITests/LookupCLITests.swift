import FakeUpstream
import Foundation
import Testing

/// `places lookup` as a user runs it (issue 13): the same question gives the same answer twice, a doubt
/// is shown as one, and a failing provider is named on stderr without `--explain`.
@Suite(.serialized) struct LookupCLITests {
    /// Runs a lookup and returns its JSON, the exit status and stderr.
    func lookup(_ cli: CLIHarness, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (json: [String: Any], status: Int32, stderr: String) {
        let result = try cli.run(arguments: ["lookup"] + arguments + ["--json"], environment: environment)
        let json = try #require(try result.json() as? [String: Any], "\(result.stderr)")
        return (json, result.status, result.stderr)
    }

    func verdict(_ json: [String: Any]) -> String? { (json["match"] as? [String: Any])?["verdict"] as? String }

    @Test func cafeEngelNearTheSenateSquareIsTheSameAnswerTwice() throws {
        let cli = try CLIHarness.fresh()
        let first = try lookup(cli, ["Cafe Engel", "--near", "60.1696,24.952"])
        let second = try lookup(cli, ["Cafe Engel", "--near", "60.1696,24.952"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\n\(second.stderr)")
        #expect(first.json["name"] as? String == "Cafe Engel")
        // The café is 78 m from the point (hand-measured on the OSM node): an exact, unique name is accepted.
        #expect(verdict(first.json) == "match")
        #expect(second.json["id"] as? String == first.json["id"] as? String)
        #expect(verdict(second.json) == verdict(first.json))
        #expect(second.json["cache"] as? String == "hit")
    }

    @Test func kiasmaOfflineIsTheSameDoubtfulAnswerTwice() throws {
        let cli = try CLIHarness.fresh()
        let first = try lookup(cli, ["Kiasma", "--offline"])
        let second = try lookup(cli, ["Kiasma", "--offline"])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.json["name"] as? String == "Kiasma")
        // A name alone, with no point, address or phone to corroborate it, is a review.
        #expect(verdict(first.json) == "review")
        #expect(second.json["id"] as? String == first.json["id"] as? String)
        #expect(verdict(second.json) == "review")
        #expect(second.json["found"] as? Bool == true)

        let table = try cli.run("lookup", "Kiasma", "--offline")
        #expect(table.status == 0)
        #expect(table.stdoutText.contains("not sure"), "\(table.stdoutText)")
    }

    @Test func aLookupByAddressAndPhoneNeverAcceptsACity() throws {
        let cli = try CLIHarness.fresh()
        let batch = cli.home.appendingPathComponent("restaurants.csv")
        try Data("""
            id,name,address,city,phone,country
            1,Lyon,12 Tremont Street,Boston,617-555-0123,US
            2,Paris,3 Main St,Springfield,413-555-0111,US

            """.utf8).write(to: batch)
        let result = try cli.run("lookup", "--batch", batch.path, "--offline")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 2)
        for line in lines {
            #expect(verdict(line) != "match", "\(line)")
            #expect(line["category"] as? String != "city" || verdict(line) == nil, "a city came back for a restaurant: \(line)")
        }
    }

    /// A Yelp stand-in on 127.0.0.1 that fails every request.
    func failingYelp(_ cli: CLIHarness) async throws -> FakeUpstream {
        let fake = try await FakeUpstream.start { _ in .serverError(503) }
        let config = "[providers.yelp]\nenabled = true\nbase_url = \"\(fake.baseURL.absoluteString)\"\ntimeout_s = 5\n"
        try Data(config.utf8).write(to: cli.home.appendingPathComponent("config.toml"))
        return fake
    }

    @Test func aFailingProviderIsNamedOnStderrAndTheLocalAnswerStillExitsZero() async throws {
        let cli = try CLIHarness.fresh()
        let fake = try await failingYelp(cli)
        // The local index has no rating, so Yelp is asked, and fails.
        let answered = try lookup(cli, ["Maya Bar & Grill", "--near", "60.1721,24.9450", "--fields", "rating"],
                                  environment: ["YELP_API_KEY": FakeRoutes.testKey])
        let unknown = try lookup(cli, ["Zyzzyva Sauna Bar Nowhere", "--near", "60.1721,24.9450"],
                                 environment: ["YELP_API_KEY": FakeRoutes.testKey])
        await fake.shutdown()
        #expect(!fake.requests.isEmpty)
        #expect(answered.status == 0)
        #expect(answered.json["name"] as? String == "Maya Bar & Grill")
        let line = try #require(answered.stderr.split(separator: "\n").first { $0.hasPrefix("places: yelp failed:") },
                                "\(answered.stderr)")
        #expect(line.hasSuffix("; answered from local"), "\(line)")
        #expect(!(answered.json["errors"] as? [String] ?? []).isEmpty)
        #expect(!answered.stderr.contains(FakeRoutes.testKey))

        #expect(unknown.status == 1, "no answer was found")
        #expect(unknown.stderr.contains("places: yelp failed:"), "\(unknown.stderr)")
        #expect(!(unknown.json["errors"] as? [String] ?? []).isEmpty)
    }

    @Test func serverLookupAnswersAnErrorWhenEveryProviderFailedAndLogsIt() async throws {
        let cli = try CLIHarness.fresh()
        let fake = try await failingYelp(cli)
        let server = try RunningServer.start(cli, environment: ["YELP_API_KEY": FakeRoutes.testKey])
        defer { server.kill() }
        let reply = try RESPSocket.request(port: server.port, ["LOOKUP", "Zyzzyva Sauna Bar Nowhere", "NEAR", "60.1721", "24.9450"])
        let known = try RESPSocket.request(port: server.port, ["LOOKUP", "Kiasma", "NEAR", "60.1718", "24.9368"])
        #expect(try server.stop(signal: SIGTERM) == 0)
        await fake.shutdown()
        #expect(reply.hasPrefix("-ERR LOOKUP failed: yelp:"), "\(reply)")
        #expect(!reply.contains(FakeRoutes.testKey))
        #expect(known.hasPrefix("$"), "a place the local index knows is still answered: \(known)")
        #expect(server.stderr.contains("LOOKUP failed"), "\(server.stderr)")
        #expect(!server.stderr.contains(FakeRoutes.testKey))
    }
}

/// One RESP request over a plain TCP socket to 127.0.0.1, and the first reply's raw text.
enum RESPSocket {
    static func request(port: Int, _ arguments: [String], timeout: TimeInterval = 60) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketFailure("connect to 127.0.0.1:\(port) failed") }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var frame = "*\(arguments.count)\r\n"
        for argument in arguments { frame += "$\(argument.utf8.count)\r\n\(argument)\r\n" }
        let bytes = Array(frame.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw SocketFailure("send failed")
        }
        // A simple string or error ends at its first CRLF; a bulk string after its announced length.
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            reply += buffer[0..<count]
            let text = String(decoding: reply, as: UTF8.self)
            guard let lineEnd = text.range(of: "\r\n") else { continue }
            if text.hasPrefix("$"), let length = Int(text[text.index(after: text.startIndex)..<lineEnd.lowerBound]), length >= 0 {
                if reply.count >= text.utf8.distance(from: text.startIndex, to: lineEnd.upperBound) + length + 2 { break }
                continue
            }
            break
        }
        return String(decoding: reply, as: UTF8.self)
    }

    struct SocketFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
