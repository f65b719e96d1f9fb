import NIOCore
import PlacesApp
import RESP

/// What one connection does with each request, decided without I/O: the channel handler only
/// carries out the returned ``Action``s (the postgres-nio pattern).
public struct ConnectionStateMachine: Sendable {
    public enum Action: Equatable, Sendable {
        /// Send this reply, in request order.
        case reply(RESPValue)
        /// Send this reply, then close (QUIT, protocol errors).
        case replyAndClose(RESPValue)
        /// Ask the backend; the reply keeps this request's place in the order.
        case execute(BackendCall)
        /// Build `INFO` (or `STATS` when `json` is true) from the server's counters and the backend.
        case report(sections: [String], json: Bool)
        /// `EXEC`: carry out these steps one after another, in order, and reply with one array of their replies.
        case executeTransaction([TransactionStep])
        /// Close without a reply: something that is not a Redis client (an HTTP request) is talking.
        case drop(reason: String)
        /// The client will send nothing more (it shut down its write side): answer every complete
        /// request already received, in order, then close. A partial request left over is discarded.
        case closeWhenAnswered
        /// Nothing to do: the connection is already closing.
        case ignore
    }

    /// One queued command of a transaction, decided when `EXEC` arrives (so a queued `AUTH` or `HELLO` acts in
    /// its turn, as in Redis).
    public enum TransactionStep: Equatable, Sendable {
        case reply(RESPValue)
        case execute(BackendCall)
        case report(sections: [String], json: Bool)
    }

    /// Between `MULTI` and `EXEC`/`DISCARD`: the commands queued so far, and whether one was refused while
    /// queuing (a syntax error), which makes `EXEC` discard them all.
    private struct Transaction: Sendable {
        var queued: [ServerCommand] = []
        var refused = false
    }

    private enum State: Sendable {
        case awaitingAuth
        case ready
        case closing
    }

    private var state: State
    private let password: [UInt8]?
    /// What requests are read into; also what HELP, COMMAND COUNT and COMMAND DOCS describe.
    private let commands: CommandTable
    /// False once the client has half-closed; requests already received are still answered.
    private var inputOpen = true
    /// Set by `MULTI` until `EXEC` or `DISCARD`.
    private var transaction: Transaction?

    /// - Parameter password: when set, every command but AUTH, HELLO and QUIT answers `-NOAUTH` until it is given.
    public init(password: [UInt8]?, commands: CommandTable) {
        self.password = password
        self.commands = commands
        state = password == nil ? .ready : .awaitingAuth
    }

    /// 3 after a successful `HELLO 3`: replies are then written as RESP3 where the two differ (null).
    public private(set) var protocolVersion = 2

    public var isAuthenticated: Bool {
        if case .awaitingAuth = state { return false }
        return true
    }

    /// Authenticated and not closing: a request may be answered from the server's memo without being
    /// parsed, because parsing it could only lead to the same reply.
    public var isReady: Bool {
        if case .ready = state { return transaction == nil }  // inside MULTI every request is queued, not answered
        return false
    }

    public var isClosing: Bool {
        if case .closing = state { return true }
        return false
    }

    /// The client shut down its write side: no request will arrive after those already received.
    public var isInputClosed: Bool { !inputOpen }

    public mutating func received(_ request: RESPRequest) -> Action {
        if case .closing = state { return .ignore }
        // HTTP can only arrive as inline text; multibulk requests skip the check (it is on the hot path).
        if request.isInline, let reason = Self.httpProbe(request) {
            state = .closing
            return .drop(reason: reason)
        }
        let command: ServerCommand
        do {
            command = try commands.parse(request)
        } catch {
            if case .awaitingAuth = state { return .reply(Self.noAuth) }
            transaction?.refused = true
            return .reply(.error(error.message))
        }
        if case .awaitingAuth = state {
            switch command {
            case .auth, .quit, .hello:
                break
            default:
                return .reply(Self.noAuth)
            }
        }
        if transaction != nil {
            switch command {
            case .multi: return .reply(.error("ERR MULTI calls can not be nested"))
            case .exec:
                let finished = transaction!
                transaction = nil
                if finished.refused { return .reply(.error("EXECABORT Transaction discarded because of previous errors.")) }
                var steps: [TransactionStep] = []
                for queued in finished.queued { steps.append(step(queued)) }
                return .executeTransaction(steps)
            case .discard:
                transaction = nil
                return .reply(.ok)
            case .quit:
                transaction = nil
                return perform(command)
            default:
                transaction!.queued.append(command)
                return .reply(.simpleString("QUEUED"))
            }
        }
        return perform(command)
    }

    /// A queued command's step, decided in its turn at `EXEC`.
    private mutating func step(_ command: ServerCommand) -> TransactionStep {
        switch perform(command) {
        case .execute(let call): return .execute(call)
        case .report(let sections, let json): return .report(sections: sections, json: json)
        case .reply(let value), .replyAndClose(let value): return .reply(value)
        case .executeTransaction, .drop, .closeWhenAnswered, .ignore:
            return .reply(.error("ERR this command cannot run inside MULTI"))  // not queued: see received(_:)
        }
    }

