import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import LoopbackSocket
#endif

/// Numbers no program should trap on, typed where users type them (issue 16 item 1) and coordinates
/// south or west of Greenwich typed after an option (issue 12 item 8), through the real binary.
@Suite struct OutOfRangeNumbersCLITests {
    let cli = CLIHarness.shared

    /// `1e19` and `99999999999999999999` are valid Doubles far beyond `Int`: they used to crash the binary
    /// (`Double value cannot be converted to Int`, signal 4/5) while printing the error message.
    @Test(arguments: [
        ["reverse", "1e19,0"], ["search", "cafe", "--near", "1e19,0"], ["nearby", "--at", "99999999999999999999,24.94"],
        ["suggest", "kaf", "--near", "0,-1e19"], ["search", "cafe", "--near", "60.17,24.94", "--radius", "1e300"],
        ["nearby", "--at", "60.17,24.94", "--radius", "inf"], ["spots", "near", "--at", "1e19,1e19"],
        ["spots", "nearest", "--at", "-1e19,0"], ["lookup", "Ateneum", "--near", "1e19,0", "--offline"],
        ["lookup", "Ateneum", "--max-cost", "99999999999999999999", "--offline"], ["budget", "set", "google", "1e30/day"],
        ["serve", "--idle-timeout", "99999999999999"], ["spots", "near", "--at", "60.17,24.94", "--radius", "-1e19"],
        ["spots", "visits", "--day", "2026-02-30"], ["spots", "visits", "--since", "2026-13-99"],
    ])
    func hugeNumbersAreOneLineErrors(arguments: [String]) throws {
        let result = try cli.run(arguments: arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("places: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func theMessageSaysWhichValueAndWhy() throws {
        let result = try cli.run("search", "cafe", "--near", "1e19,0")
        #expect(result.stderr == "places: The value '1e19,0' is invalid for '--near <LAT,LON>': latitude 1e+19 is outside -90…90\n")
    }

    @Test func aBatchRowWithAHugeCoordinateIsRefusedWithItsLineNumber() throws {
        let home = try CLIHarness.fresh()
        let file = home.home.appendingPathComponent("batch.csv")
        try Data("id,name,lat,lon\n1,Kiasma,60.1718,24.9366\n2,Ateneum,1e19,0\n".utf8).write(to: file)
        let result = try home.run("lookup", "--batch", file.path, "--offline")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("places: \(file.path):3: bad coordinate for id '2': latitude 1e+19 is outside -90…90\n"), "\(result.stderr)")
    }

    @Test func matchSkipsAHugeCoordinateWithALineNumber() throws {
        let home = try CLIHarness.fresh()
        let left = home.home.appendingPathComponent("left.csv"), right = home.home.appendingPathComponent("right.csv")
        try Data("id,name,lat,lon\n1,Kiasma,60.1718,24.9366\n2,Ateneum,1e19,0\n".utf8).write(to: left)
        try Data("id,name,lat,lon\na,Kiasma museum,60.1719,24.9367\n".utf8).write(to: right)
        let result = try home.run("match", left.path, right.path, "--skip-bad-lines")
        #expect(result.status < 128, "crashed: \(result.stderr)")
        #expect(result.stderr.contains("latitude 1e+19 is outside -90…90"), "\(result.stderr)")
    }

    @Test func aGeoJSONPointFarOffTheEarthIsSkippedAndAFileOfOnlySuchPointsFails() throws {
        let home = try CLIHarness.fresh()
        let file = home.home.appendingPathComponent("far.geojson")
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Nowhere"},"geometry":{"type":"Point","coordinates":[1e19,1e19]}}]}"#.utf8).write(to: file)
        let result = try home.run("spots", "import", file.path)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("nothing imported"), "\(result.stderr)")
        #expect(result.stderr.contains("is outside"), "\(result.stderr)")
        #expect(try home.run("spots", "list", "--json").stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}

@Suite struct NegativeCoordinateOptionsCLITests {
    let cli = CLIHarness.shared

    /// Sydney's Opera House area: -33.87, 151.21 (hand-checked on a map), in the GeoNames cut as "Sydney", AU.
    @Test func reverseTakesASouthernPoint() throws {
        let result = try cli.run("reverse", "-33.87,151.21", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try result.json() as? [String: Any])
        #expect(answer["country"] as? String == "AU")
    }

    @Test(arguments: [
        ["search", "opera", "--near", "-33.87,151.21", "--json"],
        ["search", "opera", "--near=-33.87,151.21", "--json"],
        ["nearby", "--at", "-33.87,151.21", "--json"],
        ["suggest", "syd", "--near", "-33.87,151.21", "--json"],
        ["search", "lima", "--near", "-12.05,-77.04", "--json"],
    ])
    func optionsTakeAValueBeginningWithAMinus(arguments: [String]) throws {
        let result = try cli.run(arguments: arguments)
        #expect(result.status == 0 || result.stderr.contains("no places"), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
        #expect(!result.stderr.contains("Unknown option"), "\(result.stderr)")
    }

    /// A negative number is a value too, so it reaches the range check instead of "Missing value".
    @Test(arguments: [
        (["search", "x", "--limit", "-5"], "places: The value '-5' is invalid for '--limit <N>': expected 1…1000"),
        (["nearby", "--at", "60.17,24.94", "--radius", "-1"], "places: The value '-1' is invalid for '--radius <M>': expected a positive number of metres"),
        (["serve", "--port", "-1"], "invalid --port -1"),
        (["serve", "--memo-ttl", "-1"], "invalid --memo-ttl -1"),
    ])
    func negativeNumbersReachTheRangeCheck(arguments: [String], message: String) throws {
        let result = try cli.run(arguments: arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aSpotCanBeSavedWestOfGreenwich() throws {
        let home = try CLIHarness.fresh()
        let saved = try home.run("spots", "add", "--at", "-22.9519,-43.2105", "--name", "Cristo Redentor", "--no-address", "--json")
        #expect(saved.status == 0, "\(saved.stderr)")
        let spot = try #require(try saved.json() as? [String: Any])
        #expect(spot["lat"] as? Double == -22.9519)
        #expect(spot["lon"] as? Double == -43.2105)
    }
}

/// The server's arguments, through a real socket to `places serve`: a bad number is an `-ERR` line and the
/// connection (and the server) go on answering.
@Suite("places serve: numbers out of range", .serialized)
struct OutOfRangeNumbersServeTests {
    @Test func hugeNumbersAreErrorRepliesAndTheServerLivesOn() throws {
        let server = try RunningServer.start(CLIHarness.shared)
        defer { server.kill() }
        let connection = try LineSocket(port: server.port)
        for command in ["REVERSE 1e19 0", "SEARCH cafe NEAR 1e19 0", "SPOT.NEAREST 99999999999999999999 24.94",
                        "NEARBY 60.17 24.94 RADIUS 1e300", "SPOT.NEAR 60.17 24.94 RADIUS inf", "SEARCH cafe LIMIT 99999999999999999999"] {
            let reply = try connection.command(command)
            #expect(reply.hasPrefix("-ERR "), "\(command) → \(reply)")
        }
        #expect(try connection.command("REVERSE 1e19 0") == "-ERR invalid coordinate: latitude 1e+19 is outside -90…90")
        #expect(try connection.command("PING") == "+PONG")
        #expect(try server.stop(signal: SIGTERM) == 0)
    }

    @Test func negativeCoordinatesWork() throws {
        let server = try RunningServer.start(CLIHarness.shared)
        defer { server.kill() }
        let connection = try LineSocket(port: server.port)
        let reply = try connection.command("REVERSE -33.87 151.21")
        #expect(reply.hasPrefix("$"), "\(reply)")
        #expect(try server.stop(signal: SIGTERM) == 0)
    }
}

/// Inline commands over a ``LoopbackSocket``: reads one reply line (the socket's read timeout makes a
/// dead server fail the test instead of hanging it). A bulk reply's header line is returned as is.
final class LineSocket {
    private let socket: LoopbackSocket
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        socket = try LoopbackSocket(port: port)
    }

    /// Sends `text` + CRLF and returns the first reply line without its CRLF.
    func command(_ text: String) throws -> String {
        try socket.send(Array((text + "\r\n").utf8))
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self).trimmingCharacters(in: .init(charactersIn: "\r"))
                buffer.removeSubrange(...end)
                if line.hasPrefix("$"), let length = Int(line.dropFirst()), length >= 0 {
                    try skip(length + 2)
                }
                return line
            }
            try fill()
        }
    }

