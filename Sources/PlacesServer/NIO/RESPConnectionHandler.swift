import Logging
import NIOCore
import Prometheus
import RESP

/// One client connection. It feeds bytes to ``RESPRequestParser``, requests to
/// ``ConnectionStateMachine``, and performs the actions: writing replies in request order, running
/// backend calls as tasks (so the event loop never blocks) and pausing reads when the client falls behind.
///
/// A client may half-close (send a FIN after its requests): the channel allows remote half-closure, and
/// the `inputClosed` event goes to the machine, which has every complete request already received
/// answered before the connection closes.
///
/// It also closes idle connections itself (``ServerConfiguration/idleTimeoutSeconds``) instead of through NIO's
/// `IdleStateHandler`, which reads the clock on every read and allocates a promise and a callback on every write:
/// together a quarter of a memoised reply's instructions (callgrind). Here a read only sets a flag, and a
/// timer looks at it four times per timeout.
final class RESPConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Slot {
        /// A call still running; `heldBytes` of the server-wide allowance stay taken until it answers.
        case waiting(heldBytes: Int)
        case ready(RESPValue)
        /// A memoised reply, already in its wire form.
        case written(ByteBuffer)
    }

    private let executor: CommandExecutor
    /// Where this connection's event loop answers the calls it answers itself (``BackendCall/Work/now(_:)``).
    private let loopReads: LoopReads
    private let configuration: ServerConfiguration
    private var logger: Logger
    private var parser: RESPRequestParser
    private var machine: ConnectionStateMachine
    /// Bytes received but not yet parsed (kept while reading is paused).
    private var received = ReceiveBuffer()
    /// The parser has used every complete request received so far and waits for more bytes.
    private var awaitingBytes = true
    /// The server-wide allowance taken for the request being received (see ``ServerConfiguration/maxRequestBytesInFlight``).
    private var heldForPartialRequest = 0
    /// Replies not yet written, in request order; the first slot's sequence number is `firstSequence`.
    private var slots = CircularBuffer<Slot>(initialCapacity: 16)
    private var firstSequence = 0
    /// Encoded replies waiting for the next flush. A flush hands the channel the bytes and keeps the storage,
    /// which is written again from the start once the channel has let go of it (``prepareOutbound()``): most
    /// flushes are written at once, so a connection does not allocate a buffer per flush.
    private var outbound: ByteBuffer
    /// A memoised reply that is, so far, all the next flush writes: handed to the channel as the memo holds it
    /// instead of being copied into `outbound` (an unpipelined client's usual case). Set only while `outbound`
    /// holds nothing to write; any further reply first copies it there (``prepareOutbound()``), so order is kept.
    private var soleFrame: ByteBuffer?
    private var closeWhenDrained = false
    private var quiescing = false
    private var heldRead = false
    /// The channel's writability as last reported; asking the channel on every request showed up in profiles.
    private var isWritable = true
    private var admitted = false
    private var closed = false
    /// A read or a write since the last idle check (see ``checkIdleness(context:)``).
    private var trafficSinceCheck = false
    /// The idle check that last saw traffic (or the connection's start).
    private var lastTraffic = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    private var recentCommand = ServerMetrics.RecentCommand()

    init(executor: CommandExecutor, loopReads: LoopReads, configuration: ServerConfiguration, logger: Logger) {
        self.executor = executor
        self.loopReads = loopReads
        self.configuration = configuration
        self.logger = logger
        self.parser = RESPRequestParser(limits: configuration.limits, isAuthenticated: configuration.password == nil)
        self.machine = ConnectionStateMachine(password: configuration.password, commands: executor.commands)
        self.outbound = ByteBuffer()
    }

    // MARK: Lifecycle

    func channelActive(context: ChannelHandlerContext) {
        if let remote = context.remoteAddress { logger[metadataKey: "client"] = "\(remote)" }
        outbound = context.channel.allocator.buffer(capacity: 1024)
        let clients = executor.metrics.clients
        guard clients.take(limit: configuration.maxClients) else {
            if let warning = clients.refusalWarning("client", reason: "max number of clients reached") {
                logger.warning("\(warning)", metadata: ["max_clients": "\(configuration.maxClients)"])
            }
            perform(machine.rejectTooManyClients(), for: nil, holding: 0, context: context)
            flushReplies(context: context)
            return
        }
        admitted = true
        lastTraffic = .now()
        scheduleIdleCheck(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        idleCheck?.cancel()
        idleCheck = nil
        executor.metrics.releaseRequestBytes(heldForPartialRequest)
        heldForPartialRequest = 0
        if admitted {
            admitted = false
            if executor.metrics.clients.release() == 0 { IdleMemoryRelease.shared.serverBecameIdle() }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        close(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            quiescing = true
            if slots.isEmpty { close(context: context) }
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            perform(machine.inputClosed(), for: nil, holding: 0, context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    // MARK: Idle connections

    /// Checks for traffic every quarter of the timeout: a connection is closed between one and one and a quarter
    /// timeouts after its last read or write, never sooner.
    private func scheduleIdleCheck(context: ChannelHandlerContext) {
        let timeout = configuration.idleTimeoutSeconds
        guard timeout > 0, !closed else { return }
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(timeout) * 250)) { [self] in
            self.checkIdleness(context: context)
        }
    }

    private func checkIdleness(context: ChannelHandlerContext) {
        idleCheck = nil
        guard !closed else { return }
        let now = NIODeadline.now()
        // A request still running is not idleness: only a connection with nothing in flight is closed.
        if trafficSinceCheck || !slots.isEmpty {
            trafficSinceCheck = false
            lastTraffic = now
        } else if now - lastTraffic >= .seconds(Int64(configuration.idleTimeoutSeconds)) {
            executor.metrics.count(.idleTimeout)
            logger.debug("closing an idle connection")
            close(context: context)
            return
        }
        scheduleIdleCheck(context: context)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard !closed, !closeWhenDrained else { return }
        trafficSinceCheck = true
        received.append(bytes)
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

    /// Whether to stop taking requests off the received bytes for now.
    private var shouldPauseProcessing: Bool {
        slots.count >= configuration.maxPipelinedRequests || !isWritable
            || quiescing || closeWhenDrained || closed
    }

    private var shouldPauseReading: Bool { shouldPauseProcessing || machine.isInputClosed }

    /// Nothing more will be answered on this connection: close once the replies in flight are written.
    private var isFinishing: Bool {
        closeWhenDrained || quiescing || (machine.isInputClosed && awaitingBytes)
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
        guard var buffer = received.take() else {
            awaitingBytes = true
            return
        }
        awaitingBytes = false
        defer {
            // Whatever made the connection close (QUIT, a protocol error, an HTTP probe) discards the rest.
            if !closeWhenDrained && !closed { received.keep(buffer) }
        }
        let memoEnabled = executor.memo.isEnabled
        // Memo entries are checked for age against one reading of the clock per batch of requests.
        let now = memoEnabled ? NIODeadline.now() : .uptimeNanoseconds(0)
        while !shouldPauseProcessing {
            // A repeated request is looked up by its bytes before it is parsed (see ReplyMemo.Key): in the memo,
            // and among the answers this event loop is about to compute (LoopReads).
            var located: RESPFrame?
            if (memoEnabled || !loopReads.isIdle) && !parser.isMidRequest && machine.isReady {
                located = RESPFrame.atFront(of: buffer)
                if let frame = located,
                   (memoEnabled && answerFromMemory(frame, in: &buffer, at: now)) || joinLoopRead(frame, in: &buffer, context: context) {
                    if outbound.readableBytes >= 64 * 1024 { flushReplies(context: context) }
                    continue
                }
            }
            let request: RESPRequest?
            do {
                request = try parser.next(&buffer)
            } catch {
                executor.metrics.countError(.protocol)
                logger.info("protocol error; closing", metadata: ["error": "\(error.message)"])
                perform(machine.protocolError(error), for: nil, holding: 0, context: context)
                return
            }
            guard let request else {
                awaitingBytes = true
                reserveForPartialRequest(context: context)
                return
            }
            let command = executor.metrics.countRequest(request)
            // The clock is read only when a latency histogram is exported (`--metrics-port`).
            let timing = command.latency.map { RequestTiming(histogram: $0, started: .now()) }
            let held = heldForPartialRequest
            heldForPartialRequest = 0
            // A request written plainly was just looked up by its bytes; another (inline, say) is looked up now.
            if memoEnabled && located == nil && machine.isReady,
               let frame = executor.memorisedFrame(answering: ReplyMemo.Key(copying: request),
                                                   resp3: machine.protocolVersion == 3, at: now) {
                executor.metrics.releaseRequestBytes(held)
                enqueue(written: frame)
                timing?.finish()
            } else {
                let action = machine.received(request)
                // An error the connection decides itself (syntax, AUTH, MULTI misuse) is the client's input.
                if case .reply(.error) = action { executor.metrics.countError(.input) }
                perform(action, for: request, holding: held, timing: timing, context: context)
                parser.isAuthenticated = machine.isAuthenticated
            }
            if outbound.readableBytes >= 64 * 1024 { flushReplies(context: context) }
        }
    }

    /// Answers the request `frame` locates at the front of `buffer` when the reply memo holds its reply, and
    /// consumes its bytes; `false` (nothing consumed) when the memo does not hold it.
    private func answerFromMemory(_ frame: RESPFrame, in buffer: inout ByteBuffer, at now: NIODeadline) -> Bool {
        let started = executor.metrics.recordsLatency ? NIODeadline.now() : nil
        let key = ReplyMemo.Key(borrowing: buffer.getSlice(at: buffer.readerIndex, length: frame.length)!,
                                command: frame.command)
        guard let reply = executor.memorisedFrame(answering: key, resp3: machine.protocolVersion == 3, at: now) else {
            return false
        }
        let command = countRequest(frame, in: buffer)
        buffer.moveReaderIndex(forwardBy: frame.length)
        executor.metrics.releaseRequestBytes(heldForPartialRequest)
        heldForPartialRequest = 0
        enqueue(written: reply)
        if let started, let histogram = command.latency { RequestTiming(histogram: histogram, started: started).finish() }
        return true
    }

    /// Joins the request `frame` locates at the front of `buffer` to an identical one's answer this event loop is
    /// about to compute (``LoopReads``), and consumes its bytes; `false` (nothing consumed) when there is none.
    private func joinLoopRead(_ frame: RESPFrame, in buffer: inout ByteBuffer, context: ChannelHandlerContext) -> Bool {
        guard !loopReads.isIdle else { return false }
        let key = ReplyMemo.Key(borrowing: buffer.getSlice(at: buffer.readerIndex, length: frame.length)!,
                                command: frame.command)
        guard loopReads.isScheduled(key) else { return false }
        let started = executor.metrics.recordsLatency ? NIODeadline.now() : nil
        let command = countRequest(frame, in: buffer)
        let timing = started.flatMap { started in command.latency.map { RequestTiming(histogram: $0, started: started) } }
        _ = loopReads.join(key, then: awaitLoopRead(holding: heldForPartialRequest, timing: timing, context: context))
        heldForPartialRequest = 0
        buffer.moveReaderIndex(forwardBy: frame.length)
        return true
    }

    /// Counts the request `frame` locates at the front of `buffer` under the command it names, read in place.
    private func countRequest(_ frame: RESPFrame, in buffer: ByteBuffer) -> ServerMetrics.CommandCounters {
        let metrics = executor.metrics
        return buffer.withUnsafeReadableBytes { bytes in
            recentCommand.countRequest(
                named: UnsafeRawBufferPointer(rebasing: bytes[frame.command.start..<frame.command.end]), in: metrics)
        }
    }

    /// A request is arriving over several reads: take what it has declared so far from the server-wide
    /// allowance, or refuse it when the allowance is spent.
    private func reserveForPartialRequest(context: ChannelHandlerContext) {
        let wanted = parser.pendingRequestBytes
        guard parser.isMidRequest, wanted > heldForPartialRequest else { return }
        let limit = configuration.maxRequestBytesInFlight
        if executor.metrics.reserveRequestBytes(wanted - heldForPartialRequest, limit: limit) {
            heldForPartialRequest = wanted
        } else {
            executor.metrics.count(.requestRefusedForMemory)
            logger.warning("refused a request: max memory for requests in flight reached", metadata: ["limit": "\(limit)"])
            perform(machine.requestMemoryExhausted(limit: limit), for: nil, holding: 0, context: context)
        }
    }

    // MARK: Actions

    /// - Parameter held: bytes of the server-wide allowance the request took; kept until an
    ///   asynchronous reply is ready, released at once otherwise.
    ///   `timing`, when latency is exported, is finished when the reply is ready.
    private func perform(_ action: ConnectionStateMachine.Action, for request: RESPRequest?, holding held: Int,
                         timing: RequestTiming? = nil, context: ChannelHandlerContext) {
        switch action {
        case .execute, .report, .executeTransaction: break
        default: executor.metrics.releaseRequestBytes(held)
        }
        switch action {
        case .execute, .report, .executeTransaction: break
        default: timing?.finish()
        }
        switch action {
        case .reply(let value):
            enqueue(value)
        case .replyAndClose(let value):
            enqueue(value)
            closeWhenDrained = true
        case .execute(let call):
            let memoKey = call.memoisation != .never ? request.map(ReplyMemo.Key.init(copying:)) : nil
            let executor = self.executor
            if case .now(let answer) = call.work {
                answerOnLoop(holding: held, timing: timing, memoKey: memoKey, context: context) {
                    executor.replyNow(call, answering: answer, memoKey: memoKey)
                }
            } else {
                startAsync(holding: held, timing: timing, context: context) { await executor.reply(call, memoKey: memoKey) }
            }
        case .report(let sections, let json):
            let executor = self.executor
            startAsync(holding: held, timing: timing, context: context) { await executor.report(sections: sections, json: json) }
        case .executeTransaction(let steps):
            let executor = self.executor
            startAsync(holding: held, timing: timing, context: context) { await executor.reply(transaction: steps) }
        case .drop(let reason):
            executor.metrics.count(.droppedHTTPRequest)
            logger.warning("possible security attack: \(reason); connection dropped")
            close(context: context)
        case .closeWhenAnswered:
            // Answer what is still buffered, then close once the last reply is written (see isFinishing).
            resume(context: context)
        case .ignore:
            break
        }
    }

    /// A reply known now: written at once when nothing is ahead of it, else queued behind the slower ones.
    private func enqueue(_ value: RESPValue) {
        if case .error = value { executor.metrics.count(.errorReply) }
        if slots.isEmpty {
            prepareOutbound()
            value.encode(into: &outbound, resp3: machine.protocolVersion == 3)
        } else {
            slots.append(.ready(value))
        }
    }

    /// A memoised reply in wire form: written at once when nothing is ahead of it, else queued behind the slower ones.
    private func enqueue(written frame: ByteBuffer) {
        if slots.isEmpty {
            if soleFrame == nil && outbound.readableBytes == 0 {
                soleFrame = frame
                return
            }
            prepareOutbound()
            outbound.writeImmutableBuffer(frame)
        } else {
            slots.append(.written(frame))
        }
    }

    private func startAsync(holding held: Int, timing: RequestTiming?, context: ChannelHandlerContext,
                            _ body: @escaping @Sendable () async -> RESPValue) {
        let sequence = firstSequence + slots.count
        slots.append(.waiting(heldBytes: held))
        let promise = context.eventLoop.makePromise(of: RESPValue.self)
        promise.completeWithTask(body)
        promise.futureResult.assumeIsolated().whenSuccess { [self] value in
            timing?.finish()
            self.complete(sequence: sequence, with: value, context: context)
        }
    }

    /// A call this event loop answers itself, once it has read what is ready (``LoopReads``): no task, no thread hop.
    private func answerOnLoop(holding held: Int, timing: RequestTiming?, memoKey: ReplyMemo.Key?,
                              context: ChannelHandlerContext, _ compute: @escaping () -> RESPValue) {
        loopReads.answer(memoKey, computing: compute, then: awaitLoopRead(holding: held, timing: timing, context: context))
    }

    /// A slot for a reply the event loop will compute, and what writes the reply into it.
    private func awaitLoopRead(holding held: Int, timing: RequestTiming?, context: ChannelHandlerContext) -> (RESPValue) -> Void {
        let sequence = firstSequence + slots.count
        slots.append(.waiting(heldBytes: held))
        return { [self] value in
            timing?.finish()
            self.complete(sequence: sequence, with: value, context: context)
        }
    }

    private func complete(sequence: Int, with value: RESPValue, context: ChannelHandlerContext) {
        let index = slots.index(slots.startIndex, offsetBy: sequence - firstSequence)
        if case .waiting(let held) = slots[index] { executor.metrics.releaseRequestBytes(held) }
        guard !closed else { return }
        if case .error = value { executor.metrics.count(.errorReply) }
        slots[index] = .ready(value)
        writeReadySlots()
        resume(context: context)
    }

    // MARK: Writing

    /// Encodes the replies at the front of the queue that are ready, in request order.
    private func writeReadySlots() {
        while let first = slots.first {
            switch first {
            case .waiting: return
            case .ready(let value):
                prepareOutbound()
                value.encode(into: &outbound, resp3: machine.protocolVersion == 3)
            case .written(let frame):
                prepareOutbound()
                outbound.writeImmutableBuffer(frame)
            }
            slots.removeFirst()
            firstSequence += 1
        }
    }

    /// Before encoding a reply: once every byte of `outbound` has been handed to the channel, start again at the
    /// front of its storage (a fresh storage of the same size only while the channel still holds the old one);
    /// a memoised reply held back to be written as it is (`soleFrame`) goes first.
    private func prepareOutbound() {
        if outbound.readableBytes == 0 && outbound.readerIndex > 0 { outbound.clear() }
        if let frame = soleFrame {
            soleFrame = nil
            outbound.writeImmutableBuffer(frame)
        }
    }

    private func flushReplies(context: ChannelHandlerContext) {
        guard !closed else { return }
        if let frame = soleFrame {
            // The only reply since the last flush, and a memoised one: the memo's own bytes go to the channel.
            soleFrame = nil
            trafficSinceCheck = true
            send(frame, context: context)
        } else if outbound.readableBytes > 0 {
            let bytes = outbound
            trafficSinceCheck = true
            // The storage is kept for the next replies (its size suits a pipelined batch), but never larger
            // than 64 KiB: one big reply must not leave an idle connection holding its size.
            if outbound.capacity > 64 * 1024 {
                outbound = context.channel.allocator.buffer(capacity: 1024)
            } else {
                outbound.moveReaderIndex(to: outbound.writerIndex)
            }
            send(bytes, context: context)
        } else if isFinishing && slots.isEmpty {
            close(context: context)
        }
    }

    /// Writes and flushes `bytes`, then closes the connection if nothing more will be answered on it.
    private func send(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        if isFinishing && slots.isEmpty {
            context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { [self] _ in
                self.close(context: context)
            }
        } else {
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        }
    }

    private func close(context: ChannelHandlerContext) {
        guard !closed else { return }
        closed = true
        idleCheck?.cancel()
        idleCheck = nil
        context.close(promise: nil)
    }
}

/// When a request was read, for its command's latency histogram. `NIODeadline`, not `ContinuousClock.Instant`:
/// a standard-library instant has no layout known at compile time, and an optional holding one cost a
/// metadata lookup per request.
struct RequestTiming {
    let histogram: DurationHistogram
    let started: NIODeadline

    func finish() { histogram.record(.nanoseconds((NIODeadline.now() - started).nanoseconds)) }
}
