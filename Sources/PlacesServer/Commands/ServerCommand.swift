import NIOCore
import PlacesCore

/// A request understood: the command and its typed arguments. Parsing is pure, so every syntax rule
/// is tested without a socket, and a syntax error is an `-ERR` reply that keeps the connection open.
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
    case backend(BackendCall)

    public enum CommandIntrospection: Equatable, Sendable {
        case list, docs, count, info
    }

    /// The syntax error text (the full reply text, starting with `ERR`).
    public struct SyntaxError: Error, Equatable, Sendable {
        public let message: String
        init(_ message: String) { self.message = message.hasPrefix("ERR ") ? message : "ERR " + message }
    }

    /// Parses one request. Command names are case-insensitive; keywords (`NEAR`, `RADIUS`, …) too.
    public static func parse(_ request: RESPRequest) throws(SyntaxError) -> ServerCommand {
        guard let first = request.arguments.first else { throw SyntaxError("empty request") }
        let name = String(buffer: first).uppercased()
        let args = Array(request.strings.dropFirst())
        guard let spec = CommandCatalog.spec(named: name) else {
            let shown = args.prefix(3).map { "'\($0.prefix(40))'" }.joined(separator: " ")
            throw SyntaxError("unknown command '\(String(buffer: first).prefix(40))', with args beginning with: \(shown) (HELP lists the commands)")
        }
        guard spec.arity.contains(args.count) else {
            throw SyntaxError("wrong number of arguments for '\(name.lowercased())' command; usage: \(spec.syntax)")
        }
        var reader = ArgumentReader(command: spec, arguments: args)
        switch name {
        case "PING": return .ping(request.arguments.dropFirst().first)
        case "ECHO": return .echo(request.arguments[1])
        case "AUTH":
            let password = Array(request.arguments.last!.readableBytesView)
            return .auth(username: args.count == 2 ? args[0] : nil, password: password)
        case "QUIT": return .quit
        case "HELLO": return try parseHello(args, raw: request)
        case "COMMAND":
            switch args.first?.uppercased() {
            case nil: return .command(.list)
            case "DOCS": return .command(.docs)
            case "COUNT": return .command(.count)
            case "INFO": return .command(.info)
            case let other?: throw SyntaxError("unknown subcommand '\(other.prefix(40))' for 'command'; try COMMAND DOCS or COMMAND COUNT")
            }
        case "CONFIG":
            guard args[0].uppercased() == "GET", args.count >= 2 else {
                throw SyntaxError("only CONFIG GET parameter is supported (it answers an empty array)")
            }
            return .configGet
        case "INFO": return .info(sections: args.map { $0.lowercased() })
        case "CLIENT": return .client
        case "STATS": return .stats
        case "HELP": return .help
        case "BUDGET": return .backend(.budget)
        case "CACHE.STATS": return .backend(.cacheStats)
        case "SCORE": return .backend(.score(args[0], args[1]))
        // The spots layer parses these (SpotCommandHandler), so the syntax lives in one place; its
        // InputError becomes the `-ERR` reply.
        case "SPOT.ADD", "SPOT.LIST", "SPOT.SHOW", "SPOT.NEAR", "SPOT.NEAREST", "SPOT.LOG", "SPOT.VISITS":
            return .backend(.spot(name, args))
        case "DETAILS":
            do { return .backend(.details(DetailsQuery(id: try PlaceID(parsing: args[0])))) } catch {
                throw SyntaxError(error.message)
            }
        case "REVERSE":
            let point = try reader.coordinate()
            return .backend(.reverse(ReverseQuery(coordinate: point)))
        case "SEARCH":
            let text = try reader.text()
            var near: Coordinate?
            var radius: Double?
            var limit = 10
            var category: String?
            while let keyword = reader.nextKeyword() {
                switch keyword {
                case "NEAR": near = try reader.coordinate()
                case "RADIUS": radius = try reader.metres()
                case "LIMIT": limit = try reader.limit()
                case "CATEGORY": category = try reader.text().lowercased()
                default: throw reader.unexpected(keyword)
                }
            }
            if radius != nil && near == nil { throw SyntaxError("RADIUS needs NEAR lat lon; usage: \(spec.syntax)") }
            return .backend(.search(SearchQuery(text: text, near: near, radius: radius, limit: limit, category: category)))
        case "NEARBY":
            let center = try reader.coordinate()
            var radius = 500.0
            var limit = 20
            var category: String?
            var brand: String?
            while let keyword = reader.nextKeyword() {
                switch keyword {
                case "RADIUS": radius = try reader.metres()
                case "CATEGORY": category = try reader.text().lowercased()
                case "BRAND": brand = try reader.text()
                case "LIMIT": limit = try reader.limit()
                default: throw reader.unexpected(keyword)
                }
            }
            return .backend(.nearby(NearbyQuery(center: center, radius: radius, category: category, brand: brand, limit: limit)))
        case "SUGGEST":
            let prefix = try reader.text()
            var near: Coordinate?
            var limit = 8
            while let keyword = reader.nextKeyword() {
                switch keyword {
                case "NEAR": near = try reader.coordinate()
                case "LIMIT": limit = try reader.limit()
                default: throw reader.unexpected(keyword)
                }
            }
            return .backend(.suggest(SuggestQuery(prefix: prefix, near: near, limit: limit)))
        case "LOOKUP":
            let placeName = try reader.text()
            var near: Coordinate?
            // Like `places lookup --fields`: the named fields on top of the default set.
            var fields = PlaceField.defaultSet
            while let keyword = reader.nextKeyword() {
                switch keyword {
                case "NEAR": near = try reader.coordinate()
                case "FIELDS":
                    let rest = reader.remaining()
                    guard !rest.isEmpty else { throw SyntaxError("FIELDS needs at least one field name; usage: \(spec.syntax)") }
                    do { fields = PlaceField.defaultSet.union(try PlaceField.parseList(rest.joined(separator: ","))) } catch { throw SyntaxError(error.message) }
                default: throw reader.unexpected(keyword)
                }
            }
            return .backend(.lookup(MatchQuery(name: placeName, near: near, fields: fields)))
        default:
            throw SyntaxError("unknown command '\(name)'")
        }
    }
}