    private func skip(_ count: Int) throws {
        while buffer.count < count { try fill() }
        buffer.removeFirst(count)
    }

    private func fill() throws {
        guard case .bytes(let chunk) = socket.receive() else {
            throw ServeFailure(log: "no reply: the server closed the connection or did not answer in 10 s")
        }
        buffer.append(contentsOf: chunk)
    }
}

/// Issue 16 item 8, through the binary: a state directory places cannot write is one line naming it.
@Suite struct StorageFailureCLITests {
    /// A read-only home where permissions hold; as root (CI containers) chmod stops nothing, so the real
    /// fault used there is a home whose parent is a regular file.
    @Test func anUnwritableHomeIsOneLineNamingIt() throws {
        let scratch = try CLIHarness.fresh()
        let home: URL
        let cause: String
        if geteuid() == 0 {
            let file = scratch.home.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            home = file.appendingPathComponent("places")
            cause = "part of that path is a file, not a directory"
        } else {
            home = scratch.home.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: home.path)
            cause = "permission denied"
        }
        let result = try scratch.run(arguments: ["spots", "add", "--at", "60.17,24.94", "--name", "Here", "--no-address"],
                                     environment: ["PLACES_HOME": home.path])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(home.path) || result.stderr.contains(home.deletingLastPathComponent().path), "\(result.stderr)")
        #expect(result.stderr.contains(cause), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("SQLITE"), "\(result.stderr)")
        let verbose = try scratch.run(arguments: ["spots", "list", "--verbose"], environment: ["PLACES_HOME": home.path])
        #expect(verbose.stderr.contains("places: detail: "), "\(verbose.stderr)")
    }

    @Test func aDatabaseThatCannotBeOpenedSaysWhere() throws {
        let scratch = try CLIHarness.fresh()
        try FileManager.default.createDirectory(at: scratch.home.appendingPathComponent("index.sqlite"), withIntermediateDirectories: true)
        let result = try scratch.run("search", "cafe")
        #expect(result.status == 1)
        #expect(result.stderr == "places: cannot use \(scratch.home.path): the database cannot be opened there; check the directory exists and is writable\n")
    }
}

