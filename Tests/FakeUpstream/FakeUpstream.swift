import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on `127.0.0.1` (ephemeral port) that plays a provider's API in tests.
///
/// It records every request, answers from a handler (usually one of ``FakeRoutes``), and can be told
/// to misbehave for the next few requests: 429 with `Retry-After`, 500, 403, a slow reply, a reset
/// connection, malformed JSON.
///
/// ```swift
/// let fake = try await FakeUpstream.start(handler: FakeRoutes.google(validator: .shared))
/// defer { Task { await fake.shutdown() } }
/// fake.enqueue(.tooManyRequests(retryAfter: 2), .serverError())    // the next two requests fail
/// // point the provider's base_url at fake.baseURL, call it, then:
/// #expect(fake.requests.count == 3)
/// #expect(fake.violations.isEmpty)                                 // Google requests matched the discovery document
/// ```
public final class FakeUpstream: Sendable {
    /// How long a client in a test waits for a fake's answer when the test is not about timeouts. It only bounds a
    /// failure: with 5 s, a full `swift test` on a loaded 2-core machine once delivered fakes' answers later than that.
    public static let answerWithinSeconds: Double = 60

    /// `http://127.0.0.1:<port>`: what goes in `base_url`.
    public let baseURL: URL
    public let port: Int
    private let channel: any Channel
    private let state: FakeState

