import Foundation
import LoopbackSocket
import ScratchDirectory
import Testing

/// Runs the built `places` executable the way a user does, with its own `$PLACES_HOME`.
struct CLIHarness {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

        func json() throws -> Any { try JSONSerialization.jsonObject(with: stdout) }
    }

    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The data the app bundles, kept in the repository (tests read nothing outside it).
    static let embeddedData = repositoryRoot.appendingPathComponent("Sources/PlacesApp/Resources/EmbeddedData")

    /// `swift test` builds every product next to the test bundle.
    static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
            repositoryRoot.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("places") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// Keeps the state directory on disk while any copy of this harness is alive; it goes with the last.
    private let scratch: ScratchDirectory
    var home: URL { scratch.url }

    /// A fresh, empty state directory, removed when the test is done with it.
    static func fresh() throws -> CLIHarness {
        CLIHarness(scratch: try ScratchDirectory("places-cli"))
    }

    /// One state directory whose index is built once and shared by read-only tests, removed at exit.
    static let shared: CLIHarness = {
        let harness = CLIHarness(scratch: try! ScratchDirectory.lastingTheProcess("places-cli-shared"))
        _ = try! harness.run("reverse", "60.17,24.94")
        return harness
    }()

    /// This process's environment with `$PLACES_HOME` pointing here, plus `extra`.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PLACES_HOME"] = home.path
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    @discardableResult
    func run(_ arguments: String..., environment extra: [String: String] = [:], stdin: Data? = nil) throws -> Result {
        try run(arguments: arguments, environment: extra, stdin: stdin)
    }

    /// The same run for async tests, waited for on a thread of its own: waiting on one of Swift's cooperative threads
    /// (two on a 2-core machine) holds up every other suite's async work for as long as `places` runs, and a loaded
    /// full run starved for minutes that way.
    @discardableResult
    func run(_ arguments: String..., environment extra: [String: String] = [:], stdin: Data? = nil) async throws -> Result {
        try await run(arguments: arguments, environment: extra, stdin: stdin)
    }

    func run(arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) async throws -> Result {
        try await offPool { try self.run(arguments: arguments, environment: extra, stdin: stdin) }
    }

    /// `places ARGS` ran past the harness's limit and was killed: a hang, reported as a failure instead of a test run
    /// that never ends.
    struct DidNotExit: Error, CustomStringConvertible {
        var arguments: [String]
        var limit: Duration
        var description: String { "places \(arguments.joined(separator: " ")) did not exit within \(limit) and was killed" }
    }

    /// Far over what any command takes on a loaded 2-core machine, so only a hang reaches it.
    static let exitLimit: Duration = .seconds(300)

    /// How many `places` runs go at once across the whole test process: one per core. A full `swift test` starts
    /// CLI tests by the dozen, most of them building an index on a fresh home; all at once they left each other and
    /// the in-process servers a fraction of a core for minutes, and timings meant only to catch hangs fired.
    private static let runSlots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount))

    func run(arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) throws -> Result {
        Self.runSlots.wait()
        defer { Self.runSlots.signal() }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment(extra)
        // Output goes to files, not pipes, so a large output can never stall the child.
        let outURL = home.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errURL = home.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try ProcessLaunch.run(process)
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        if exited.wait(timeout: .now() + .seconds(Int(Self.exitLimit.components.seconds))) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw DidNotExit(arguments: arguments, limit: Self.exitLimit)
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs `places ARGS` on a pseudo-terminal made by util-linux's `script`, the way a person at a terminal runs it
    /// (stdout and stderr both the terminal); returns what the terminal showed. Fails, never skips, when `script` is
    /// missing. `NO_COLOR` and `FORCE_COLOR` come only from `extra` (the test runner may set them for itself).
    func runOnATerminal(arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, screen: String) {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "util-linux `script` is needed for a pseudo-terminal")
        let quoted = ([Self.executable.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = script
        process.arguments = ["-qec", quoted.joined(separator: " "), "/dev/null"]
        var environment = self.environment(["TERM": "xterm-256color"])
        environment["NO_COLOR"] = nil
        environment["FORCE_COLOR"] = nil
        process.environment = environment.merging(extra) { $1 }
        let output = home.appendingPathComponent("pty-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }
}
