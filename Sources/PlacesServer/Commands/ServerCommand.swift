import NIOCore
import RESP

/// A request understood: either something the connection answers itself (PING, AUTH, HELLO, …) or a
/// ``BackendCall`` for the application. The ``CommandTable`` reads requests into these.
public enum ServerCommand: Equatable, Sendable {
    /// PING's and ECHO's messages are raw bytes: clients use them as markers (`redis-cli --pipe` ends its
    /// batch with an ECHO of 20 random bytes and waits for exactly those bytes back).
    case ping(ByteBuffer?)
    case echo(ByteBuffer)
    case auth(username: String?, password: [UInt8])
    case quit
    /// `HELLO [protover [AUTH username password] [SETNAME name]]`.
    case hello(protocolVersion: Int?, username: String?, password: [UInt8]?)
    case command(CommandIntrospection)
    case configGet
    case info(sections: [String])
    case client
    case stats
    case help
    /// `MULTI`, `EXEC`, `DISCARD`: a transaction as Redis runs one (queue, then run in order, one array reply).
    case multi, exec, discard
    case backend(BackendCall)

    public enum CommandIntrospection: Equatable, Sendable {
        case list, docs, count, info
    }
}

extension ServerCommandEntry {
    /// The commands of the connection itself, answered by ``ConnectionStateMachine`` without the application.
    static let connectionCommands: [ServerCommandEntry] = [
        ServerCommandEntry(name: "STATS", arity: 0...0, syntax: "STATS", summary: "this server's counters as JSON") { _, _ in .stats },
        ServerCommandEntry(name: "INFO", arity: 0...8, syntax: "INFO [section …]",
                           summary: "server, clients, stats, cache and budget sections, Redis style") { _, arguments in
            .info(sections: arguments.remaining().map { $0.lowercased() })
        },
        ServerCommandEntry(name: "PING", arity: 0...1, syntax: "PING [message]", summary: "PONG, or the message") { request, _ in
            .ping(request.arguments.dropFirst().first)
        },
        ServerCommandEntry(name: "ECHO", arity: 1...1, syntax: "ECHO message", summary: "the message") { request, _ in
            .echo(request.arguments[1])
        },
        ServerCommandEntry(name: "AUTH", arity: 1...2, syntax: "AUTH [default] password",
                           summary: "unlock a password-protected server") { request, arguments throws(CommandSyntaxError) in
            let password = Array(request.arguments.last!.readableBytesView)
            return .auth(username: request.arguments.count == 3 ? try arguments.text() : nil, password: password)
        },
        ServerCommandEntry(name: "HELLO", arity: 0...7, syntax: "HELLO [2|3] [AUTH username password] [SETNAME name]",
                           summary: "server info; protocol 2 or 3 (replies stay in RESP2 frames, which RESP3 clients read)",
                           parse: parseHello),
        ServerCommandEntry(name: "COMMAND", arity: 0...8, syntax: "COMMAND [DOCS|COUNT|INFO]", summary: "for redis-cli's start-up") {
            _, arguments throws(CommandSyntaxError) in
            switch arguments.keyword() {
            case nil: return .command(.list)
            case "DOCS": return .command(.docs)
            case "COUNT": return .command(.count)
            case "INFO": return .command(.info)
            case let other?: throw CommandSyntaxError("unknown subcommand '\(other.prefix(40))' for 'command'; try COMMAND DOCS or COMMAND COUNT")
            }
        },
        ServerCommandEntry(name: "CONFIG", arity: 1...8, syntax: "CONFIG GET parameter", summary: "an empty array, for redis-benchmark") {
            _, arguments throws(CommandSyntaxError) in
            guard arguments.keyword() == "GET", !arguments.remaining().isEmpty else {
                throw CommandSyntaxError("only CONFIG GET parameter is supported (it answers an empty array)")
            }
            return .configGet
        },
        ServerCommandEntry(name: "CLIENT", arity: 1...8, syntax: "CLIENT SETINFO|CAPA …", summary: "accepted and ignored") { _, _ in .client },
        ServerCommandEntry(name: "HELP", arity: 0...1, syntax: "HELP", summary: "this list") { _, _ in .help },
        // redis-cli answers `help` itself and never sends it: this name reaches the server from redis-cli too.
        ServerCommandEntry(name: "PLACES.HELP", arity: 0...0, syntax: "PLACES.HELP", summary: "this list (HELP, for redis-cli)") { _, _ in .help },
        ServerCommandEntry(name: "QUIT", arity: 0...0, syntax: "QUIT", summary: "close the connection") { _, _ in .quit },
        ServerCommandEntry(name: "MULTI", arity: 0...0, syntax: "MULTI",
                           summary: "start a transaction: later commands answer +QUEUED until EXEC or DISCARD") { _, _ in .multi },
        ServerCommandEntry(name: "EXEC", arity: 0...0, syntax: "EXEC",
                           summary: "run the queued commands in order; one array of their replies") { _, _ in .exec },
        ServerCommandEntry(name: "DISCARD", arity: 0...0, syntax: "DISCARD", summary: "drop the queued commands") { _, _ in .discard },
    ]

    /// `HELLO [protover [AUTH username password] [SETNAME name]]`, as Redis 6 defines it.
    private static func parseHello(_ request: RESPRequest, _ arguments: inout CommandArguments) throws(CommandSyntaxError) -> ServerCommand {
        let args = arguments.remaining()
        guard let first = args.first else { return .hello(protocolVersion: nil, username: nil, password: nil) }
        guard let version = Int(first) else {
            throw CommandSyntaxError("Protocol version is not an integer or out of range")
        }
        var username: String?
        var password: [UInt8]?
        var index = 1
        while index < args.count {
            switch args[index].uppercased() {
            case "AUTH" where index + 2 < args.count:
                username = args[index + 1]
                password = Array(request.arguments[index + 3].readableBytesView)
                index += 3
            case "SETNAME" where index + 1 < args.count:
                index += 2
            default:
                throw CommandSyntaxError("syntax error in HELLO option '\(args[index].prefix(40))'")
            }
        }
        return .hello(protocolVersion: version, username: username, password: password)
    }
}