    /// What one command does outside a transaction.
    private mutating func perform(_ command: ServerCommand) -> Action {
        switch command {
        case .multi:
            transaction = Transaction()
            return .reply(.ok)
        case .exec: return .reply(.error("ERR EXEC without MULTI"))
        case .discard: return .reply(.error("ERR DISCARD without MULTI"))
        case .ping(let message): return .reply(message.map { .bulkString($0) } ?? .simpleString("PONG"))
        case .echo(let message): return .reply(.bulkString(message))
        case .auth(let username, let given):
            guard let password else { return .reply(.error(Self.noPasswordConfigured)) }
            guard username == nil || username == "default", Self.constantTimeEqual(given, password) else {
                return .reply(.error("WRONGPASS invalid username-password pair or user is disabled."))
            }
            state = .ready
            return .reply(.ok)
        case .quit:
            state = .closing
            return .replyAndClose(.ok)
        case .hello(let version, let username, let given):
            return hello(version: version, username: username, password: given)
        case .command(.count): return .reply(.integer(commands.entries.count))
        case .command(.docs): return .reply(commands.docs)
        case .command: return .reply(.array([]))
        case .configGet: return .reply(.array([]))
        case .client: return .reply(.ok)
        case .help: return .reply(.array(commands.helpLines.map { .simpleString($0) }))
        case .info(let sections): return .report(sections: sections, json: false)
        case .stats: return .report(sections: [], json: true)
        case .backend(let call): return .execute(call)
        }
    }

    /// Answers `HELLO` as Redis 6 does, so clients that open with `HELLO 3` (redis-py 8, `redis-cli -3`)
    /// work without a fallback: protocol 3 gets the server map as a RESP3 map, and later replies keep
    /// their RESP2 encodings, which are valid RESP3 frames.
    private mutating func hello(version: Int?, username: String?, password given: [UInt8]?) -> Action {
        if let version, version != 2 && version != 3 {
            return .reply(.error("NOPROTO unsupported protocol version"))
        }
        if let given {
            if let password {
                guard username == nil || username == "default", Self.constantTimeEqual(given, password) else {
                    return .reply(.error("WRONGPASS invalid username-password pair or user is disabled."))
                }
            }
            if case .awaitingAuth = state { state = .ready }
        }
        if case .awaitingAuth = state {
            return .reply(.error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"))
        }
        let fields: [RESPValue] = [
            .bulk("server"), .bulk("places"), .bulk("version"), .bulk(PlacesVersion.string),
            .bulk("proto"), .integer(version ?? protocolVersion), .bulk("id"), .integer(0), .bulk("mode"), .bulk("standalone"),
            .bulk("role"), .bulk("master"), .bulk("modules"), .array([]),
        ]
        if let version { protocolVersion = version }
        return .reply(protocolVersion == 3 ? .map(fields) : .array(fields))
    }

    /// A framing error: reply with it and close, since nothing after it on the stream can be trusted.
    public mutating func protocolError(_ error: RESPProtocolError) -> Action {
        if case .closing = state { return .ignore }
        state = .closing
        return .replyAndClose(.error(error.message))
    }

    /// The client shut down its write side (a TCP FIN: `nc -N`, `shutdown(SHUT_WR)`). Redis answers
    /// every complete request it received before the FIN; so does this server, writes included, and
    /// then closes. Authentication state carries on: the buffered requests are judged as before.
    public mutating func inputClosed() -> Action {
        if case .closing = state { return .ignore }
        guard inputOpen else { return .ignore }
        inputOpen = false
        return .closeWhenAnswered
    }

    /// A request being received would take the server's bytes in flight past `limit` (many clients
    /// sending large requests at once): refuse it with an error and close, since its remaining bytes
    /// cannot be read as requests. Other connections are unaffected.
    public mutating func requestMemoryExhausted(limit: Int) -> Action {
        if case .closing = state { return .ignore }
        state = .closing
        return .replyAndClose(.error("ERR max memory for requests in flight reached (\(limit) bytes); retry later"))
    }

    /// The server is over its client limit: tell the client why, then close.
    public mutating func rejectTooManyClients() -> Action {
        state = .closing
        return .replyAndClose(.error("ERR max number of clients reached"))
    }

    static let noAuth = RESPValue.error("NOAUTH Authentication required.")
    static let noPasswordConfigured =
        "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"

    /// Compares every byte of the longer input whatever the contents, so timing says nothing about
    /// how much of a guess was right.
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: given.count ^ expected.count)
        if given.count != expected.count { difference |= 1 }
        let length = max(given.count, expected.count)
        for i in 0..<length {
            let a = i < given.count ? given[i] : 0
            let b = i < expected.count ? expected[i] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// An HTTP request sent to the port: `GET / HTTP/1.1`, `POST …`, or a `Host:` header line. Redis
    /// treats these as a possible cross-protocol attack from a browser and drops the connection.
    static func httpProbe(_ request: RESPRequest) -> String? {
        guard let firstWord = request.arguments.first.map({ String(buffer: $0).uppercased() }) else { return nil }
        if firstWord == "HOST:" { return "HTTP header 'Host:' received" }
        if firstWord == "POST" { return "HTTP 'POST' request received" }
        if ["GET", "PUT", "HEAD"].contains(firstWord),
           request.arguments.dropFirst().contains(where: { String(buffer: $0).uppercased().hasPrefix("HTTP/") }) {
            return "HTTP '\(firstWord)' request received"
        }
        return nil
    }
}
