import Foundation
import NIOCore
import PlacesPipeline
import RESP

/// Whether, and for how long, the server's ``ReplyMemo`` may repeat a command's replies.
public enum Memoisation: Sendable, Equatable {
    /// Never: anything that writes, spends or counts.
    case never
    /// For the memo's time to live: reads that only `places import` changes. Identical requests in flight share
    /// one call.
    case forTimeToLive
    /// Only a reply that came with a ``CacheHitLease`` (a LOOKUP answered by a cache hit), while the lease holds:
    /// the cache's change stamp unchanged, the row not expired, the touch interval not passed. Nothing else changes:
    /// misses, the budget and single flight stay the pipeline's.
    case whileLeased
}

/// One server command, whole: its name, how many arguments it takes, its syntax and summary (for HELP
/// and COMMAND DOCS), whether its reply may be repeated from memory, and how to read its arguments into
/// what runs. Adding an application command is one entry in ``CommandTable/places(_:)`` (a `core` entry,
/// which renders the core's typed errors) and its handler; nothing else in the server names it.
public struct ServerCommandEntry: Sendable {
    public let name: String
    /// Arguments after the name.
    public let arity: ClosedRange<Int>
    public let syntax: String
    public let summary: String
    /// Whether a reply may be repeated from the server's ``ReplyMemo``, and for how long.
    public let memoisation: Memoisation
    /// The request read into a command; the arguments reader already holds the arguments after the name.
    let parse: @Sendable (_ request: RESPRequest, _ arguments: inout CommandArguments) throws(CommandSyntaxError) -> ServerCommand

    init(name: String, arity: ClosedRange<Int>, syntax: String, summary: String, memoisation: Memoisation = .never,
         parse: @escaping @Sendable (RESPRequest, inout CommandArguments) throws(CommandSyntaxError) -> ServerCommand) {
        self.name = name
        self.arity = arity
        self.syntax = syntax
        self.summary = summary
        self.memoisation = memoisation
        self.parse = parse
    }

    /// A command the application answers: `parse` reads the arguments into a request value (pure, so
    /// every syntax rule is tested without a socket) and `handle` answers it with the bytes of the
    /// CLI's `--json` output, or `nil` for a miss (a null reply).
    public static func backend<Request: Equatable & Sendable>(
        _ name: String, arity: ClosedRange<Int>, syntax: String, summary: String, memoisable: Bool,
        parse: @escaping @Sendable (inout CommandArguments) throws(CommandSyntaxError) -> Request,
        handle: @escaping @Sendable (Request) async throws -> Data?
    ) -> ServerCommandEntry {
        answered(name, arity: arity, syntax: syntax, summary: summary, memoisation: memoisable ? .forTimeToLive : .never,
                 parse: parse) { request in .later { BackendAnswer(data: try await handle(request)) } }
    }

    /// A ``backend(_:arity:syntax:summary:memoisable:parse:handle:)`` command whose `work` says, per request, whether
    /// it is answered on the calling thread (``BackendCall/Work/now(_:)``: a read of this machine's index) or by a task.
    public static func backend<Request: Equatable & Sendable>(
        _ name: String, arity: ClosedRange<Int>, syntax: String, summary: String, memoisable: Bool,
        parse: @escaping @Sendable (inout CommandArguments) throws(CommandSyntaxError) -> Request,
        work: @escaping @Sendable (Request) -> BackendCall.Work
    ) -> ServerCommandEntry {
        answered(name, arity: arity, syntax: syntax, summary: summary, memoisation: memoisable ? .forTimeToLive : .never,
                 parse: parse, work: work)
    }

    /// A command whose replies are repeated only under a lease its handler returns with them (``Memoisation/whileLeased``):
    /// LOOKUP, whose cache hits hold while the cache's change stamp does.
    public static func leased<Request: Equatable & Sendable>(
        _ name: String, arity: ClosedRange<Int>, syntax: String, summary: String,
        parse: @escaping @Sendable (inout CommandArguments) throws(CommandSyntaxError) -> Request,
        handle: @escaping @Sendable (Request) async throws -> BackendAnswer
    ) -> ServerCommandEntry {
        answered(name, arity: arity, syntax: syntax, summary: summary, memoisation: .whileLeased, parse: parse) { request in
            .later { try await handle(request) }
        }
    }

    /// The one way a backend command is read and bound: the request value parsed, then a call carrying it and
    /// the handler that answers it.
    private static func answered<Request: Equatable & Sendable>(
        _ name: String, arity: ClosedRange<Int>, syntax: String, summary: String, memoisation: Memoisation,
        parse: @escaping @Sendable (inout CommandArguments) throws(CommandSyntaxError) -> Request,
        work: @escaping @Sendable (Request) -> BackendCall.Work
    ) -> ServerCommandEntry {
        ServerCommandEntry(name: name, arity: arity, syntax: syntax, summary: summary, memoisation: memoisation) {
            _, arguments throws(CommandSyntaxError) in
            let request = try parse(&arguments)
            return .backend(BackendCall(commandName: name, memoisation: memoisation, request: request, work: work(request)))
        }
    }
}

/// What a backend call answers: the reply's bytes (`nil`: a miss), and for a reply built from a cache hit, the
/// lease under which the server may repeat it (``Memoisation/whileLeased``).
public struct BackendAnswer: Sendable {
    public var data: Data?
    public var lease: CacheHitLease?

