import Foundation
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization
@testable import PlacesServer

/// `places serve --metrics-port` in process: the Redis server and the metrics listener on ephemeral loopback
/// ports, in one `ServiceGroup` as the CLI runs them, logging into a ``LogCapture``.
final class TestMetricsServer: Sendable {
    let redisPort: Int
    let metricsPort: Int
    let exporter: MetricsExporter
    let log: LogCapture
    private let scrapes: ScrapeCount
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Scrapes the listener has started (each asks for the budget figures once).
    var scrapeCount: Int { scrapes.value.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - scrapeGate: when given, every scrape waits at it (a scrape in flight is then a fact, not a timing guess).
    ///   - prepare: called with the registry before the listener starts (to make scrapes larger, say).
    ///   - idleTimeout: an hour unless a test is about the idle timeout: with the listener's 30 s, a full `swift test`
    ///     on two busy cores once left a held connection idle that long and the server closed it, freeing a slot the
    ///     test counted on being taken.
    static func start(configuration: ServerConfiguration = ServerConfiguration(),
                      maxConnections: Int = MetricsHTTPServer.defaultMaxConnections,
                      idleTimeout: TimeAmount = .hours(1), scrapeGate: Gate? = nil,
                      prepare: (PrometheusCollectorRegistry) -> Void = { _ in }) async throws -> TestMetricsServer {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let log = LogCapture()
        let logger = log.logger()
        let registry = PrometheusCollectorRegistry()
        prepare(registry)
        let (ports, continuation) = AsyncStream.makeStream(of: (String, Int).self)
        let server = PlacesServer(configuration: configuration, commands: FakeApplication().commands, logger: logger,
                                  metricsRegistry: registry) { continuation.yield(("redis", $0.port ?? 0)) }
        let scrapes = ScrapeCount()
        let exporter = MetricsExporter(registry: registry, metrics: server.metrics, memo: server.memo) {
            scrapes.value.wrappingAdd(1, ordering: .relaxed)
            await scrapeGate?.pass()
            throw InputError("no budget ledger in this test")
        }
        let listener = MetricsHTTPServer(host: "127.0.0.1", port: 0, exporter: exporter, logger: logger,
                                         maxConnections: maxConnections, idleTimeout: idleTimeout) {
            continuation.yield(("metrics", $0.port ?? 0))
        }
        let group = ServiceGroup(services: [server, listener], gracefulShutdownSignals: [], logger: logger)
        let task = Task { try await group.run() }
        var found: [String: Int] = [:]
        for await (name, port) in ports {
            found[name] = port
            if found.count == 2 { break }
        }
        guard let redisPort = found["redis"], let metricsPort = found["metrics"], redisPort > 0, metricsPort > 0 else {
            task.cancel()
            throw InputError("the test servers did not report their ports: \(found)")
        }
        return TestMetricsServer(redisPort: redisPort, metricsPort: metricsPort, exporter: exporter, log: log,
                                 scrapes: scrapes, group: group, task: task)
    }

    private init(redisPort: Int, metricsPort: Int, exporter: MetricsExporter, log: LogCapture, scrapes: ScrapeCount,
                 group: ServiceGroup, task: Task<Void, any Error>) {
        self.redisPort = redisPort
        self.metricsPort = metricsPort
        self.exporter = exporter
        self.log = log
        self.scrapes = scrapes
        self.group = group
        self.task = task
    }

    /// What SIGTERM does in `places serve`; returns when both listeners have stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

private final class ScrapeCount: Sendable {
    let value = Atomic<Int>(0)
}
