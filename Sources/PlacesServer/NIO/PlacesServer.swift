import Logging
import NIOCore
import NIOExtras
import NIOPosix
import Prometheus
import RESP
import ServiceLifecycle

/// The Redis-protocol server as a swift-service-lifecycle `Service`: run it in a `ServiceGroup` and
/// SIGTERM/SIGINT stop accepting, let the requests in flight finish, close the connections and return.
///
/// ```swift
/// let server = PlacesServer(configuration: ServerConfiguration(port: 7878), commands: .places(app), logger: logger)
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public final class PlacesServer: Service, Sendable {
    public let configuration: ServerConfiguration
    public let metrics: ServerMetrics
    public let memo: ReplyMemo
    private let commands: CommandTable
    private let logger: Logger
    private let onListening: @Sendable (SocketAddress) -> Void

    /// - Parameters:
    ///   - metricsRegistry: where per-command latency histograms go when `--metrics-port` exports them.
    ///   - onListening: called once with the bound address (with `port: 0`, the port the OS chose).
    public init(configuration: ServerConfiguration, commands: CommandTable, logger: Logger,
                memo: ReplyMemo = ReplyMemo(), metricsRegistry: PrometheusCollectorRegistry? = nil,
                onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }) {
        self.configuration = configuration
        metrics = ServerMetrics(commandNames: commands.entries.map(\.name), registry: metricsRegistry)
        self.memo = memo
        self.commands = commands
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        try await withEventLoopGroup(threads: configuration.eventLoopCount) { try await serve(on: $0) }
    }

    private func serve(on group: MultiThreadedEventLoopGroup) async throws {
        let quiesce = ServerQuiescingHelper(group: group)
        let configuration = self.configuration
        let logger = self.logger
        let executor = CommandExecutor(
            commands: commands, metrics: metrics, memo: memo, configuration: configuration, logger: logger)
        let loopReads = LoopReadsByLoop()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // A client's FIN then reaches the handler as `inputClosed` with the output still open, so the
            // requests sent before it are answered (`printf 'SEARCH x\r\n' | nc -N host port`).
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(
                low: configuration.writeBufferHighWatermark / 2, high: configuration.writeBufferHighWatermark))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // The handler closes idle connections itself (see RESPConnectionHandler).
                    try channel.pipeline.syncOperations.addHandler(
                        RESPConnectionHandler(executor: executor, loopReads: loopReads.reads(on: channel.eventLoop),
                                              configuration: configuration, logger: logger))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            throw ServerStartError(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        let address = channel.localAddress
        logger.info("places serve listening", metadata: [
            "address": "\(address.map { "\($0)" } ?? "?")",
            "auth": "\(configuration.password == nil ? "off" : "on")",
        ])
        if let address { onListening(address) }

        let fullyShutDown = channel.eventLoop.makePromise(of: Void.self)
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
                // Also reached when the listening socket fails on its own: stop the connections too.
                quiesce.initiateShutdown(promise: fullyShutDown)
                try? await fullyShutDown.futureResult.get()
            } onCancel: {
                quiesce.initiateShutdown(promise: nil)
            }
        } onGracefulShutdown: {
            logger.info("shutting down: no new connections; finishing requests in flight")
            quiesce.initiateShutdown(promise: nil)
        }
        logger.info("places serve stopped")
    }
}

/// The server could not start listening: the port is taken, or the host is not an address of this machine.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    public var host: String
    public var port: Int
    public var reason: String

    public var description: String {
        "cannot listen on \(host):\(port): \(reason) (is another server using the port, or is the host not an address of this machine?)"
    }
}

/// Runs `body` on an event-loop group of its own (at least one thread), shut down afterwards whether `body`
/// returned or threw: each listener (Redis, metrics) owns its threads for as long as it serves.
func withEventLoopGroup(threads: Int, _ body: (MultiThreadedEventLoopGroup) async throws -> Void) async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
    do {
        try await body(group)
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
    try await group.shutdownGracefully()
}
