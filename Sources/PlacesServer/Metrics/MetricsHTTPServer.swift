import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// `places serve --metrics-port`: a small HTTP/1.1 listener whose only page is `GET /metrics`, the
/// Prometheus text of a ``MetricsExporter``. It runs on an event-loop thread of its own, so a scrape never
/// waits behind Redis traffic and Redis traffic never waits behind a scrape. Another path is 404, another
/// method on `/metrics` 405; a request NIO cannot parse is answered 400 and closed.
///
/// Whoever can reach the port gets bounded resources, because the process they would exhaust also serves the
/// Redis port: at most ``maxConnections`` connections (the next is closed as soon as it is accepted, counted in
/// `places_metrics_connections_refused_total`, and warned about at most once a minute), each closed after
/// ``idleTimeout`` without traffic and with no scrape in flight; a request head of at most 80 KiB (NIO's parser answers 400 beyond it);
/// a body of at most ``maxBodyBytes`` (413 and closed beyond it); and for a client that does not read its
/// answers, one answer beyond the connection's write buffer (the next request waits until it drains). A client
/// can still keep every slot busy, which stops scrapes but nothing else: bind the listener where only the
/// scrapers reach it (the default is loopback).
public final class MetricsHTTPServer: Service, Sendable {
    /// 16: a Prometheus server keeps one keep-alive connection per target, so a pair of scrapers, an agent and
    /// someone's `curl` use four. Beyond 16 the connections are surely not scrapers, and 16 descriptors are
    /// nothing next to what the Redis clients may hold. Not a flag, as the idle timeout is not: the number of
    /// scrapers does not grow with the load the way Redis clients do, so there is nothing for an operator to tune.
    public static let defaultMaxConnections = 16
    /// A connection silent this long is closed: a scraper that connected and says nothing, or one that stopped
    /// reading its answer.
    public static let defaultIdleTimeout = TimeAmount.seconds(30)
    /// `GET /metrics` has no body; a client sending one gets this much read and dropped, then 413 and a close,
    /// so a body that never ends cannot keep a connection (and its slot) busy forever.
    public static let maxBodyBytes = 16 * 1024

    public let host: String
    public let port: Int
    public let maxConnections: Int
    public let idleTimeout: TimeAmount
    private let exporter: MetricsExporter
    private let logger: Logger
    private let onListening: @Sendable (SocketAddress) -> Void

    /// - Parameters:
    ///   - maxConnections, idleTimeout: the defaults are what `places serve` uses; tests pass smaller ones.
    ///   - onListening: called once with the bound address (with `port: 0`, the port the OS chose).
    public init(host: String, port: Int, exporter: MetricsExporter, logger: Logger,
                maxConnections: Int = MetricsHTTPServer.defaultMaxConnections,
                idleTimeout: TimeAmount = MetricsHTTPServer.defaultIdleTimeout,
                onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.exporter = exporter
        self.logger = logger
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.onListening = onListening
    }

    public func run() async throws {
        try await withEventLoopGroup(threads: 1) { try await serve(on: $0) }
    }

