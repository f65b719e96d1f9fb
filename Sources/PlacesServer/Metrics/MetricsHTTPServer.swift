import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// `places serve --metrics-port`: a small HTTP/1.1 listener whose only page is `GET /metrics`, the
/// Prometheus text of a ``MetricsExporter``. It runs on an event-loop thread of its own, so a scrape never
/// waits behind Redis traffic and Redis traffic never waits behind a scrape. Another path is 404, another
/// method on `/metrics` 405; a request NIO cannot parse is answered 400 and closed.
public final class MetricsHTTPServer: Service, Sendable {
    public let host: String
    public let port: Int
    private let exporter: MetricsExporter
    private let logger: Logger
    private let onListening: @Sendable (SocketAddress) -> Void

    /// - Parameter onListening: called once with the bound address (with `port: 0`, the port the OS chose).
    public init(host: String, port: Int, exporter: MetricsExporter, logger: Logger,
                onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.exporter = exporter
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        try await withEventLoopGroup(threads: 1) { try await serve(on: $0) }
    }

    private func serve(on group: MultiThreadedEventLoopGroup) async throws {
        let exporter = self.exporter
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    // A scraper that connects and says nothing is dropped after a while.
                    try sync.addHandler(IdleStateHandler(allTimeout: .seconds(30)))
                    try sync.configureHTTPServerPipeline(withErrorHandling: true)
                    try sync.addHandler(MetricsRequestHandler(exporter: exporter))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw ServerStartError(host: host, port: port, reason: "\(error)")
        }
        if let address = channel.localAddress {
            logger.info("metrics listening", metadata: ["address": "\(address)", "path": "/metrics"])
            onListening(address)
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}

/// Answers each request on one connection (keep-alive as the client asks), one at a time.
final class MetricsRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: MetricsExporter
    private var head: HTTPRequestHead?

    init(exporter: MetricsExporter) { self.exporter = exporter }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break  // nothing here takes a body; it is read and dropped
        case .end:
            guard let request = head else { return }
            head = nil
            respond(to: request, context: context)
        }
    }

    /// Bytes that are not HTTP: NIO's error handler has answered 400; nothing after them can be trusted.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/metrics" else {
            write(.notFound, body: "not found: the only page is GET /metrics\n", request: request, context: context)
            return
        }
        guard request.method == .GET || request.method == .HEAD else {
            write(.methodNotAllowed, body: "method not allowed: use GET /metrics\n", extra: [("Allow", "GET, HEAD")],
                  request: request, context: context)
            return
        }
        let promise = context.eventLoop.makePromise(of: [UInt8].self)
        let exporter = self.exporter
        promise.completeWithTask { await exporter.scrape() }
        promise.futureResult.assumeIsolated().whenSuccess { [self] text in
            self.write(.ok, bytes: text, contentType: MetricsExporter.contentType, request: request, context: context)
        }
    }

    private func write(_ status: HTTPResponseStatus, body: String, extra: [(String, String)] = [],
                       request: HTTPRequestHead, context: ChannelHandlerContext) {
        write(status, bytes: Array(body.utf8), contentType: "text/plain; charset=utf-8", extra: extra,
              request: request, context: context)
    }

    private func write(_ status: HTTPResponseStatus, bytes: [UInt8], contentType: String, extra: [(String, String)] = [],
                       request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(bytes.count))])
        headers.add(contentsOf: extra)
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let response = HTTPResponseHead(version: request.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
