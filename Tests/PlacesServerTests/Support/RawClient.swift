import Foundation
import LoopbackSocket
import RESP
import Testing
@testable import PlacesServer

/// A blocking loopback socket: for sending exact bytes (pipelines, garbage, HTTP) and reading raw
/// replies. Every read has a timeout so a broken server fails the test instead of hanging it.
final class RawClient: @unchecked Sendable {
    private let socket: LoopbackSocket
    private var received: [UInt8] = []

    init(port: Int) throws {
        socket = try LoopbackSocket(port: port)
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws { try socket.send(bytes) }

    /// Shuts down the sending side (a FIN), as `nc -N` does at the end of its input; replies can still be read.
    func shutdownWrite() { socket.shutdownWrite() }

    /// Reads more bytes; `false` at end of stream or timeout.
    private func fill() -> Bool {
        guard case .bytes(let bytes) = socket.receive() else { return false }
        received.append(contentsOf: bytes)
        return true
    }

    /// The next `count` replies, parsed. Blocking reads run on their own thread (see ``offPool(_:)``).
    func replies(_ count: Int) async throws -> [RESPValue] {
        try await offPool { try self.blockingReplies(count) }
    }

    func reply() async throws -> RESPValue { try await replies(1)[0] }

    /// Everything until the server closes (or the timeout passes: then `closed` is false).
    func readToEnd() async -> (text: String, closed: Bool) {
        (try? await offPool { self.blockingReadToEnd() }) ?? ("", false)
    }

    private func blockingReplies(_ count: Int) throws -> [RESPValue] {
        var values: [RESPValue] = []
        var index = 0
        defer { received.removeFirst(index) }
        while values.count < count {
            var next = index
            if let value = ReplyReader.parse(received, &next) {
                values.append(value)
                index = next
            } else {
                received.removeFirst(index)
                index = 0
                guard fill() else {
                    throw InputError("connection ended or timed out after \(values.count) of \(count) replies")
                }
            }
        }
        return values
    }

    private func blockingReadToEnd() -> (text: String, closed: Bool) {
        while true {
            switch socket.receive() {
            case .bytes(let bytes): received.append(contentsOf: bytes)
            case .endOfStream, .reset: return (String(decoding: received, as: UTF8.self), true)
            case .timedOut: return (String(decoding: received, as: UTF8.self), false)
            }
        }
    }
}

/// A minimal RESP2 reply reader for tests; `nil` when the bytes end mid-reply.
enum ReplyReader {
    static func parse(_ bytes: [UInt8], _ index: inout Int) -> RESPValue? {
        guard index < bytes.count else { return nil }
        let kind = bytes[index]
        guard let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\n")), lineEnd > index else { return nil }
        let line = String(decoding: bytes[(index + 1)..<(lineEnd - 1)], as: UTF8.self)
        let start = index
        index = lineEnd + 1
        switch kind {
        case UInt8(ascii: "+"): return .simpleString(line)
        case UInt8(ascii: "-"): return .error(line)
        case UInt8(ascii: ":"): return .integer(Int(line) ?? 0)
        case UInt8(ascii: "$"):
            let length = Int(line) ?? -1
            if length < 0 { return .null }
            guard bytes.count >= index + length + 2 else { index = start; return nil }
            defer { index += length + 2 }
            return .bulk(Data(bytes[index..<(index + length)]))
        case UInt8(ascii: "*"):
            var elements: [RESPValue] = []
            for _ in 0..<max(0, Int(line) ?? 0) {
                guard let element = parse(bytes, &index) else { index = start; return nil }
                elements.append(element)
            }
            return .array(elements)
        default:
            return .error("UNPARSEABLE \(line)")
        }
    }
}

extension RESPValue {
    /// A bulk reply's text, for readable expectations.
    var text: String? {
        if case .bulkString(let buffer) = self { return String(buffer: buffer) }
        return nil
    }
}

/// Runs `redis-cli` with arguments. Tests that use it carry ``Testing/Trait/requiresRedisCLI``.
enum RedisCLI {
    static let path = ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli", "/opt/homebrew/bin/redis-cli"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// CI installs redis-cli (`.ci/run`), so there a missing one is a failure, never a skip.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static func run(port: Int, _ arguments: [String], stdin: String? = nil) async throws -> String {
        try await offPool { try blockingRun(port: port, arguments, stdin: stdin) }
    }

    private static func blockingRun(port: Int, _ arguments: [String], stdin: String?) throws -> String {
        guard let path else { throw InputError("redis-cli is not installed, and CI=true requires it (apt-get install redis-tools)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-h", "127.0.0.1", "-p", String(port)] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let input = Pipe()
        process.standardInput = input
        try ProcessLaunch.run(process)
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

extension Trait where Self == ConditionTrait {
    /// A test that drives `redis-cli`: where it is not installed the test is skipped, by name, with the
    /// reason in the test report; under `CI=true` it runs anyway and fails on the missing tool.
    static var requiresRedisCLI: Self {
        .enabled(if: RedisCLI.path != nil || RedisCLI.isCI, "redis-cli is not installed (apt-get install redis-tools)")
    }
}
