import Foundation
import LoopbackSocket
import Testing

/// redis-py's default `pipeline()` (a MULTI … EXEC transaction) against the real `places serve`, as a script
/// would use it. The script is `redis_py_transaction.py` beside this file; `.ci/run` installs python3-redis, and a
/// machine without it fails this test with the reason (never a silent skip).
@Suite("places serve transactions", .serialized)
struct ServerTransactionCLITests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("redis_py_transaction.py")

    @Test func redisPyPipelineRunsAsOneTransactionAndAnAbortedOneRunsNothing() async throws {
        let cli = try await offPool { try CLIHarness.fresh() }
        // The index is built first: a first-run build inside the server can outlast the wait for "listening".
        #expect(try await offPool { try cli.run("reverse", "60.17,24.94") }.status == 0)
        let server = try await offPool { try RunningServer.start(cli) }
        defer { server.kill() }
        let (status, output, errors) = try await offPool { try Self.python([Self.script.path, String(server.port)]) }
        guard status == 0 else {
            Issue.record("redis_py_transaction.py exited \(status): \(errors)")
            return
        }
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let replies = try #require(result["replies"] as? [Any])
        #expect(replies.count == 3, "one reply per queued command, in one EXEC array")

        // The reference: the CLI's own output for the same requests.
        let searched = try await offPool { try cli.run("search", "maya bar", "--near", "60.1721,24.9450", "--json") }
        #expect(replies.count > 1 && (replies[1] as? String).map { $0 + "\n" } == searched.stdoutText)
        let added = try #require(replies.first as? String)
        #expect(added.contains("\"name\":\"Pipeline Sauna\""))
        let listed = try await offPool { try cli.run("spots", "list", "--json") }
        #expect(listed.stdoutText.contains("Pipeline Sauna"), "the queued SPOT.ADD ran")
        #expect(replies.last as? Bool == true, "redis-py reads PING's +PONG as True")

        // A command refused while queuing: EXEC answers EXECABORT, which redis-py raises as the queuing error.
        let aborted = try #require(result["aborted"] as? String)
        #expect(aborted.hasPrefix("ResponseError"))
        #expect(aborted.contains("NEARBY") || aborted.contains("lat"), "the error says what was wrong: \(aborted)")
        #expect(result["after"] as? Bool == true, "the connection is usable after the aborted transaction")
        #expect(try await offPool { try server.stop(signal: SIGTERM) } == 0)
    }

    static func python(_ arguments: [String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
