import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GoogleProvider
import NIOCore
import NIOHTTP1
import NIOPosix
import PlacesApp
import PlacesCore
import ProviderHTTP

/// `places-bench http [calls]`: the per-call overhead of the shared HTTP layer against a local fake
/// upstream (a NIO HTTP/1.1 server on 127.0.0.1 answering a recorded Google Text Search reply),
/// with 1 and with 16 concurrent callers.
///
/// Three layers are timed on the same server so the difference is the layer's own cost:
/// `raw` (URLSession alone), `client` (``HTTPClient/send(_:)``: breaker, limiter, retry bookkeeping,
/// headers, classification) and `google` (a full ``GoogleProvider/search(_:)``: request body,
/// field mask, JSON decoding and mapping to `Place`).
enum HTTPBenchmark {
    static func run(arguments: [String]) async throws {
        let calls = arguments.first.flatMap(Int.init) ?? 2_000
        let server = try await BenchUpstream.start(body: BenchUpstream.searchReply)
        defer { Task { try? await server.close() } }
        let base = URL(string: "http://127.0.0.1:\(server.localAddress!.port!)")!

        let session = URLSession(configuration: .ephemeral)
        let transport = URLSessionTransport()
        let rawURL = base.appendingPathComponent("v1/places:searchText")
        let client = HTTPClient(
            configuration: HTTPClientConfiguration(
                provider: "google", baseURL: base, timeout: 10, userAgent: PlacesVersion.userAgentProduct,
                retry: .never, secrets: ["bench-key"]),
            limiter: RateLimiter(requestsPerSecond: 0))
        let google = GoogleProvider(client: client)
        let query = SearchQuery(text: "Blue Bottle Coffee", near: Coordinate(latitude: 37.7763, longitude: -122.4232))

        let layers: [(String, @Sendable () async throws -> Void)] = [
            ("raw", {
                var request = URLRequest(url: rawURL)
                request.httpMethod = "POST"
                request.httpBody = Data(#"{"textQuery":"Blue Bottle Coffee"}"#.utf8)
                _ = try await session.data(for: request)
            }),
            ("transport", {
                _ = try await transport.send(HTTPRequest(method: .post, url: rawURL, headers: ["X-Goog-FieldMask": "places.id"],
                                                         body: Data(#"{"textQuery":"Blue Bottle Coffee"}"#.utf8)), timeout: 10,
                                                         maxBodyBytes: HTTPClientConfiguration.defaultMaxBodyBytes)
            }),
            ("client", {
                _ = try await client.send(HTTPRequest(method: .post, url: rawURL, headers: ["X-Goog-FieldMask": "places.id"],
                                                      body: Data(#"{"textQuery":"Blue Bottle Coffee"}"#.utf8)))
            }),
            ("google", { _ = try await google.search(query) }),
        ]
        print("http.calls_per_run \(calls) calls")
        for concurrency in [1, 16] {
            var medians: [String: Double] = [:]
            for (name, call) in layers {
                _ = try await measure(calls: min(200, calls), concurrency: concurrency, call)   // warm-up: connections, caches
                let result = try await measure(calls: calls, concurrency: concurrency, call)
                medians[name] = result.p50
                let label = "http.\(name).c\(concurrency)"
                print("\(label).throughput \(format(result.callsPerSecond)) calls/s")
                print("\(label).p50 \(format(result.p50 * 1e6)) us")
                print("\(label).p99 \(format(result.p99 * 1e6)) us")
            }
            if let raw = medians["raw"], let client = medians["client"], let google = medians["google"] {
                print("http.overhead.client_vs_raw.c\(concurrency).p50 \(format((client - raw) * 1e6)) us")
                print("http.overhead.google_vs_client.c\(concurrency).p50 \(format((google - client) * 1e6)) us")
            }
        }
    }

    struct Result {
        var callsPerSecond: Double
        var p50: Double
        var p99: Double
    }

    static func measure(calls: Int, concurrency: Int, _ call: @escaping @Sendable () async throws -> Void) async throws -> Result {
        let clock = ContinuousClock()
        let perWorker = max(1, calls / concurrency)
        let started = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var own: [Double] = []
                    own.reserveCapacity(perWorker)
                    for _ in 0..<perWorker {
                        let t0 = clock.now
                        try await call()
                        own.append(seconds(clock.now - t0))
                    }
                    return own
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        let elapsed = seconds(clock.now - started)
        let sorted = latencies.sorted()
        return Result(callsPerSecond: Double(sorted.count) / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// The smallest upstream that answers every request with one fixed JSON body over keep-alive HTTP/1.1,
/// so the timings measure the client, not the server.
enum BenchUpstream {
    static func start(body: String) async throws -> any Channel {
        let bytes = Array(body.utf8)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FixedReplyHandler(body: bytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    final class FixedReplyHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let body: [UInt8]
        init(body: [UInt8]) { self.body = body }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// A recorded-style Text Search reply with one place (the default field set).
    static let searchReply = #"""
    {"places":[{"id":"ChIJ6c2CLJ6AhYARqOkfq4DkL6k","displayName":{"text":"Blue Bottle Coffee","languageCode":"en"},
    "location":{"latitude":37.7763209,"longitude":-122.4232337},"formattedAddress":"315 Linden St, San Francisco, CA 94102, USA",
    "addressComponents":[{"longText":"315","shortText":"315","types":["street_number"]},{"longText":"Linden Street","shortText":"Linden St","types":["route"]},
    {"longText":"San Francisco","shortText":"SF","types":["locality","political"]},{"longText":"United States","shortText":"US","types":["country","political"]},
    {"longText":"94102","shortText":"94102","types":["postal_code"]}],"types":["coffee_shop","cafe","food_store","establishment"],"primaryType":"coffee_shop"}]}
    """#
}
