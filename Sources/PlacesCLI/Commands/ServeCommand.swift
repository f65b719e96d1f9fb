import ArgumentParser
import BudgetLedger
import CoreMetrics
import Foundation
import Logging
import PlacesApp
import PlacesCore
import PlacesServer
import Prometheus
import RESP
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a long-lived lookup server that speaks the Redis protocol (RESP2).",
        discussion: """
            Any Redis client, redis-cli and redis-benchmark can talk to it. Each command mirrors a CLI command \
            and replies with the same JSON as its --json output, in a bulk string; a miss is a nil reply.
            Send HELP for the full list. Logs go to stderr. SIGTERM or Ctrl-C stops accepting connections, \
            finishes the requests in flight and exits 0.

            It listens on 127.0.0.1 only unless --host says otherwise. Before exposing it beyond this \
            machine, set a password: it is read from the environment variable named by --requirepass-env, \
            so it never shows up in `ps`.

            Examples:
              places serve
              redis-cli -p 7878 SEARCH "maya bar" NEAR 60.1721 24.9450
              redis-cli -p 7878 DETAILS geonames:658225
              redis-cli -p 7878 SPOT.ADD "Cafe Regatta" 60.1830 24.9096 TAG coffee
              redis-cli -p 7878 SPOT.LIST SORT distance AT 60.17 24.94
              printf 'PING\\r\\n' | nc 127.0.0.1 7878
              printf 'SEARCH kiasma\\r\\n' | nc -N 127.0.0.1 7878   (answered, then closed)
              PLACES_PASSWORD=s3cret places serve --host 0.0.0.0 --requirepass-env PLACES_PASSWORD
              places serve --metrics-port 9464
              curl -s http://127.0.0.1:9464/metrics   (Prometheus text; the README lists the metrics)
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The TCP port (0 picks a free one and logs it).")
    var port = 7878

    @Option(name: .customLong("requirepass-env"),
            help: ArgumentHelp("Require AUTH with the password held in this environment variable.", valueName: "VAR"))
    var requirePasswordVariable: String?

    @Option(name: .customLong("max-clients"), parsing: .unconditional, help: ArgumentHelp("Refuse connections beyond this many.", valueName: "N"))
    var maxClients = 10_000

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Close connections silent for this many seconds; 0 never does.", valueName: "S"))
    var idleTimeout = 300

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"))
    var logLevel = "info"

    @Option(name: .customLong("event-loops"), parsing: .unconditional,
            help: ArgumentHelp("Event-loop threads; the default is half the cores on this machine, at least one.", valueName: "N"))
    var eventLoops = ServerConfiguration.defaultEventLoopCount

    @Option(name: .customLong("memo-ttl"), parsing: .unconditional,
            help: ArgumentHelp("Repeat identical read replies from memory for this many seconds; 0 turns the memo off "
                               + "(an index re-import then shows at once).", valueName: "S"))
    var memoTimeToLive = 30

    @Option(name: .customLong("max-argument-bytes"),
            help: ArgumentHelp("The largest argument a request may carry (PING and ECHO: at least 1 MiB).", valueName: "BYTES"))
    var maxArgumentBytes = RESPLimits().maxBulkLength

    @Option(name: .customLong("max-request-bytes"),
            help: ArgumentHelp("The most bytes one request's arguments may add up to (the per-client query buffer); "
                               + "a larger request gets an error and its connection is closed.", valueName: "BYTES"))
    var maxRequestBytes = RESPLimits().maxRequestLength

    @Option(name: .customLong("max-in-flight-bytes"),
            help: ArgumentHelp("The most bytes all clients' large or slow requests may hold at once; beyond it, "
                               + "requests are refused with an error.", valueName: "BYTES"))
    var maxInFlightBytes = ServerConfiguration().maxRequestBytesInFlight

    @Option(name: .customLong("metrics-port"),
            help: ArgumentHelp("Serve Prometheus metrics over HTTP at GET /metrics on this port (off unless given; "
                               + "0 picks a free one and logs it).", valueName: "PORT"))
    var metricsPort: String?

    @Option(name: .customLong("metrics-host"),
            help: ArgumentHelp("The address the metrics listener binds to.", valueName: "HOST"))
    var metricsHost = "127.0.0.1"

    @OptionGroup var state: StateOptions

    func run() async throws {
        try await reportingErrors(verbose: state.verbose) {
            guard (0...65_535).contains(port) else { throw InputError("invalid --port \(port): expected 0…65535") }
            guard maxClients >= 1 else { throw InputError("invalid --max-clients \(maxClients): expected 1 or more") }
            guard (1...1_024).contains(eventLoops) else { throw InputError("invalid --event-loops \(eventLoops): expected 1…1024") }
            guard memoTimeToLive >= 0 else { throw InputError("invalid --memo-ttl \(memoTimeToLive): expected seconds, 0 or more") }
            // A year at most: beyond that NIO's nanosecond count would overflow.
            guard (0...31_536_000).contains(idleTimeout) else {
                throw InputError("invalid --idle-timeout \(idleTimeout): expected seconds, 0…31536000 (a year)")
            }
            guard maxArgumentBytes >= 1024 else {
                throw InputError("invalid --max-argument-bytes \(maxArgumentBytes): expected 1024 or more")
            }
            guard maxRequestBytes >= maxArgumentBytes else {
                throw InputError("invalid --max-request-bytes \(maxRequestBytes): expected at least --max-argument-bytes (\(maxArgumentBytes))")
            }
            guard maxInFlightBytes >= maxRequestBytes else {
                throw InputError("invalid --max-in-flight-bytes \(maxInFlightBytes): expected at least --max-request-bytes (\(maxRequestBytes))")
            }
            // Read as text, so "abc" gets this one line and exit status 1 like any other bad value.
            var metricsPort: Int?
            if let text = self.metricsPort {
                guard let number = Int(text.trimmingCharacters(in: .whitespaces)), (0...65_535).contains(number) else {
                    throw InputError("invalid --metrics-port '\(text.prefix(40))': expected a port number, 0…65535")
                }
                metricsPort = number
            }
            if metricsPort == nil && metricsHost != "127.0.0.1" {
                throw InputError("--metrics-host \(metricsHost.prefix(60)) needs --metrics-port")
            }
            guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
                throw InputError("invalid --log-level '\(logLevel)': expected trace, debug, info, notice, warning, error or critical")
            }
            let environment = state.environment
            var password: [UInt8]?
            if let name = requirePasswordVariable {
                guard let value = environment.variables[name], !value.isEmpty else {
                    throw InputError("--requirepass-env \(name): the environment variable \(name) is not set or empty")
                }
                password = Array(value.utf8)
            }
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let logger = Logger(label: "places.serve")
            // Before anything opens: the pipeline makes its counters (paid calls, spend, cache hits) as providers
            // are built, through swift-metrics, and they must land in the registry /metrics shows.
            let metricsRegistry = metricsPort.map { _ in PrometheusCollectorRegistry() }
            if let metricsRegistry { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metricsRegistry)) }
            let app = try PlacesApplication.open(environment, notice: { printError($0) }, logger: logger, lifetime: .serving)
            try app.openLocalIndex()
            let application = ServerApplication(
                places: .success(app),
                lookup: Self.opening("LOOKUP, BUDGET and CACHE.STATS", state: state, logger: logger) {
                    for (provider, reason) in try app.unusableProviders() {
                        logger.notice("provider \(provider) is skipped: \(reason)")
                    }
                    return app
                },
                spots: Self.opening("the SPOT.* commands", state: state, logger: logger) { try app.spots })

            var limits = RESPLimits()
            limits.maxBulkLength = maxArgumentBytes
            limits.maxRequestLength = maxRequestBytes
            let configuration = ServerConfiguration(
                host: host, port: port, password: password, maxClients: maxClients,
                idleTimeoutSeconds: idleTimeout, limits: limits, eventLoopCount: eventLoops,
                maxRequestBytesInFlight: maxInFlightBytes, version: PlacesVersion.string)
            let server = PlacesServer(configuration: configuration, commands: .places(application), logger: logger,
                                      memo: ReplyMemo(timeToLive: .seconds(memoTimeToLive)), metricsRegistry: metricsRegistry)
            var services: [any Service] = [server]
            if let metricsRegistry, let metricsPort {
                var budgetReport: (@Sendable () async throws -> BudgetReport)?
                if case .success(let lookup) = application.lookup {
                    budgetReport = { try await lookup.budgetReport() }
                }
                let exporter = MetricsExporter(
                    registry: metricsRegistry, metrics: server.metrics, memo: server.memo, budgetReport: budgetReport)
                services.append(MetricsHTTPServer(host: metricsHost, port: metricsPort, exporter: exporter, logger: logger))
            }
            let group = ServiceGroup(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            // Shared state: the periodic purge and the refund of dangling reservations, until the server stops.
            let maintenance = try app.sharedStateMaintenance().map { upkeep in
                Task { await upkeep.run { logger.notice("\($0)") } }
            }
            defer { maintenance?.cancel() }
            do {
                try await group.run()
            } catch let error as ServerStartError where error.port == metricsPort && error.host == metricsHost {
                throw InputError("cannot listen for metrics on \(error.host):\(error.port): \(error.reason) "
                                 + "(is another server using the port? try another --metrics-port, or check --metrics-host)")
            } catch let error as ServerStartError {
                throw InputError("cannot listen on \(error.host):\(error.port): \(error.reason) "
                                 + "(is another server using the port? try --port, or check --host)")
            }
        }
    }

    /// A part of the application for the commands that need it; when it cannot open (a locked database, a
    /// broken config.toml) those commands answer with the reason and the others still serve.
    static func opening<Part>(_ commands: String, state: StateOptions, logger: Logger,
                              _ open: () throws -> Part) -> Result<Part, ServerBackendError> {
        do { return .success(try open()) } catch {
            let reason = StorageError.classify(error, directory: state.environment.dataDirectory).map { "\($0)" } ?? "\(error)"
            logger.error("\(commands) cannot run: \(reason)")
            return .failure(.notOpened(reason))
        }
    }
}
