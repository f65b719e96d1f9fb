import FakeUpstream
import Foundation
import LoopbackSocket
import Testing

/// `places serve --metrics-port` as a scraper sees it: the built binary, requests over a real socket, then
/// `GET /metrics` over another, and the counters must have moved by exactly what was sent. Expected values
/// are counted here from what the test sent, and the price is Google's list price (Text Search Pro, $32 per
/// 1,000 calls: $0.032 a call), not read from the code under test.
@Suite("places serve --metrics-port", .serialized)
struct MetricsCLITests {
    @Test func countersMoveByExactlyWhatWasSentAndAPaidCallShowsItsSpend() async throws {
        let fake = try await FakeUpstream.start(handler: FakeRoutes.google())
        let cli = try PaidCallMeteringCLITests().home(fake, dailyUSD: "1.0")
        // The index is built first: a first-run build inside the server can outlast the wait for "listening".
        #expect(try await offPool { try cli.run("reverse", "60.17,24.94") }.status == 0)
        let server = try await offPool {
            try RunningServer.start(cli, arguments: ["--metrics-port", "0"], environment: PaidCallMeteringCLITests.key)
        }
        defer { server.kill() }
        let metricsPort = try await offPool { try Self.metricsPort(of: server) }

        let replies = try await offPool {
            let client = try RedisLineClient(port: server.port)
            // One at a time, so the second and third SEARCH find the first's reply in the memo.
            return try [
                "SEARCH kiasma", "SEARCH kiasma", "SEARCH kiasma",
                "LOOKUP \"Blue Bottle Coffee\" NEAR 37.7763 -122.4232",
                "LOOKUP \"Blue Bottle Coffee\" NEAR 37.7763 -122.4232",
                "NOSUCHCOMMAND x",
            ].map { try client.request($0) }
        }
        #expect(replies[0].hasPrefix("$") && replies[0] == replies[2], "\(replies[0].prefix(200))")
        #expect(replies[3].contains("Blue Bottle Coffee"), "\(replies[3].prefix(300))")
        #expect(replies[5].hasPrefix("-ERR unknown command"), "\(replies[5])")

        let response = try await offPool { try HTTPResponse.get("/metrics", port: metricsPort) }
        await fake.shutdown()
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = try #require(try PrometheusText.parse(response.body), "the body parses as Prometheus text")
        #expect(samples[#"places_requests_total{command="SEARCH"}"#] == 3)
        #expect(samples[#"places_requests_total{command="LOOKUP"}"#] == 2)
        #expect(samples[#"places_requests_total{command="other"}"#] == 1)
        #expect(samples[#"places_requests_total{command="DETAILS"}"#] == 0)
        #expect(samples[#"places_request_duration_seconds_count{command="SEARCH"}"#] == 3)
        #expect(samples[#"places_request_duration_seconds_bucket{command="SEARCH",le="+Inf"}"#] == 3)
        #expect(samples["places_memo_hits_total"] == 2)
        #expect(samples[#"places_errors_total{kind="input"}"#] == 1)
        #expect(samples[#"places_errors_total{kind="provider"}"#] == 0)
        // One call went out and was paid; the second LOOKUP was the lookup cache's.
        #expect(fake.requests.count == 1, "\(fake.requests.map(\.uri))")
        #expect(samples[#"places_paid_calls_total{provider="google"}"#] == 1)
        #expect(samples[#"places_paid_spend_usd_total{provider="google"}"#].map { abs($0 - 0.032) < 1e-9 } == true,
                "\(samples.filter { $0.key.contains("spend") })")
        #expect(samples[#"places_lookup_cache_misses_total{layer="lookup"}"#] == 1)
        #expect(samples[#"places_lookup_cache_hits_total{layer="lookup"}"#] == 1)
        #expect(samples[#"places_budget_left_usd{provider="google",window="day"}"#].map { abs($0 - 0.968) < 1e-9 } == true,
                "\(samples.filter { $0.key.contains("budget") })")

        // INFO reads the same counters: no second count that could drift.
        let info = try await offPool { try RedisLineClient(port: server.port).request("INFO commandstats errorstats") }
        #expect(info.contains("cmdstat_search:calls=3"), "\(info)")
        #expect(info.contains("errorstat_input:count=1"), "\(info)")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }

    @Test func otherPathsMethodsAndGarbageGetHTTPErrorsAndTheServerKeepsServing() async throws {
        let server = try await offPool { try RunningServer.start(CLIHarness.shared, arguments: ["--metrics-port", "0"]) }
        defer { server.kill() }
        let port = try await offPool { try Self.metricsPort(of: server) }
        #expect(try await offPool { try HTTPResponse.get("/", port: port) }.status == 404)
        #expect(try await offPool { try HTTPResponse.get("/metrics/x", port: port) }.status == 404)
        #expect(try await offPool { try HTTPResponse.get("/metrics", method: "POST", port: port) }.status == 405)
        #expect(try await offPool { try HTTPResponse.get("/metrics", method: "DELETE", port: port) }.status == 405)
        let garbage = try await offPool { try HTTPResponse.raw([0x16, 0x03, 0x01, 0x00, 0xff] + Array("\r\n\r\n GET\0 /\r\n\r\n".utf8), port: port) }
        #expect(garbage.hasPrefix("HTTP/1.1 400"), "a TLS hello and NUL bytes: \(garbage.prefix(80))")
        let scraped = try await offPool { try HTTPResponse.get("/metrics?x=1", port: port) }
        #expect(scraped.status == 200)
        #expect(try PrometheusText.parse(scraped.body) != nil)
        #expect(try await offPool { try RedisLineClient(port: server.port).request("PING") } == "+PONG")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }

    @Test func withoutTheFlagNothingListensForMetrics() async throws {
        let server = try await offPool { try RunningServer.start(CLIHarness.shared) }
        defer { server.kill() }
        #expect(try await offPool { try RedisLineClient(port: server.port).request("PING") } == "+PONG")
        #expect(server.listeningPorts == [server.port], "only the Redis port: \(server.listeningPorts)")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        #expect(!server.stderr.contains("metrics listening"), "\(server.stderr)")
    }

    @Test(arguments: [
        (["--metrics-port", "abc"], "invalid --metrics-port 'abc'"),
        (["--metrics-port", "70000"], "invalid --metrics-port '70000'"),
        (["--metrics-port=-1"], "invalid --metrics-port '-1'"),
        (["--metrics-host", "0.0.0.0"], "--metrics-host 0.0.0.0 needs --metrics-port"),
    ])
    func badMetricsOptionsAreOneLineErrors(arguments: [String], message: String) throws {
        let result = try CLIHarness.shared.run(arguments: ["serve", "--port", "0"] + arguments)
        #expect(result.status == 2, "the status of every bad value `places serve` is given, --port's included")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func aTakenMetricsPortSaysSo() throws {
        let first = try RunningServer.start(CLIHarness.shared)
        defer { first.kill() }
        let second = try CLIHarness.shared.run("serve", "--port", "0", "--metrics-port", String(first.port))
        #expect(second.status == 2)
        #expect(second.stderr.contains("cannot listen for metrics on 127.0.0.1:\(first.port)")
                && second.stderr.contains("--metrics-port"), "\(second.stderr)")
        #expect(try first.stop(signal: SIGTERM) == 0)
    }

    /// The port from the "metrics listening" log line, waited for (the listener may start just after the Redis one).
    static func metricsPort(of server: RunningServer) throws -> Int {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            // `address=[IPv4]127.0.0.1/127.0.0.1:40123 path=/metrics … metrics listening`
            if let line = server.stderr.split(separator: "\n").first(where: { $0.contains("metrics listening") }),
               let field = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
               let port = field.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ServeFailure(log: "no \"metrics listening\" line within 60 s\n" + server.stderr)
    }
}

