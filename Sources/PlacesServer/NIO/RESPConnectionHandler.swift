import Logging
import NIOCore

/// One client connection. It feeds bytes to ``RESPRequestParser``, requests to
/// ``ConnectionStateMachine``, and performs the actions: writing replies in request order, running
/// backend calls as tasks (so the event loop never blocks) and pausing reads when the client falls behind.
final class RESPConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Slot {
        case waiting
        case ready(RESPValue)
    }

    private let executor: CommandExecutor
    private let configuration: ServerConfiguration
    private var logger: Logger
    private var parser: RESPRequestParser
    private var machine: ConnectionStateMachine
    /// Bytes received but not yet parsed (kept while reading is paused).
    private var unparsed: ByteBuffer?
    /// Replies not yet written, in request order; the first slot's sequence number is `firstSequence`.
    private var slots = CircularBuffer<Slot>(initialCapacity: 16)
    private var firstSequence = 0
    /// Encoded replies waiting for the next flush.
    private var outbound: ByteBuffer
    private var closeWhenDrained = false
    private var quiescing = false
    private var heldRead = false
    /// The channel's writability as last reported; asking the channel on every request showed up in profiles.
    private var isWritable = true
    private var admitted = false
    private var closed = false

    init(executor: CommandExecutor, configuration: ServerConfiguration, logger: Logger) {
        self.executor = executor
        self.configuration = configuration
        self.logger = logger
        self.parser = RESPRequestParser(limits: configuration.limits, isAuthenticated: configuration.password == nil)
        self.machine = ConnectionStateMachine(password: configuration.password)
        self.outbound = ByteBuffer()
    }

    // MARK: Lifecycle

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress { logger[metadataKey: "client"] = "\(remote)" }
        outbound = context.channel.allocator.buffer(capacity: 1024)
        guard executor.metrics.admitClient(limit: configuration.maxClients) else {
            logger.warning("refused a client: max number of clients reached", metadata: ["max_clients": "\(configuration.maxClients)"])
            perform(machine.rejectTooManyClients(), for: nil, context: context)
            flushReplies(context: context)
            return
        }
        admitted = true
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        if admitted {
            admitted = false
            executor.metrics.releaseClient()
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        close(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            // A request still running is not idleness: only close a connection with nothing in flight.
            if slots.isEmpty {
                executor.metrics.count(.idleTimeout)
                logger.debug("closing an idle connection")
                close(context: context)
            }
        } else if event is ChannelShouldQuiesceEvent {
            quiescing = true
            if slots.isEmpty { close(context: context) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard !closed, !closeWhenDrained else { return }
        if unparsed == nil || unparsed!.readableBytes == 0 {
            unparsed = bytes
        } else {
            // Keep only the unparsed tail, so a long stream of reads that end mid-request cannot grow the buffer.
            if unparsed!.readerIndex > 16 * 1024 { unparsed!.discardReadBytes() }
            var incoming = bytes
            unparsed!.writeBuffer(&incoming)
        }
        processRequests(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushReplies(context: context)
    }

    /// Withholds reads while the client has too many replies waiting or its socket buffer is full,
    /// so a client that never reads its replies costs bounded memory.
    func read(context: ChannelHandlerContext) {
        if shouldPauseReading {
            heldRead = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        isWritable = context.channel.isWritable
        if isWritable { resume(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private var shouldPauseReading: Bool {
        slots.count >= configuration.maxPipelinedRequests || !isWritable
            || quiescing || closeWhenDrained || closed
    }

    private func resume(context: ChannelHandlerContext) {
        processRequests(context: context)
        flushReplies(context: context)
        if heldRead && !shouldPauseReading {
            heldRead = false
            context.read()
        }
    }

    private func processRequests(context: ChannelHandlerContext) {
        // Parsed from a local copy: the loop runs once per request, and going through the stored
        // optional each time cost exclusivity checks and reference counting that showed up in profiles.
        guard var buffer = unparsed else { return }
        unparsed = nil
        defer {
            // Whatever made the connection close (QUIT, a protocol error, an HTTP probe) discards the rest.
            if buffer.readableBytes > 0 && !closeWhenDrained && !closed { unparsed = buffer }
        }
        while !shouldPauseReading {
            let request: RESPRequest?
            do {
                request = try parser.next(&buffer)
            } catch {
                executor.metrics.count(.protocolError)
                logger.info("protocol error; closing", metadata: ["error": "\(error.message)"])
                perform(machine.protocolError(error), for: nil, context: context)
                return
            }
            guard let request else { return }
            executor.metrics.count(.commandProcessed)
            if machine.isReady, let reply = executor.memorisedReply(to: request) {
                enqueue(reply)
            } else {
                perform(machine.received(request), for: request, context: context)
                parser.isAuthenticated = machine.isAuthenticated
            }
            if outbound.readableBytes >= 64 * 1024 { flushReplies(context: context) }
        }
    }

    // MARK: Actions

    private func perform(_ action: ConnectionStateMachine.Action, for request: RESPRequest?, context: ChannelHandlerContext) {
        switch action {
        case .reply(let value):
            enqueue(value)
        case .replyAndClose(let value):
            enqueue(value)
            closeWhenDrained = true
        case .execute(let call):
            let memoKey = call.isMemoisable ? request.map(ReplyMemo.Key.init(copying:)) : nil
            let executor = self.executor
            startAsync(context: context) { await executor.reply(call, memoKey: memoKey) }
        case .report(let sections, let json):
            let executor = self.executor
            startAsync(context: context) { await executor.report(sections: sections, json: json) }
        case .drop(let reason):
            executor.metrics.count(.droppedHTTPRequest)
            logger.warning("possible security attack: \(reason); connection dropped")
            close(context: context)
        case .ignore:
            break
        }
    }

    /// A reply known now: written at once when nothing is ahead of it, else queued behind the slower ones.
    private func enqueue(_ value: RESPValue) {
        if case .error = value { executor.metrics.count(.errorReply) }
        if slots.isEmpty {
            value.encode(into: &outbound, resp3: machine.protocolVersion == 3)
        } else {
            slots.append(.ready(value))
        }
    }

    private func startAsync(context: ChannelHandlerContext, _ body: @escaping @Sendable () async -> RESPValue) {
        let sequence = firstSequence + slots.count
        slots.append(.waiting)
        let promise = context.eventLoop.makePromise(of: RESPValue.self)
        promise.completeWithTask(body)
        promise.futureResult.assumeIsolated().whenSuccess { [self] value in
            self.complete(sequence: sequence, with: value, context: context)
        }
    }

    private func complete(sequence: Int, with value: RESPValue, context: ChannelHandlerContext) {
        guard !closed else { return }
        if case .error = value { executor.metrics.count(.errorReply) }
        slots[slots.index(slots.startIndex, offsetBy: sequence - firstSequence)] = .ready(value)
        while case .ready(let ready)? = slots.first {
            ready.encode(into: &outbound, resp3: machine.protocolVersion == 3)
            slots.removeFirst()
            firstSequence += 1
        }
        resume(context: context)
    }

    // MARK: Writing

    private func flushReplies(context: ChannelHandlerContext) {
        guard !closed else { return }
        if outbound.readableBytes > 0 {
            let bytes = outbound
            // Sized like the last batch, so a pipelined batch does not regrow the buffer several times.
            outbound = context.channel.allocator.buffer(capacity: max(1024, bytes.readableBytes))
            if (closeWhenDrained || quiescing) && slots.isEmpty {
                context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { [self] _ in
                    self.close(context: context)
                }
                return
            }
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        } else if (closeWhenDrained || quiescing) && slots.isEmpty {
            close(context: context)
        }
    }

    private func close(context: ChannelHandlerContext) {
        guard !closed else { return }
        closed = true
        context.close(promise: nil)
    }
}