/// Reads positional arguments and `KEYWORD value` options in order, with errors that show the usage.
private struct ArgumentReader {
    let command: CommandSpec
    let arguments: [String]
    var position = 0

    init(command: CommandSpec, arguments: [String]) {
        self.command = command
        self.arguments = arguments
    }

    mutating func text() throws(ServerCommand.SyntaxError) -> String {
        guard position < arguments.count else { throw usage("missing argument") }
        defer { position += 1 }
        return arguments[position]
    }

    mutating func nextKeyword() -> String? {
        guard position < arguments.count else { return nil }
        defer { position += 1 }
        return arguments[position].uppercased()
    }

    mutating func remaining() -> [String] {
        defer { position = arguments.count }
        return Array(arguments[position...])
    }

    mutating func coordinate() throws(ServerCommand.SyntaxError) -> Coordinate {
        let latText = try text()
        let lonText = try text()
        guard let lat = Double(latText), let lon = Double(lonText) else {
            throw usage("invalid coordinate '\(latText.prefix(40)) \(lonText.prefix(40))': expected lat lon in decimal degrees, for example 60.1699 24.9384")
        }
        do { return try Coordinate.check(latitude: lat, longitude: lon) } catch {
            throw ServerCommand.SyntaxError("invalid coordinate: \(error)")
        }
    }

    mutating func metres() throws(ServerCommand.SyntaxError) -> Double {
        let raw = try text()
        do { return try InputRange.metres(parsing: raw, named: "RADIUS") } catch { throw usage(error.message) }
    }

    mutating func limit() throws(ServerCommand.SyntaxError) -> Int {
        let raw = try text()
        do { return try InputRange.limit(parsing: raw, named: "LIMIT") } catch { throw usage(error.message) }
    }

    func unexpected(_ keyword: String) -> ServerCommand.SyntaxError {
        usage("syntax error at '\(keyword.prefix(40))'")
    }

    func usage(_ problem: String) -> ServerCommand.SyntaxError {
        ServerCommand.SyntaxError("\(problem); usage: \(command.syntax)")
    }
}


extension ServerCommand {
    /// `HELLO [protover [AUTH username password] [SETNAME name]]`, as Redis 6 defines it.
    static func parseHello(_ args: [String], raw request: RESPRequest) throws(SyntaxError) -> ServerCommand {
        guard let first = args.first else { return .hello(protocolVersion: nil, username: nil, password: nil) }
        guard let version = Int(first) else {
            throw SyntaxError("Protocol version is not an integer or out of range")
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
                throw SyntaxError("syntax error in HELLO option '\(args[index].prefix(40))'")
            }
        }
        return .hello(protocolVersion: version, username: username, password: password)
    }
}