    public init(data: Data?, lease: CacheHitLease? = nil) {
        self.data = data
        self.lease = lease
    }
}

/// A command read from a request, ready to run: its request value (compared in tests) and the handler
/// bound to it.
public struct BackendCall: Sendable, Equatable, CustomStringConvertible {
    public let commandName: String
    public let memoisation: Memoisation
    /// The typed request the handler runs with (a `SearchQuery`, a spot filter, …).
    public let request: any Equatable & Sendable
    public let work: Work

    /// How a call is answered.
    public enum Work: Sendable {
        /// On the calling thread, from this machine's local index, in a time bounded by the index's own queries
        /// (a `DETAILS` of an `osm:` or `geonames:` id, a local `SEARCH`): the server runs it on the event loop
        /// that read the request, which saves the hop to a task and back (task creation and two thread wake-ups,
        /// 10–15 % of an uncached `DETAILS`, perf).
        case now(@Sendable () throws -> BackendAnswer)
        /// By a task: anything that may wait on the network, another process or a lock.
        case later(@Sendable () async throws -> BackendAnswer)
    }

    init<Request: Equatable & Sendable>(commandName: String, memoisation: Memoisation, request: Request, work: Work) {
        self.commandName = commandName
        self.memoisation = memoisation
        self.request = request
        self.work = work
    }

    init<Request: Equatable & Sendable>(commandName: String, memoisation: Memoisation, request: Request,
                                        run: @escaping @Sendable () async throws -> BackendAnswer) {
        self.init(commandName: commandName, memoisation: memoisation, request: request, work: .later(run))
    }

    /// Answers the request: the reply's bytes (`nil` for a miss), with a lease when it may be repeated under one.
    public func run() async throws -> BackendAnswer {
        switch work {
        case .now(let answer): return try answer()
        case .later(let answer): return try await answer()
        }
    }

    /// Same command, same request value (the handlers are the table's, so they are the same too).
    public static func == (lhs: BackendCall, rhs: BackendCall) -> Bool {
        func sameRequest<Request: Equatable>(_ left: Request) -> Bool { (rhs.request as? Request) == left }
        return lhs.commandName == rhs.commandName && sameRequest(lhs.request)
    }

    public var description: String { "\(commandName) \(request)" }
}

/// Every command the server answers: the application's (``places(_:)``) followed by the connection's
/// (PING, AUTH, HELLO, INFO, …). HELP and COMMAND DOCS are printed from it, so syntax is written once.
public struct CommandTable: Sendable {
    public let entries: [ServerCommandEntry]
    private let byName: [String: ServerCommandEntry]
    /// `INFO` sections the application adds (`cache`, `budget`): key/value lines that never include secrets.
    public let infoSections: @Sendable () async -> [InfoSection]

    /// - Parameter application: the application's commands; the connection commands are added after them.
    public init(_ application: [ServerCommandEntry], infoSections: @escaping @Sendable () async -> [InfoSection] = { [] }) {
        entries = application + ServerCommandEntry.connectionCommands
        byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.infoSections = infoSections
    }

    public func entry(named upperCasedName: String) -> ServerCommandEntry? { byName[upperCasedName] }

    /// Reads one request. Command names are case-insensitive, and so are option keywords.
    public func parse(_ request: RESPRequest) throws(CommandSyntaxError) -> ServerCommand {
        guard let first = request.arguments.first else { throw CommandSyntaxError("empty request") }
        let name = String(buffer: first).uppercased()
        let arguments = Array(request.strings.dropFirst())
        guard let entry = byName[name] else {
            let shown = arguments.prefix(3).map { "'\($0.prefix(40))'" }.joined(separator: " ")
            throw CommandSyntaxError("unknown command '\(String(buffer: first).prefix(40))', with args beginning with: \(shown) (HELP lists the commands)")
        }
        guard entry.arity.contains(arguments.count) else {
            throw CommandSyntaxError("wrong number of arguments for '\(name.lowercased())' command; usage: \(entry.syntax)")
        }
        var reader = CommandArguments(syntax: entry.syntax, arguments: arguments)
        return try entry.parse(request, &reader)
    }

    /// HELP's lines: syntax, then what it does.
    public var helpLines: [String] {
        ["places serve speaks the Redis protocol (RESP2). Replies with places are JSON in bulk strings; a miss is nil."]
            + entries.map { "\($0.syntax)  —  \($0.summary)" }
    }

    /// `COMMAND DOCS`, in Redis 7's shape (name, then a flat map of summary, since and group, and the
    /// syntax as one argument), so `redis-cli` shows each command's syntax as it is typed.
    public var docs: RESPValue {
        .array(entries.flatMap { entry -> [RESPValue] in
            let parameters = entry.syntax.dropFirst(entry.name.count).trimmingCharacters(in: .whitespaces)
            var fields: [RESPValue] = [
                .bulk("summary"), .bulk(entry.summary), .bulk("since"), .bulk("1.0.0"), .bulk("group"), .bulk("generic"),
            ]
            if !parameters.isEmpty {
                fields += [.bulk("arguments"), .array([.array([.bulk("name"), .bulk(parameters), .bulk("type"), .bulk("string")])])]
            }
            return [.bulk(entry.name.lowercased()), .array(fields)]
        })
    }
}

extension RESPValue {
    public static func bulk(_ data: Data) -> RESPValue { .bulkString(ByteBuffer(bytes: data)) }
}
