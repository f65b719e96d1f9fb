import PlacesCore

/// A request the command table could not read: unknown command, wrong arity, a bad value. The reply is
/// ``message`` as an `-ERR` line and the connection stays open.
public struct CommandSyntaxError: Error, Equatable, Sendable {
    /// The full reply text, starting with `ERR`.
    public let message: String

    public init(_ message: String) { self.message = message.hasPrefix("ERR ") ? message : "ERR " + message }
}

/// Reads one command's arguments in order: positional values, then `KEYWORD value` options (keywords in
/// any case, as Redis reads them). It is the only argument reader of the server, so every command
/// reports a bad value the same way: what is wrong, then the command's usage.
public struct CommandArguments: Sendable {
    /// The command's syntax, shown after every problem.
    public let syntax: String
    let arguments: [String]
    private var position = 0
    /// Option keywords read so far by ``option(repeatable:)``.
    private var optionsRead: Set<String> = []

    public init(syntax: String, arguments: [String]) {
        self.syntax = syntax
        self.arguments = arguments
    }

    /// The next argument, as given.
    public mutating func text() throws(CommandSyntaxError) -> String {
        guard position < arguments.count else { throw usage("missing argument") }
        defer { position += 1 }
        return arguments[position]
    }

    /// The next argument upper-cased (an option's keyword), or `nil` when none are left.
    public mutating func keyword() -> String? {
        guard position < arguments.count else { return nil }
        defer { position += 1 }
        return arguments[position].uppercased()
    }

    /// The next option's keyword upper-cased, or `nil` when none are left. Options come in any order, each
    /// once unless `repeatable` names it (`TAG t`…).
    /// - Throws: when a keyword comes a second time, naming it.
    public mutating func option(repeatable: Set<String> = []) throws(CommandSyntaxError) -> String? {
        guard let keyword = keyword() else { return nil }
        guard repeatable.contains(keyword) || optionsRead.insert(keyword).inserted else {
            throw usage("option '\(keyword.prefix(40))' given twice; give each option once")
        }
        return keyword
    }

    /// Every argument not read yet.
    public mutating func remaining() -> [String] {
        defer { position = arguments.count }
        return Array(arguments[position...])
    }

    /// Two arguments, `lat lon` in decimal degrees.
    public mutating func coordinate() throws(CommandSyntaxError) -> Coordinate {
        let latText = try text()
        let lonText = try text()
        guard let lat = Double(latText), let lon = Double(lonText) else {
            throw usage("invalid coordinate '\(latText.prefix(40)) \(lonText.prefix(40))': expected lat lon in decimal degrees, for example 60.1699 24.9384")
        }
        do { return try Coordinate.check(latitude: lat, longitude: lon) } catch {
            throw CommandSyntaxError("invalid coordinate: \(error)")
        }
    }

    /// A distance in metres, checked as the CLI checks `--radius`.
    public mutating func metres(named name: String = "RADIUS") throws(CommandSyntaxError) -> Double {
        let raw = try text()
        do { return try InputRange.metres(parsing: raw, named: name) } catch { throw usage(error.message) }
    }

    /// A result count, checked as the CLI checks `--limit` (1…1000).
    public mutating func limit() throws(CommandSyntaxError) -> Int {
        let raw = try text()
        do { return try InputRange.limit(parsing: raw, named: "LIMIT") } catch { throw usage(error.message) }
    }

    /// The next argument through a parser of the application's own (a field list, a rating), whose
    /// input error becomes this command's syntax error.
    public mutating func value<Value>(_ parse: (String) throws(InputError) -> Value) throws(CommandSyntaxError) -> Value {
        let raw = try text()
        do { return try parse(raw) } catch { throw usage(error.message) }
    }

    /// Fails when arguments are left over.
    public func end() throws(CommandSyntaxError) {
        if position < arguments.count { throw usage("unexpected '\(arguments[position].prefix(40))'") }
    }

    /// An option keyword the command does not take.
    public func unexpected(_ keyword: String) -> CommandSyntaxError {
        usage("syntax error at '\(keyword.prefix(40))'")
    }

    /// `problem`, then the usage line.
    public func usage(_ problem: String) -> CommandSyntaxError {
        CommandSyntaxError("\(problem); usage: \(syntax)")
    }
}
