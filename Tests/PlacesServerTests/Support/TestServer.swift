import Foundation
import Logging
import NIOCore
import RESP
import ServiceLifecycle
@testable import PlacesServer

/// A server on an ephemeral loopback port, run in a `ServiceGroup` as `places serve` runs it.
final class TestServer: Sendable {
    let port: Int
    let server: PlacesServer
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// - Parameter logger: where the server logs; by default only critical lines, to stderr.
    static func start(_ configuration: ServerConfiguration = ServerConfiguration(),
                      commands: CommandTable = FakeApplication().commands, memo: ReplyMemo = ReplyMemo(),
                      logger: Logger? = nil) async throws -> TestServer {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let logger = logger ?? {
            var logger = Logger(label: "places.serve.test")
            logger.logLevel = .critical
            return logger
        }()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = PlacesServer(configuration: configuration, commands: commands, logger: logger, memo: memo) { address in
            continuation.yield(address.port ?? 0)
            continuation.finish()
        }
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [], logger: logger)
        let task = Task { try await group.run() }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw InputError("the test server did not report a port")
        }
        return TestServer(port: port, server: server, group: group, task: task)
    }

    private init(port: Int, server: PlacesServer, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.server = server
        self.group = group
        self.task = task
    }

    /// What SIGTERM does in `places serve`; returns when the server has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
