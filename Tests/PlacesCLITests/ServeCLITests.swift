import Foundation
import LoopbackSocket
import Testing

/// `places serve` as a user runs it: the built binary on an ephemeral port, driven by the real
/// `redis-cli` (installed by `.ci/run`), stopped by a signal. The long waits (an index build, a server's
/// replies, its exit) run ``offPool(_:)``, so they never hold one of the few Swift-concurrency threads that
/// in-process servers in other suites need for their replies.
@Suite("places serve", .serialized)
struct ServeCLITests {
    static let redisCLI = ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli", "/opt/homebrew/bin/redis-cli"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func repliesMatchTheCLIAndSIGTERMStopsWithExitZero() async throws {
        let cli = try await offPool { CLIHarness.shared }
        let server = try await offPool { try RunningServer.start(cli) }
        defer { server.kill() }
        let printed = try await offPool { try cli.run("search", "maya bar", "--near", "60.1721,24.9450", "--json") }
        #expect(printed.status == 0)
        if let redisCLI = Self.redisCLI {
            let port = String(server.port)
            let replied = try await offPool { try Self.run(redisCLI, ["-p", port, "SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"]) }
            #expect(replied == printed.stdoutText, "redis-cli prints the bulk reply followed by a newline, as the CLI does")
            // The lookup pipeline and the matcher are wired into the binary, not only the index.
            let score = try await offPool { try Self.run(redisCLI, ["-p", port, "SCORE", "Maya Bar & Grill", "Maya Bar and Grill"]) }
            #expect(score.contains("\"verdict\""))
            #expect(try await offPool { try Self.run(redisCLI, ["-p", port, "DETAILS", "osm:node/1"]) } == "\n", "a miss is a null bulk")
        } else {
            Issue.record("redis-cli is not installed (apt-get install redis-tools); .ci/run installs it")
        }
        let status = try await offPool { try server.stop(signal: SIGTERM) }
        #expect(status == 0)
        #expect(server.stderr.contains("shutting down"))
    }

    @Test func SIGINTStopsItToo() throws {
        let server = try RunningServer.start(CLIHarness.shared)
        defer { server.kill() }
        #expect(try server.stop(signal: SIGINT) == 0)
    }

    @Test func aPasswordFromTheEnvironmentIsRequiredAndNeverLogged() throws {
        let password = "correct horse battery staple"
        let server = try RunningServer.start(CLIHarness.shared, arguments: ["--requirepass-env", "PLACES_TEST_PASSWORD"],
                                             environment: ["PLACES_TEST_PASSWORD": password])
        defer { server.kill() }
        if let redisCLI = Self.redisCLI {
            let port = String(server.port)
            #expect(try Self.run(redisCLI, ["-p", port, "PING"]).hasPrefix("NOAUTH"))
            #expect(try Self.run(redisCLI, ["-p", port, "--no-auth-warning", "-a", password, "PING"]) == "PONG\n")
            let info = try Self.run(redisCLI, ["-p", port, "--no-auth-warning", "-a", password, "INFO"])
            #expect(info.contains("requirepass:yes"))
            #expect(!info.contains(password))
        }
        #expect(try server.stop(signal: SIGTERM) == 0)
        #expect(!server.stderr.contains(password))
    }

    @Test(arguments: [
        (["--port", "70000"], "invalid --port 70000"),
        (["--event-loops", "0"], "invalid --event-loops 0"),
        (["--memo-ttl=-1"], "invalid --memo-ttl -1"),
        (["--requirepass-env", "PLACES_TEST_UNSET_VARIABLE"], "PLACES_TEST_UNSET_VARIABLE is not set"),
    ])
    func badOptionsAreOneLineErrors(arguments: [String], message: String) throws {
        let result = try CLIHarness.shared.run(arguments: ["serve"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aTakenPortSaysSo() throws {
        let first = try RunningServer.start(CLIHarness.shared)
        defer { first.kill() }
        let second = try CLIHarness.shared.run("serve", "--port", String(first.port))
        #expect(second.status == 2)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(first.port)") && second.stderr.contains("try --port"), "\(second.stderr)")
        #expect(try first.stop(signal: SIGTERM) == 0)
    }

    /// `printf 'SEARCH kiasma\r\nSPOT.ADD …' | nc -N 127.0.0.1 P`: a client that sends everything and
    /// then shuts down its write side gets every reply, and every write is saved.
    @Test func aHalfClosedClientGetsEveryReplyAndAllFortySpotsAreSaved() async throws {
        let cli = try CLIHarness.fresh()
        // The index is built first: a first-run build inside the server can outlast the wait for "listening" on a busy machine.
        #expect(try await offPool { try cli.run("reverse", "60.17,24.94") }.status == 0)
        let server = try await offPool { try RunningServer.start(cli) }
        defer { server.kill() }
        let names = (1...40).map { "Half-closed spot \($0)" }
        let requests = "SEARCH kiasma\r\n" + names.map { "SPOT.ADD \"\($0)\" 60.1717 24.9363\r\n" }.joined()
        let (replies, closed) = try await offPool { try HalfClosingClient.send(requests, port: server.port) }
        #expect(closed, "the server closes after the last reply")
        #expect(replies.count == 41, "one reply per request: \(replies.count)")
        #expect(replies.first?.hasPrefix("[") == true, "SEARCH answers a JSON array")
        let savedNames = replies.dropFirst().compactMap { reply -> String? in
            (try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])?["name"] as? String
        }
        #expect(savedNames == names, "each SPOT.ADD is acknowledged with its spot, in order")
        let listing = try await offPool { try cli.run("spots", "list", "--json") }
        let listed = try #require(try listing.json() as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["name"] as? String }) == Set(names), "all 40 are in the database")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }

    /// Two servers started together on a fresh home: both open the spots, cache and budget stores,
    /// and both save spots (one used to fail with `table spot already exists`).
    @Test func twoServersStartedTogetherOnAFreshHomeBothSaveSpots() async throws {
        let cli = try CLIHarness.fresh()
        #expect(try await offPool { try cli.run("reverse", "60.17,24.94") }.status == 0, "the index is built first; the stores stay fresh")
        let servers = try await offPool { try RunningServer.startTogether(2, cli) }
        defer { servers.forEach { $0.kill() } }
        for (number, server) in servers.enumerated() {
            let (replies, _) = try await offPool {
                try HalfClosingClient.send("SPOT.ADD \"Together \(number)\" 60.17 24.94\r\nBUDGET\r\n", port: server.port)
            }
            #expect(replies.count == 2)
            #expect(replies.first?.contains("\"Together \(number)\"") == true, "\(replies)")
            #expect(replies.last?.hasPrefix("-") == false, "\(replies)")
        }
        let listing = try await offPool { try cli.run("spots", "list", "--json") }
        let listed = try #require(try listing.json() as? [[String: Any]])
        #expect(listed.count == 2)
        for server in servers {
            #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
            #expect(!server.stderr.contains("cannot run"), "\(server.stderr)")
        }
    }

    /// A store that cannot open leaves the server running, and its commands say what failed instead
    /// of claiming they are not part of the build.
    @Test func aSpotsDatabaseThatCannotOpenIsNamedInTheReply() async throws {
        let cli = try CLIHarness.fresh()
        #expect(try await offPool { try cli.run("reverse", "60.17,24.94") }.status == 0)
        let spots = cli.home.appendingPathComponent("spots.sqlite")
        try FileManager.default.createDirectory(at: spots, withIntermediateDirectories: true)  // a directory in its place
        let server = try await offPool { try RunningServer.start(cli) }
        defer { server.kill() }
        let (replies, _) = try await offPool {
            try HalfClosingClient.send("SPOT.ADD Kiasma 60.1717 24.9363\r\nSPOT.LIST\r\nPING\r\n", port: server.port)
        }
        #expect(replies.count == 3)
        for reply in replies.prefix(2) {
            #expect(reply.contains("SPOT.") && reply.contains(" cannot run: cannot use \(spots.path): "), "\(reply)")
            #expect(!reply.contains("not available in this build"))
        }
        #expect(replies.last == "+PONG")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
        #expect(server.stderr.contains("the SPOT.* commands cannot run: cannot use \(spots.path): "), "\(server.stderr)")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-h", "127.0.0.1"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A `places serve --port 0` child process; the port comes from its "listening" log line.
final class RunningServer: Sendable {
    let port: Int
    private let process: Process
    private let stderrURL: URL

    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    private init(port: Int, process: Process, stderrURL: URL) {
        self.port = port
        self.process = process
        self.stderrURL = stderrURL
    }

    static func start(_ cli: CLIHarness, arguments: [String] = [], environment extra: [String: String] = [:]) throws -> RunningServer {
        try waitUntilListening(try launch(cli, arguments: arguments, environment: extra))
    }

    /// Several servers on one state directory, all launched before any is waited for, so they open
    /// their stores at the same moment.
    static func startTogether(_ count: Int, _ cli: CLIHarness) throws -> [RunningServer] {
        let launched = try (0..<count).map { _ in try launch(cli, arguments: [], environment: [:]) }
        return try launched.map(waitUntilListening)
    }

    private static func launch(_ cli: CLIHarness, arguments: [String], environment extra: [String: String]) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = CLIHarness.executable
        process.arguments = ["serve", "--port", "0"] + arguments
        process.environment = cli.environment(extra)
        let stderrURL = cli.home.appendingPathComponent("serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        return (process, stderrURL)
    }

    private static func waitUntilListening(_ launched: (Process, URL)) throws -> RunningServer {
        let (process, stderrURL) = launched
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && process.isRunning {
            let log = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            // `address=[IPv4]127.0.0.1/127.0.0.1:37113 auth=off … places serve listening`
            if let line = log.split(separator: "\n").first(where: { $0.contains("places serve listening") }),
               let field = line.split(separator: " ").first(where: { $0.hasPrefix("address=") }),
               let port = field.split(separator: ":").last.flatMap({ Int($0) }) {
                return RunningServer(port: port, process: process, stderrURL: stderrURL)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw ServeFailure(log: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "")
    }

    /// Sends `signal` and waits (at most 30 s) for the exit status.
    func stop(signal: Int32) throws -> Int32 {
        Foundation.kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else { throw ServeFailure(log: "still running 30 s after signal \(signal)\n" + stderr) }
        return process.terminationStatus
    }

    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// The TCP ports this process listens on, from Linux's socket tables (its open sockets' inodes in
    /// `/proc/net/tcp{,6}` in state LISTEN); empty where there is no /proc.
    var listeningPorts: [Int] {
        let fdDirectory = "/proc/\(process.processIdentifier)/fd"
        let inodes = Set(((try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []).compactMap { fd -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fdDirectory + "/" + fd),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
        var ports: [Int] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: /proc files report a size of 0, so a read by size gets nothing.
            let text = FileHandle(forReadingAtPath: table).map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; 0A is LISTEN.
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                      let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
                ports.append(port)
            }
        }
        return ports
    }
}

struct ServeFailure: Error, CustomStringConvertible {
    let log: String
    var description: String { "places serve did not start or stop as expected:\n\(log)" }
}