    private func serve(on group: MultiThreadedEventLoopGroup) async throws {
        let exporter = self.exporter
        let (logger, maxConnections, idleTimeout) = (self.logger, self.maxConnections, self.idleTimeout)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(MetricsConnectionAdmission(
                        slots: exporter.scrapeConnections, limit: maxConnections, logger: logger))
                    try sync.addHandler(IdleStateHandler(allTimeout: idleTimeout))
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

/// First in a metrics connection's pipeline: takes one of the listener's slots when the connection becomes
/// active, or else closes it there, before a byte of it is read; gives the slot back when the connection closes,
/// however it closes (the idle timeout, the client, an error), so the count cannot drift.
final class MetricsConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let slots: ConnectionSlots
    private let limit: Int
    private let logger: Logger
    private var admitted = false

    init(slots: ConnectionSlots, limit: Int, logger: Logger) {
        self.slots = slots
        self.limit = limit
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        guard slots.take(limit: limit) else {
            if let warning = slots.refusalWarning("metrics connection", reason: "max number of metrics connections reached") {
                logger.warning("\(warning)", metadata: ["max_connections": "\(limit)"])
            }
            // Nothing after this handler saw the connection start, so nothing after it hears of its end.
            context.close(promise: nil)
            return
        }
        admitted = true
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard admitted else { return }
        admitted = false
        slots.release()
        context.fireChannelInactive()
    }
}

/// Answers each request on one connection (keep-alive as the client asks), one at a time. NIO's
/// `HTTPServerPipelineHandler` holds the next request (and stops reading) until an answer is written; this
/// handler in turn starts an answer only while the channel is writable, so a client that sends requests and
/// never reads the answers makes the server hold one answer more than the write buffer, not one per request.
final class MetricsRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: MetricsExporter
    private var head: HTTPRequestHead?
    /// Body bytes of the request being read (see ``MetricsHTTPServer/maxBodyBytes``).
    private var bodyBytes = 0
    /// A request read whole, waiting for the channel to become writable.
    private var waiting: HTTPRequestHead?
    /// A body was refused: nothing more is read or answered on this connection.
    private var isRefusingInput = false
    /// A scrape is being taken for this connection: not idleness, however long it takes (see ``userInboundEventTriggered(context:event:)``).
    private var isScraping = false

    init(exporter: MetricsExporter) { self.exporter = exporter }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            guard !isRefusingInput else { return }
            head = request
            bodyBytes = 0
        case .body(let bytes):
            // Nothing here takes a body: it is read and dropped, up to a limit.
            guard let request = head else { return }
            bodyBytes += bytes.readableBytes
            if bodyBytes > MetricsHTTPServer.maxBodyBytes { refuseBody(of: request, context: context) }
        case .end:
            guard let request = head else { return }
            head = nil
            waiting = request
            answerWhenWritable(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        answerWhenWritable(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Answers 413 and half-closes: the client reads the answer and the end of it, while the rest of its body
    /// is no longer read. Closing both ways at once would reset the connection over the unread body, and the
    /// client could lose the answer. The idle timeout closes the connection if the client does not.
    private func refuseBody(of request: HTTPRequestHead, context: ChannelHandlerContext) {
        head = nil
        isRefusingInput = true
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        write(.payloadTooLarge, body: "content too large: GET /metrics takes no body\n", request: request,
              closing: true, context: context)
    }

    /// Bytes that are not HTTP: NIO's error handler has answered 400; nothing after them can be trusted.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The idle timeout closes a connection with nothing in flight; one waiting for its scrape (the process busy,
    /// the budget figures slow to come) is looked at again after another timeout. A connection whose answer waits
    /// for a client that does not read is idle: it is closed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if !isScraping { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func answerWhenWritable(context: ChannelHandlerContext) {
        guard let request = waiting, context.channel.isWritable else { return }
        waiting = nil
        respond(to: request, context: context)
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
        isScraping = true
        promise.completeWithTask { await exporter.scrape() }
        promise.futureResult.assumeIsolated().whenSuccess { [self] text in
            self.isScraping = false
            self.write(.ok, bytes: text, contentType: MetricsExporter.contentType, request: request, context: context)
        }
    }

    private func write(_ status: HTTPResponseStatus, body: String, extra: [(String, String)] = [],
                       request: HTTPRequestHead, closing: Bool = false, context: ChannelHandlerContext) {
        write(status, bytes: Array(body.utf8), contentType: "text/plain; charset=utf-8", extra: extra,
              request: request, closing: closing, context: context)
    }

    /// - Parameter closing: the request was refused midway (``refuseBody(of:context:)``): `Connection: close`
    ///   whatever the client asked, and the output closed once the answer is written.
    private func write(_ status: HTTPResponseStatus, bytes: [UInt8], contentType: String, extra: [(String, String)] = [],
                       request: HTTPRequestHead, closing: Bool = false, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(bytes.count))])
        headers.add(contentsOf: extra)
        let keepAlive = request.isKeepAlive && !closing
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let response = HTTPResponseHead(version: request.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if closing {
                context.close(mode: .output, promise: nil)
            } else if !keepAlive {
                context.close(promise: nil)
            }
        }
    }
}