/// Issue 16 item 8: control characters from a file reach the terminal only as visible escapes.
@Suite struct ControlCharacterCLITests {
    @Test func spotNamesWithEscapeBellAndCarriageReturnAreShownEscaped() throws {
        let home = try CLIHarness.fresh()
        let file = home.home.appendingPathComponent("evil.geojson")
        let name = "Evil\u{1B}[2J\u{07}Cafe\rX"
        let json = try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": [
            ["type": "Feature", "properties": ["name": name], "geometry": ["type": "Point", "coordinates": [24.94, 60.17]]],
        ]])
        try json.write(to: file)
        #expect(try home.run("spots", "import", file.path).status == 0)
        let table = try home.run("spots", "list")
        #expect(table.status == 0)
        for control in ["\u{1B}", "\u{07}", "\r"] { #expect(!table.stdoutText.contains(control)) }
        #expect(table.stdoutText.contains("Evil\\u{1B}[2J\\u{7}Cafe\\u{D}X"), "\(table.stdoutText)")
        // JSON keeps the name exactly (escaped by the encoder).
        let listed = try #require(try home.run("spots", "list", "--json").json() as? [[String: Any]])
        #expect(listed.first?["name"] as? String == name)
        // And an error message that echoes input does not pass them through either.
        let error = try home.run("spots", "show", "no\u{1B}[31msuch")
        #expect(!error.stderr.contains("\u{1B}"), "\(error.stderr)")
    }
}

/// Issue 16 item 8: every command that opens places reads config.toml, so a broken one is reported at once.
@Suite struct BrokenConfigCLITests {
    @Test(arguments: [
        ("[pipline]\nchain = [\"local\"]\n", "unknown section 'pipline' (did you mean 'pipeline'?)"),
        ("[cache]\ngrid_meters = 0\n", "grid_meters must be a number of metres"),
        ("[pipeline\nchain = 1\n", "invalid TOML"),
    ])
    func searchReportsABrokenConfig(toml: String, message: String) throws {
        let home = try CLIHarness.fresh()
        try Data(toml.utf8).write(to: home.home.appendingPathComponent("config.toml"))
        let result = try home.run("search", "cafe")
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