    private init(channel: any Channel, port: Int, state: FakeState) {
        self.channel = channel
        self.port = port
        self.state = state
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts listening. `handler` answers every request that no enqueued reply answers.
    public static func start(
        handler: @escaping @Sendable (RecordedRequest) -> FakeReply = { _ in .notFound() }
    ) async throws -> FakeUpstream {
        let state = FakeState(handler: handler)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FakeHandler(state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw FakeUpstreamError.noPort }
        return FakeUpstream(channel: channel, port: port, state: state)
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { state.recorded }

    /// Problems the handler found with requests (the Google fake's discovery-document checks).
    public var violations: [String] { state.violationList }

    /// Replies served, in order, to the next requests before the handler is asked again.
    public func enqueue(_ replies: FakeReply...) { state.enqueue(replies) }

    /// Replaces the handler.
    public func setHandler(_ handler: @escaping @Sendable (RecordedRequest) -> FakeReply) { state.setHandler(handler) }

    /// Forgets recorded requests and violations.
    public func reset() { state.clear() }

    public func shutdown() async {
        try? await channel.close()
    }
}

enum FakeUpstreamError: Error { case noPort }

/// One request as the fake received it.
public struct RecordedRequest: Sendable, Hashable {
    public var method: String
    /// Path and query as sent (`/v1/places/ChIJ?sessionToken=…`).
    public var uri: String
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, uri: String, headers: [String: String], body: Data) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The percent-decoded path without the query.
    public var path: String {
        let raw = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
        return raw.removingPercentEncoding ?? raw
    }

    /// Decoded query parameters (the last one wins for repeated names).
    public var query: [String: String] {
        guard let components = URLComponents(string: "http://fake" + uri) else { return [:] }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body parsed as a JSON object, or `nil`.
    public var jsonBody: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}

/// What the fake does with one request.
public struct FakeReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// Seconds to wait before answering (real time; keep it short, or longer than the client timeout to test timeouts).
    public var delay: Double
    /// Drop the connection with a TCP reset instead of answering.
    public var resetConnection: Bool
    /// Send the status, headers (with the full `Content-Length`) and only this many body bytes, then reset.
    public var cutAfterBodyBytes: Int?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), delay: Double = 0,
                resetConnection: Bool = false, cutAfterBodyBytes: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.resetConnection = resetConnection
        self.cutAfterBodyBytes = cutAfterBodyBytes
    }

    /// A redirect (302, 307, …) to `location`.
    public static func redirect(to location: String, status: Int = 302) -> FakeReply {
        FakeReply(status: status, headers: ["Location": location], body: Data("moved".utf8))
    }

    /// `reply`, cut by a TCP reset after `bytes` bytes of its body.
    public static func cutMidBody(_ reply: FakeReply, after bytes: Int) -> FakeReply {
        var copy = reply
        copy.cutAfterBodyBytes = bytes
        return copy
    }

    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> FakeReply {
        FakeReply(status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: Data(text.utf8))
    }

    public static func notFound() -> FakeReply {
        .json(#"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}"#, status: 404)
    }

    /// 429 with `Retry-After: seconds` and a Google-style body (override `body` for other shapes).
    public static func tooManyRequests(retryAfter seconds: Int? = nil, body: String =
        #"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#) -> FakeReply {
        .json(body, status: 429, headers: seconds.map { ["Retry-After": String($0)] } ?? [:])
    }

    public static func serverError(_ status: Int = 500) -> FakeReply {
        .json(#"{"error":{"code":\#(status),"message":"Internal error encountered.","status":"INTERNAL"}}"#, status: status)
    }

    public static func forbidden(body: String =
        #"{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#) -> FakeReply {
        .json(body, status: 403)
    }

    /// 200 with a body that is not JSON.
    public static func malformedJSON() -> FakeReply {
        FakeReply(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"places": [ {"id": "#.utf8))
    }

    public static func slow(_ seconds: Double, then reply: FakeReply = .json("{}")) -> FakeReply {
        var copy = reply
        copy.delay = seconds
        return copy
    }

    public static let reset = FakeReply(status: 0, resetConnection: true)
}

final class FakeState: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: @Sendable (RecordedRequest) -> FakeReply
    private var queue: [FakeReply] = []
    private var requestLog: [RecordedRequest] = []
    private var violationLog: [String] = []

    init(handler: @escaping @Sendable (RecordedRequest) -> FakeReply) { self.handler = handler }

    var recorded: [RecordedRequest] { lock.withLock { requestLog } }
    var violationList: [String] { lock.withLock { violationLog } }

    func enqueue(_ replies: [FakeReply]) { lock.withLock { queue.append(contentsOf: replies) } }
    func setHandler(_ handler: @escaping @Sendable (RecordedRequest) -> FakeReply) { lock.withLock { self.handler = handler } }
    func clear() { lock.withLock { requestLog.removeAll(); violationLog.removeAll() } }

    func reply(to request: RecordedRequest) -> FakeReply {
        let (scripted, handler): (FakeReply?, @Sendable (RecordedRequest) -> FakeReply) = lock.withLock {
            requestLog.append(request)
            return (queue.isEmpty ? nil : queue.removeFirst(), self.handler)
        }
        if let scripted { return scripted }
        let reply = handler(request)
        if let problems = reply.headers[FakeRoutes.violationHeader] {
            lock.withLock { violationLog.append(contentsOf: problems.components(separatedBy: " | ")) }
        }
        return reply
    }
}

final class FakeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: FakeState
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(state: FakeState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = RecordedRequest(method: head.method.rawValue, uri: head.uri, headers: headers,
                                          body: Data(body.readableBytesView))
            let reply = state.reply(to: request)
            if reply.delay > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(reply.delay * 1_000))) {
                    self.respond(reply, keepAlive: head.isKeepAlive, context: context)
                }
            } else {
                respond(reply, keepAlive: head.isKeepAlive, context: context)
            }
        }
    }

    private func respond(_ reply: FakeReply, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if reply.resetConnection {
            reset(context)
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in reply.headers where name != FakeRoutes.violationHeader { headers.add(name: name, value: value) }
        headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.count))
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        if let cut = reply.cutAfterBodyBytes {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let sent = context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply.body.prefix(cut))))))
            sent.assumeIsolated().whenComplete { _ in self.reset(context) }
            return
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply.body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive { done.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }

    /// SO_LINGER 0 turns close() into a TCP RST: what a crashed upstream or a middlebox looks like.
    private func reset(_ context: ChannelHandlerContext) {
        if let provider = context.channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            context.close(promise: nil)
        }
    }
}
