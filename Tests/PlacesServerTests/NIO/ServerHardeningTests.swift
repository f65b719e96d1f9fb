import Foundation
import NIOCore
import RESP
import Testing
@testable import PlacesServer

/// Half-closed clients and memory bounds, over a real socket (issue 16). Where the behaviour does not
/// depend on a backend call, the requests are ones the event loop answers itself (PING, ECHO, an unknown
/// command), so a test machine whose Swift-concurrency threads are all busy with other suites cannot
/// delay them; the half-close tests need calls in flight and allow two minutes per read.
@Suite struct ServerHardeningTests {
    /// `printf 'SEARCH kiasma\r\n…' | nc -N host port`: every complete request sent before the FIN is
    /// answered, in order, then the server closes; a partial request at the end is dropped.
    @Test func aHalfClosedClientGetsEveryReplyThenTheServerCloses() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("SEARCH maya\r\nSEARCH slow:200\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nSEARCH unfinish")
        client.shutdownWrite()
        let (text, closed) = await client.readToEnd()
        #expect(closed, "the server closes once everything is answered")
        let replies = parseReplies(text)
        #expect(replies.count == 4, "\(text)")
        #expect(replies.first?.text?.contains("Maya Bar") == true)
        #expect(replies.dropFirst().first == .bulk("[]"))
        #expect(replies.dropFirst(2).first == .simpleString("PONG"))
        #expect(replies.last == .bulk("hi"))
        try await server.stop()
    }

    /// More requests than the server takes at once from one client: it pauses, and after the FIN it
    /// still works through the rest of what was received.
    @Test func aHalfClosedClientsLongPipelineIsAnsweredToTheEnd() async throws {
        let server = try await TestServer.start(ServerConfiguration(maxPipelinedRequests: 4))
        let client = try RawClient(port: server.port)
        let count = 60
        try client.send((0..<count).map { "SEARCH slow:\($0 % 3)\r\n" }.joined() + "PING\r\n")
        client.shutdownWrite()
        let (text, closed) = await client.readToEnd()
        let replies = parseReplies(text)
        #expect(replies.count == count + 1)
        #expect(replies.dropLast().allSatisfy { $0 == .bulk("[]") })
        #expect(replies.last == .simpleString("PONG"))
        #expect(closed)
        try await server.stop()
    }

    /// A flood of clients over `--max-clients`: each is told and closed, and the log gets one warning, not one each.
    @Test func aFloodOfClientsOverTheLimitMakesOneWarningNotOneEach() async throws {
        let started = Date()
        let log = LogCapture()
        let server = try await TestServer.start(ServerConfiguration(maxClients: 1), logger: log.logger())
        let first = try RawClient(port: server.port)
        try first.send("PING\r\n")
        #expect(try await first.reply() == .simpleString("PONG"))
        for _ in 0..<100 {
            let (text, closed) = try await RawClient(port: server.port).readToEnd()
            #expect(text == "-ERR max number of clients reached\r\n" && closed)
        }
        let warnings = log.messages(at: .warning)
        let minutes = Int(Date().timeIntervalSince(started) / 60)
        #expect((1...(1 + minutes)).contains(warnings.count), "at most one warning a minute: \(warnings)")
        #expect(warnings.first == "refused a client: max number of clients reached (refusals are logged at most once a minute)")
        #expect(server.server.metrics.snapshot.rejectedConnections == 100)
        try first.send("PING\r\n")
        #expect(try await first.reply() == .simpleString("PONG"))
        try await server.stop()
    }

    /// One argument over 64 KiB (outside PING/ECHO) is refused with an error and the connection
    /// closed; the server goes on serving everyone else.
    @Test func anArgumentOverTheLimitIsRefusedAndOthersAreStillServed() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("*2\r\n$6\r\nSEARCH\r\n$65537\r\n")
        let (text, closed) = await client.readToEnd()
        #expect(text == "-ERR Protocol error: invalid bulk length\r\n" && closed)
        let other = try RawClient(port: server.port)
        try other.send("*2\r\n$6\r\nNOSUCH\r\n$65536\r\n" + String(repeating: "m", count: 65536) + "\r\nPING\r\n")
        let replies = try await other.replies(2)
        guard case .error(let unknown) = replies[0] else { Issue.record("expected an error reply, got \(replies[0])"); return }
        #expect(unknown.hasPrefix("ERR unknown command 'NOSUCH'"), "exactly 64 KiB is read as an argument")
        #expect(replies[1] == .simpleString("PONG"), "and the connection goes on")
        try await server.stop()
    }

    /// The per-client query buffer: arguments adding up past the limit are refused when declared.
    @Test func aRequestOverTheQueryBufferLimitIsRefusedAndOthersAreStillServed() async throws {
        let server = try await TestServer.start(ServerConfiguration(limits: RESPLimits(maxRequestLength: 100_000)))
        let client = try RawClient(port: server.port)
        try client.send("*4\r\n$8\r\nSPOT.ADD\r\n$60000\r\n" + String(repeating: "n", count: 60000) + "\r\n$60000\r\n")
        let (text, closed) = await client.readToEnd()
        #expect(text == "-ERR Protocol error: request too large: its arguments exceed the query buffer limit of 100000 bytes\r\n")
        #expect(closed)
        let other = try RawClient(port: server.port)
        try other.send("PING\r\n")
        #expect(try await other.reply() == .simpleString("PONG"))
        try await server.stop()
    }

    /// Many clients each within their own limit: the server-wide allowance for requests in flight
    /// refuses the one that would pass it, serves the others, and is free again once they are answered.
    @Test func theServerWideAllowanceForRequestsInFlightRefusesWithAnError() async throws {
        let configuration = ServerConfiguration(limits: RESPLimits(maxRequestLength: 60_000), maxRequestBytesInFlight: 100_000)
        let server = try await TestServer.start(configuration)
        let metrics = server.server.metrics
        let header = "*2\r\n$4\r\nECHO\r\n$50000\r\n"
        let body = String(repeating: "q", count: 50_000) + "\r\n"
        let echoed = RESPValue.bulk(String(repeating: "q", count: 50_000))

        let first = try RawClient(port: server.port)
        try first.send(header + "qqq")  // arriving slowly: 50,004 bytes declared and held
        try await waitUntil("the first request holds its bytes") { metrics.snapshot.requestBytesInFlight == 50_004 }

        let second = try RawClient(port: server.port)
        try second.send(header)
        let (refusal, closed) = await second.readToEnd()
        #expect(refusal == "-ERR max memory for requests in flight reached (100000 bytes); retry later\r\n")
        #expect(closed)
        #expect(metrics.snapshot.requestsRefusedForMemory == 1)

        let small = try RawClient(port: server.port)
        try small.send("PING\r\n")
        #expect(try await small.reply() == .simpleString("PONG"), "small requests are still served")

        try first.send(String(body.dropFirst(3)))
        #expect(try await first.reply() == echoed)
        try await waitUntil("the answered request gives its bytes back") { metrics.snapshot.requestBytesInFlight == 0 }

        let third = try RawClient(port: server.port)
        try third.send(header)
        try await waitUntil("the next large request holds its bytes") { metrics.snapshot.requestBytesInFlight == 50_004 }
        try third.send(body)
        #expect(try await third.reply() == echoed, "the allowance is free again")
        try await server.stop()
    }
}

/// Every complete reply in `text`.
private func parseReplies(_ text: String) -> [RESPValue] {
    let bytes = Array(text.utf8)
    var index = 0
    var replies: [RESPValue] = []
    while let reply = ReplyReader.parse(bytes, &index) { replies.append(reply) }
    return replies
}
