import Foundation
import NIOCore
import RESP
import Testing
@testable import PlacesServer

/// MULTI / EXEC / DISCARD over a real socket, pipelined as redis-py's `pipeline()` sends them (all in one write).
@Suite struct ServerTransactionTests {
    @Test func aPipelinedTransactionIsQueuedThenAnsweredAsOneArray() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("MULTI\r\nSEARCH \"maya bar\"\r\nPING\r\nDETAILS geonames:658225\r\nEXEC\r\nPING after\r\n")
        let replies = try await client.replies(6)
        #expect(Array(replies[0...3]) == [.simpleString("OK"), .simpleString("QUEUED"), .simpleString("QUEUED"), .simpleString("QUEUED")])
        #expect(replies[4] == .array([
            .bulk(Data(("[" + FakeApplication.places["osm:node/2486473580"]! + "]").utf8)),
            .simpleString("PONG"),
            .bulk(Data(FakeApplication.places["geonames:658225"]!.utf8)),
        ]))
        #expect(replies[5] == .bulk("after"), "after EXEC the connection answers at once again")
        try await server.stop()
    }

    @Test func discardAndTheErrorsAnswerAsRedisDoes() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("MULTI\r\nPING\r\nDISCARD\r\nEXEC\r\nDISCARD\r\nMULTI\r\nMULTI\r\nNOSUCH x\r\nEXEC\r\nPING\r\n")
        let replies = try await client.replies(10)
        #expect(Array(replies[0...4]) == [
            .simpleString("OK"), .simpleString("QUEUED"), .simpleString("OK"),
            .error("ERR EXEC without MULTI"), .error("ERR DISCARD without MULTI"),
        ])
        #expect(Array(replies[5...6]) == [.simpleString("OK"), .error("ERR MULTI calls can not be nested")])
        guard case .error(let unknown) = replies[7] else { Issue.record("an unknown command while queuing is an error"); return }
        #expect(unknown.hasPrefix("ERR unknown command 'NOSUCH'"))
        #expect(replies[8] == .error("EXECABORT Transaction discarded because of previous errors."))
        #expect(replies[9] == .simpleString("PONG"))
        try await server.stop()
    }

    /// redis-cli answers `HELP` itself, so the server's own list is also under `PLACES.HELP`.
    @Test func placesHelpListsTheCommands() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("PLACES.HELP\r\n")
        guard case .array(let lines) = try await client.reply() else { Issue.record("PLACES.HELP is not an array"); return }
        #expect(lines.contains(.simpleString("MULTI  —  start a transaction: later commands answer +QUEUED until EXEC or DISCARD")))
        #expect(lines.contains { if case .simpleString(let line) = $0 { line.hasPrefix("PLACES.HELP") } else { false } })
        try await server.stop()
    }
}