/// Inline Redis requests, one at a time, each reply read whole (a simple or error line, or one bulk string).
struct RedisLineClient {
    let socket: LoopbackSocket

    init(port: Int) throws { socket = try LoopbackSocket(port: port) }

    func request(_ line: String) throws -> String {
        try socket.send(Array((line + "\r\n").utf8))
        var received: [UInt8] = []
        while !Self.isComplete(received) {
            guard case .bytes(let bytes) = socket.receive() else {
                throw ServeFailure(log: "no whole reply to \(line): \(String(decoding: received, as: UTF8.self))")
            }
            received += bytes
        }
        return String(decoding: received, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let lineEnd = text.range(of: "\r\n") else { return false }
        guard text.hasPrefix("$") else { return true }
        guard let length = Int(text[text.index(after: text.startIndex)..<lineEnd.lowerBound]) else { return true }
        return length < 0 || bytes.count >= text.utf8.distance(from: text.utf8.startIndex, to: lineEnd.upperBound) + length + 2
    }
}

/// One HTTP/1.1 exchange over a loopback socket, read until the server closes (`Connection: close`).
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    static func get(_ path: String, method: String = "GET", port: Int) throws -> HTTPResponse {
        let text = try raw(Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), port: port)
        guard let split = text.range(of: "\r\n\r\n") else { throw ServeFailure(log: "no HTTP head: \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPResponse(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    static func raw(_ request: [UInt8], port: Int) throws -> String {
        let socket = try LoopbackSocket(port: port)
        try socket.send(request)
        var received: [UInt8] = []
        while case .bytes(let bytes) = socket.receive() { received += bytes }
        return String(decoding: received, as: UTF8.self)
    }
}

/// Prometheus's text exposition format 0.0.4, read strictly: `# HELP`/`# TYPE` comments, and samples
/// `name{label="value",…} number`. `nil` when any line breaks the format.
enum PrometheusText {
    static func parse(_ text: String) throws -> [String: Double]? {
        let sample = try Regex(#"^([a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})?) (\S+)$"#)
        let comment = try Regex(#"^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))$"#)
        guard text.hasSuffix("\n") else { return nil }
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") {
                guard line.wholeMatch(of: comment) != nil else { return nil }
                continue
            }
            guard let match = line.wholeMatch(of: sample),
                  let series = match.output[1].substring, let number = match.output[4].substring,
                  let value = Double(number == "+Inf" ? "inf" : String(number)) else { return nil }
            samples[String(series)] = value
        }
        return samples
    }
}
