/// One command's name, how many arguments it takes (after the name) and its syntax for HELP.
public struct CommandSpec: Sendable, Equatable {
    public var name: String
    public var arity: ClosedRange<Int>
    public var syntax: String
    public var summary: String
}

/// Every command the server answers. HELP prints this list, so it is the one place syntax is written.
public enum CommandCatalog {
    public static let all: [CommandSpec] = [
        CommandSpec(name: "SEARCH", arity: 1...9, syntax: "SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n] [CATEGORY c]",
                    summary: "places whose names match the words, as `places search --json`"),
        CommandSpec(name: "DETAILS", arity: 1...1, syntax: "DETAILS id",
                    summary: "one place by id (osm:node/123, geonames:658225); null when unknown"),
        CommandSpec(name: "NEARBY", arity: 2...10, syntax: "NEARBY lat lon [RADIUS m] [CATEGORY c] [BRAND b] [LIMIT n]",
                    summary: "places around a point, nearest first"),
        CommandSpec(name: "REVERSE", arity: 2...2, syntax: "REVERSE lat lon",
                    summary: "nearest place, city, country and time zone of a point; null when nothing is known"),
        CommandSpec(name: "SUGGEST", arity: 1...5, syntax: "SUGGEST prefix [NEAR lat lon] [LIMIT n]",
                    summary: "completions for a name being typed"),
        CommandSpec(name: "LOOKUP", arity: 1...64, syntax: "LOOKUP name [NEAR lat lon] [FIELDS field …]",
                    summary: "the one place meant, through cache, local index and paid providers under budget"),
        CommandSpec(name: "SCORE", arity: 2...2, syntax: "SCORE a b", summary: "how alike two place names are"),
        CommandSpec(name: "BUDGET", arity: 0...0, syntax: "BUDGET", summary: "money spent and left per provider"),
        CommandSpec(name: "CACHE.STATS", arity: 0...0, syntax: "CACHE.STATS", summary: "lookup cache entries, hits and misses"),
        CommandSpec(name: "SPOT.ADD", arity: 3...64,
                    syntax: "SPOT.ADD name lat lon [CATEGORY c] [TAG t]… [NOTE text] [RATING like|dislike|none]",
                    summary: "save a spot, as `places spots add --json`"),
        CommandSpec(name: "SPOT.LIST", arity: 0...64,
                    syntax: "SPOT.LIST [CATEGORY c] [TAG t]… [RATING r] [SORT name|recent|distance] [AT lat lon]",
                    summary: "saved spots, as `places spots list --json`"),
        CommandSpec(name: "SPOT.SHOW", arity: 1...1, syntax: "SPOT.SHOW id", summary: "one saved spot; null when unknown"),
        CommandSpec(name: "SPOT.NEAR", arity: 2...4, syntax: "SPOT.NEAR lat lon [RADIUS m]",
                    summary: "saved spots within the radius (default 805 m), nearest first"),
        CommandSpec(name: "SPOT.NEAREST", arity: 2...4, syntax: "SPOT.NEAREST lat lon [LIMIT n]",
                    summary: "the nearest saved spots, however far"),
        CommandSpec(name: "SPOT.LOG", arity: 2...64, syntax: "SPOT.LOG (SPOT id | AT lat lon) [NOTE text] [TIME iso8601]",
                    summary: "record a visit, as `places spots log --json`"),
        CommandSpec(name: "SPOT.VISITS", arity: 0...2, syntax: "SPOT.VISITS [DAY yyyy-mm-dd | SINCE date]",
                    summary: "logged visits grouped by day"),
        CommandSpec(name: "STATS", arity: 0...0, syntax: "STATS", summary: "this server's counters as JSON"),
        CommandSpec(name: "INFO", arity: 0...8, syntax: "INFO [section …]",
                    summary: "server, clients, stats, cache and budget sections, Redis style"),
        CommandSpec(name: "PING", arity: 0...1, syntax: "PING [message]", summary: "PONG, or the message"),
        CommandSpec(name: "ECHO", arity: 1...1, syntax: "ECHO message", summary: "the message"),
        CommandSpec(name: "AUTH", arity: 1...2, syntax: "AUTH [default] password", summary: "unlock a password-protected server"),
        CommandSpec(name: "HELLO", arity: 0...7, syntax: "HELLO [2|3] [AUTH username password] [SETNAME name]",
                    summary: "server info; protocol 2 or 3 (replies stay in RESP2 frames, which RESP3 clients read)"),
        CommandSpec(name: "COMMAND", arity: 0...8, syntax: "COMMAND [DOCS|COUNT|INFO]", summary: "for redis-cli's start-up"),
        CommandSpec(name: "CONFIG", arity: 1...8, syntax: "CONFIG GET parameter", summary: "an empty array, for redis-benchmark"),
        CommandSpec(name: "CLIENT", arity: 1...8, syntax: "CLIENT SETINFO|CAPA …", summary: "accepted and ignored"),
        CommandSpec(name: "HELP", arity: 0...1, syntax: "HELP", summary: "this list"),
        CommandSpec(name: "QUIT", arity: 0...0, syntax: "QUIT", summary: "close the connection"),
    ]

    private static let byName: [String: CommandSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    public static func spec(named upperCasedName: String) -> CommandSpec? { byName[upperCasedName] }

    /// HELP's lines: syntax, then what it does.
    public static var helpLines: [String] {
        ["places serve speaks the Redis protocol (RESP2). Replies with places are JSON in bulk strings; a miss is nil."]
            + all.map { "\($0.syntax)  —  \($0.summary)" }
    }
}
