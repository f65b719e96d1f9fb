import Foundation
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

    func run(arguments: [String], environment extra: [String: String] = [:], stdin: Data? = nil) throws -> Result {
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
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
