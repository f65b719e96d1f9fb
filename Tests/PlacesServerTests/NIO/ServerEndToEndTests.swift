import Foundation
import RESP
import Testing
@testable import PlacesServer

/// The server on a real loopback socket, driven by `redis-cli` and by raw bytes.
@Suite(.serialized) struct ServerEndToEndTests {
    @Test(.requiresRedisCLI) func redisCLIRunsCommandsAndSeesJSONNullsAndErrors() async throws {
        let server = try await TestServer.start()
        #expect(try await RedisCLI.run(port: server.port, ["PING"]) == "PONG\n")
        #expect(try await RedisCLI.run(port: server.port, ["DETAILS", "geonames:658225"])
            == #"{"id":"geonames:658225","name":"Helsinki","lat":60.16952,"lon":24.93545,"category":"city"}"# + "\n")
        #expect(try await RedisCLI.run(port: server.port, ["--no-raw", "DETAILS", "osm:node/1"]) == "(nil)\n")
        #expect(try await RedisCLI.run(port: server.port, ["SEARCH", "maya bar", "NEAR", "60.1721", "24.9450"]).contains(#""name":"Maya Bar""#))
        #expect(try await RedisCLI.run(port: server.port, ["SEARCH", "x", "RADIUS", "5"]).hasPrefix("ERR RADIUS needs NEAR"))
        // redis-cli answers `help` itself, so HELP goes over a raw socket.
        let client = try RawClient(port: server.port)
        try client.send("HELP\r\n")
        guard case .array(let lines) = try await client.reply() else { Issue.record("HELP is not an array"); return }
        #expect(lines.contains(.simpleString("SEARCH query [NEAR lat lon] [RADIUS m] [LIMIT n] [CATEGORY c]  —  fake search")))
        // Interactive-style session over stdin, as a person would type it.
        let session = try await RedisCLI.run(port: server.port, [], stdin: "PING\nREVERSE 60.17 24.94\n")
        #expect(session.contains("PONG") && session.contains(#""city":"Helsinki""#))
        try await server.stop()
    }

    @Test func aThousandPipelinedMixedCommandsAreAnsweredInOrder() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        var wire = ""
        var expected: [RESPValue] = []
        for i in 0..<1_000 {
            switch i % 5 {
            case 0:
                wire += "PING \(i)\r\n"
                expected.append(.bulk("\(i)"))
            case 1:
                // Slow calls finish after the fast ones behind them; their replies must still come first.
                wire += "*2\r\n$6\r\nSEARCH\r\n$\("slow:\(i % 7)".utf8.count)\r\nslow:\(i % 7)\r\n"
                expected.append(.bulk("[]"))
            case 2:
                wire += "DETAILS geonames:658225\r\n"
                expected.append(.bulk(FakeApplication.places["geonames:658225"]!))
            case 3:
                wire += "DETAILS osm:node/\(i)\r\n"
                expected.append(.null)
            default:
                wire += "ECHO \"n\\x3d\(i)\"\r\n"
                expected.append(.bulk("n=\(i)"))
            }
        }
        try client.send(wire)
        let replies = try await client.replies(1_000)
        #expect(replies == expected)
        try await server.stop()
    }

    /// The same kind of batch through redis-cli's pipe mode, which sends everything at once and counts the replies.
    @Test(.requiresRedisCLI) func redisCLIPipeModeGetsEveryReply() async throws {
        let server = try await TestServer.start()
        let wire = (0..<1_000).map { $0 % 2 == 0 ? "DETAILS osm:node/\($0)\r\n" : "SEARCH slow:\($0 % 3)\r\n" }.joined()
        let summary = try await RedisCLI.run(port: server.port, ["--pipe", "--pipe-timeout", "300"], stdin: wire)
        #expect(summary.contains("errors: 0, replies: 1000"), "\(summary)")
        try await server.stop()
    }

    @Test func authIsRequiredWhenAPasswordIsSet() async throws {
        let server = try await TestServer.start(ServerConfiguration(password: Array("hunter2".utf8)))
        let client = try RawClient(port: server.port)
        try client.send("SEARCH maya\r\nAUTH nope\r\nAUTH hunter2\r\nSEARCH maya\r\n")
        let replies = try await client.replies(4)
        #expect(replies[0] == .error("NOAUTH Authentication required."))
        #expect(replies[1] == .error("WRONGPASS invalid username-password pair or user is disabled."))
        #expect(replies[2] == .ok)
        #expect(replies[3].text?.contains("Maya Bar") == true)
        try await server.stop()
    }

    @Test(.requiresRedisCLI) func redisCLIAuthenticatesWithDashA() async throws {
        let server = try await TestServer.start(ServerConfiguration(password: Array("hunter2".utf8)))
        #expect(try await RedisCLI.run(port: server.port, ["--no-auth-warning", "-a", "hunter2", "PING"]) == "PONG\n")
        #expect(try await RedisCLI.run(port: server.port, ["PING"]).contains("NOAUTH"))
        try await server.stop()
    }

    @Test func beforeAuthOnlySmallRequestsAreRead() async throws {
        let server = try await TestServer.start(ServerConfiguration(password: Array("pw".utf8)))
        let client = try RawClient(port: server.port)
        try client.send("*11\r\n")
        #expect(try await client.reply() == .error("ERR Protocol error: unauthenticated multibulk length"))
        #expect(await client.readToEnd().closed)
        try await server.stop()
    }

    @Test func aTooBigInlineRequestIsRefusedAndClosed() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send(String(repeating: "A", count: 70 * 1024))
        let (text, closed) = await client.readToEnd()
        #expect(text == "-ERR Protocol error: too big inline request\r\n")
        #expect(closed)
        try await server.stop()
    }

    @Test func aBulkArgumentOverOneMebibyteIsRefused() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("*2\r\n$6\r\nSEARCH\r\n$1048577\r\n")
        let (text, closed) = await client.readToEnd()
        #expect(text == "-ERR Protocol error: invalid bulk length\r\n")
        #expect(closed)
        let exact = try RawClient(port: server.port)
        try exact.send("*2\r\n$4\r\nECHO\r\n$1048576\r\n" + String(repeating: "b", count: 1_048_576) + "\r\n")
        #expect(try await exact.reply().text?.count == 1_048_576, "exactly 1 MiB is allowed")
        try await server.stop()
    }

    @Test(.requiresRedisCLI) func redisCLISendingOverOneMebibyteIsRefused() async throws {
        let server = try await TestServer.start()
        // -x: redis-cli sends its standard input as the last argument, here 1 MiB + 1 byte.
        let output = try await RedisCLI.run(port: server.port, ["-x", "SEARCH"], stdin: String(repeating: "a", count: 1_048_577))
        #expect(output.contains("ERR Protocol error: invalid bulk length"), "\(output)")
        try await server.stop()
    }

    @Test func garbageGetsAnErrorThenAClose() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("PING\r\n*1\r\nxyz\r\nPING\r\n")
        let (text, closed) = await client.readToEnd()
        #expect(text == "+PONG\r\n-ERR Protocol error: expected '$', got 'x'\r\n")
        #expect(closed)
        try await server.stop()
    }

    @Test func clientsBeyondTheLimitAreToldAndClosed() async throws {
        let server = try await TestServer.start(ServerConfiguration(maxClients: 2))
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        try first.send("PING\r\n")
        try second.send("PING\r\n")
        #expect(try await first.reply() == .simpleString("PONG"))
        #expect(try await second.reply() == .simpleString("PONG"))
        let third = try RawClient(port: server.port)
        let (text, closed) = await third.readToEnd()
        #expect(text == "-ERR max number of clients reached\r\n")
        #expect(closed)
        try first.send("PING\r\n")
        #expect(try await first.reply() == .simpleString("PONG"))
        try await server.stop()
    }

    @Test func idleConnectionsAreClosed() async throws {
        let server = try await TestServer.start(ServerConfiguration(idleTimeoutSeconds: 1))
        let client = try RawClient(port: server.port)
        try client.send("PING\r\n")
        #expect(try await client.reply() == .simpleString("PONG"))
        let (rest, closed) = await client.readToEnd()  // returns when the server closes the silent connection
        #expect(rest == "" && closed)
        #expect(server.server.metrics.snapshot.idleTimeouts == 1)
        try await server.stop()
    }

    /// What client libraries send before their first real command (redis-py 8 and `redis-cli -3`: HELLO;
    /// redis-py: CLIENT SETINFO; redis-cli: COMMAND DOCS; redis-benchmark: CONFIG GET), then QUIT, over a
    /// real socket. Expected shapes are Redis's documented replies: HELLO's map has 7 pairs (server, version,
    /// proto, id, mode, role, modules), in RESP2 a flat array of 14; QUIT answers +OK and closes.
    @Test func clientStartupCommandsAndQuitOverASocket() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("HELLO 2\r\nCLIENT SETINFO lib-name redis-py\r\nCONFIG GET save\r\nCOMMAND COUNT\r\nCOMMAND DOCS\r\n")
        let replies = try await client.replies(5)
        guard case .array(let hello) = replies[0], hello.count == 14 else { Issue.record("HELLO 2: \(replies[0])"); return }
        #expect(hello[0] == .bulk("server") && hello[1] == .bulk("places") && hello[4] == .bulk("proto") && hello[5] == .integer(2))
        #expect(replies[1] == .simpleString("OK"))
        #expect(replies[2] == .array([]))
        guard case .integer(let count) = replies[3], case .array(let docs) = replies[4] else { Issue.record("COMMAND: \(replies[3...])"); return }
        #expect(docs.count == 2 * count, "a name and its doc map per command")
        #expect(docs.contains(.bulk("search")) && docs.contains(.bulk("details")))
        try client.send("QUIT\r\n")
        let (quit, closed) = await client.readToEnd()
        #expect(quit == "+OK\r\n" && closed)

        // RESP3 after HELLO 3: the same fields as a map frame.
        let resp3 = try RawClient(port: server.port)
        try resp3.send("HELLO 3\r\nQUIT\r\n")
        let (text, ended) = await resp3.readToEnd()
        #expect(text.hasPrefix("%7\r\n$6\r\nserver\r\n$6\r\nplaces\r\n"), "\(text)")
        #expect(text.hasSuffix("+OK\r\n") && ended)
        try await server.stop()
    }

    @Test func httpRequestsAreDroppedWithoutAReply() async throws {
        let server = try await TestServer.start()
        for probe in ["GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", "POST /api HTTP/1.1\r\n", "Host: example.com\r\n"] {
            let client = try RawClient(port: server.port)
            try client.send(probe)
            let (text, closed) = await client.readToEnd()
            #expect(text == "" && closed, "\(probe)")
        }
        #expect(server.server.metrics.snapshot.droppedHTTPRequests == 3)
        try await server.stop()
    }

    @Test func aSlowCallDoesNotHoldUpOtherClients() async throws {
        let backend = FakeApplication()
        let server = try await TestServer.start(commands: backend.commands)
        let slow = try RawClient(port: server.port)
        try slow.send("SEARCH gated\r\n")
        await backend.gate.waitUntilEntered()
        let fast = try RawClient(port: server.port)
        try fast.send("DETAILS geonames:658225\r\n")
        #expect(try await fast.reply().text?.contains("Helsinki") == true)  // answered while the slow call still waits
        backend.gate.open()
        #expect(try await slow.reply() == .bulk("[]"))
        try await server.stop()
    }

    @Test func aClientThatDoesNotReadIsThrottledNotBuffered() async throws {
        let server = try await TestServer.start(ServerConfiguration(writeBufferHighWatermark: 64 * 1024))
        let client = try RawClient(port: server.port)
        let count = 500  // 500 × 64 KiB = 32 MB of replies: far more than the socket buffers hold
        try client.send(String(repeating: "SEARCH big:65536\r\n", count: count))
        try await Task.sleep(for: .milliseconds(500))
        let processedWhileNotReading = server.server.metrics.snapshot.commandsProcessed
        #expect(processedWhileNotReading < count / 2, "the server kept reading a client that was not reading its replies")
        let replies = try await client.replies(count)
        #expect(replies.allSatisfy { $0.text?.utf8.count == 65_538 })
        #expect(server.server.metrics.snapshot.commandsProcessed == count)
        try await server.stop()
    }

    @Test func infoAndStatsShowCountersButNoSecrets() async throws {
        let server = try await TestServer.start(ServerConfiguration(password: Array("topsecret".utf8)))
        let client = try RawClient(port: server.port)
        try client.send("AUTH topsecret\r\nINFO\r\nINFO clients\r\nSTATS\r\n")
        let replies = try await client.replies(4)
        let info = try #require(replies[1].text)
        for heading in ["# Server", "# Clients", "# Stats", "# Cache", "# Budget"] { #expect(info.contains(heading)) }
        #expect(info.contains("connected_clients:1"))
        #expect(info.contains("entries:2"))
        #expect(!info.contains("topsecret"))
        #expect(replies[2].text?.hasPrefix("# Clients") == true)
        let stats = try #require(replies[3].text)
        let object = try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: [String: String]]
        #expect(object?["stats"]?["total_commands_processed"] == "4")
        #expect(!stats.contains("topsecret"))
        try await server.stop()
    }

    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        let backend = FakeApplication()
        let server = try await TestServer.start(commands: backend.commands)
        let client = try RawClient(port: server.port)
        let idle = try RawClient(port: server.port)
        try idle.send("PING\r\n")
        #expect(try await idle.reply() == .simpleString("PONG"))
        try client.send("SEARCH gated\r\nPING\r\n")
        await backend.gate.waitUntilEntered()  // the call is in flight when the shutdown starts
        let stopping = Task { try await server.stop() }
        let idleEnd = await idle.readToEnd()
        #expect(idleEnd.closed && idleEnd.text == "", "an idle connection is closed at once")
        backend.gate.open()
        let (text, closed) = await client.readToEnd()
        #expect(text == "$2\r\n[]\r\n+PONG\r\n")
        #expect(closed)
        try await stopping.value
        #expect(throws: (any Error).self) { _ = try RawClient(port: server.port) }
    }

    @Test func repeatedReadsAreAnsweredFromMemoryAcrossConnections() async throws {
        let server = try await TestServer.start()
        let first = try RawClient(port: server.port)
        try first.send("DETAILS geonames:658225\r\nDETAILS osm:node/9\r\n")
        let replies = try await first.replies(2)
        #expect(replies[0].text?.contains("Helsinki") == true)
        #expect(replies[1] == .null)
        #expect(server.server.metrics.snapshot.backendCalls == 2)
        // Another client, another spelling of the command name: same replies, no backend call.
        let second = try RawClient(port: server.port)
        try second.send("*2\r\n$7\r\ndetails\r\n$15\r\ngeonames:658225\r\nDETAILS osm:node/9\r\n")
        #expect(try await second.replies(2) == replies)
        let counters = server.server.metrics.snapshot
        #expect(counters.answeredFromMemory == 2)
        #expect(counters.backendCalls == 2)
        #expect(counters.misses == 2, "a remembered miss is still a miss")
        try await server.stop()
    }

    /// A memo hit alone in a read is written from the memo's own bytes; with other replies in the same read it is
    /// copied among them: either way the replies come in request order.
    @Test func memoHitsAmongOtherRepliesKeepRequestOrder() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        try client.send("DETAILS osm:node/9\r\n")
        #expect(try await client.reply() == .null)
        let hit = "*2\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/9\r\n"
        try client.send(hit)
        #expect(try await client.reply() == .null)
        try client.send(hit + "PING\r\n" + hit + hit + "ECHO x\r\n")
        #expect(try await client.replies(5) == [.null, .simpleString("PONG"), .null, .null, .bulk("x")])
        #expect(server.server.metrics.snapshot.answeredFromMemory == 4)
        try await server.stop()
    }

    @Test func identicalReadsInFlightOnTwoConnectionsShareOneBackendCall() async throws {
        let backend = FakeApplication()
        let server = try await TestServer.start(commands: backend.commands)
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        try first.send("SEARCH gated\r\n")
        await backend.gate.waitUntilEntered()
        try second.send("search gated\r\n")
        for _ in 0..<500 where server.server.metrics.snapshot.commandsProcessed < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        backend.gate.open()
        #expect(try await first.reply() == .bulk("[]"))
        #expect(try await second.reply() == .bulk("[]"))
        #expect(server.server.metrics.snapshot.backendCalls == 1)
        try await server.stop()
    }

    @Test func identicalLoopReadsReadTogetherShareOneAnswer() async throws {
        let server = try await TestServer.start(memo: ReplyMemo(capacity: 0))
        let client = try RawClient(port: server.port)
        // One write, so one read of the event loop: its DETAILS are answered after it, the identical ones by one call
        // (inline, and in multibulk form with the name in lower case, which joins before it is parsed).
        try client.send("DETAILS geonames:658225\r\nDETAILS osm:node/9\r\ndetails geonames:658225\r\n"
            + "*2\r\n$7\r\ndetails\r\n$15\r\ngeonames:658225\r\n*2\r\n$7\r\nDETAILS\r\n$10\r\nosm:node/9\r\n")
        let replies = try await client.replies(5)
        #expect(replies[0].text?.contains("Helsinki") == true)
        #expect(replies[1] == .null)
        #expect(replies[2] == replies[0])
        #expect(replies[3] == replies[0])
        #expect(replies[4] == .null)
        let counters = server.server.metrics.snapshot
        #expect(counters.backendCalls == 2)
        #expect(counters.commandsProcessed == 5)
        #expect(counters.misses == 1, "counted by the call that found it, as for requests sharing a task")
        try await server.stop()
    }

    @Test func loopReadsAndTasksAnswerInRequestOrder() async throws {
        let server = try await TestServer.start(memo: ReplyMemo(capacity: 0))
        let client = try RawClient(port: server.port)
        // A task's search, then reads the event loop answers itself (one failing): replies in request order.
        try client.send("SEARCH helsinki\r\nDETAILS geonames:0\r\nDETAILS osm:node/2486473580\r\nSEARCH maya\r\n")
        let replies = try await client.replies(4)
        #expect(replies[0].text?.contains("Helsinki") == true)
        #expect(replies[1] == .error("ERR DETAILS failed: the index is being rebuilt"))
        #expect(replies[2].text?.contains("Maya Bar") == true)
        #expect(replies[3].text?.contains("Maya Bar") == true)
        #expect(server.server.metrics.snapshot.errorReplies == 1)
        try await server.stop()
    }

    @Test func withTheMemoOffEveryReadReachesTheBackend() async throws {
        let server = try await TestServer.start(memo: ReplyMemo(capacity: 0))
        let client = try RawClient(port: server.port)
        // One at a time: identical reads in flight together would share one call by design.
        try client.send("DETAILS geonames:658225\r\n")
        let first = try await client.reply()
        try client.send("DETAILS geonames:658225\r\n")
        #expect(try await client.reply() == first)
        #expect(server.server.metrics.snapshot.backendCalls == 2)
        #expect(server.server.metrics.snapshot.answeredFromMemory == 0)
        try await server.stop()
    }

    @Test func writesAndErrorsAreNeverRepeatedFromMemory() async throws {
        let server = try await TestServer.start()
        let client = try RawClient(port: server.port)
        // One at a time: identical reads in flight together would share one call (and its error) by design.
        for request in ["SEARCH explode", "SEARCH explode", "BUDGET", "BUDGET"] {
            try client.send(request + "\r\n")
            _ = try await client.reply()
        }
        #expect(server.server.metrics.snapshot.backendCalls == 4)
        #expect(server.server.metrics.snapshot.answeredFromMemory == 0)
        try await server.stop()
    }

    @Test func memoisedAnswersStillNeedAuthentication() async throws {
        let server = try await TestServer.start(ServerConfiguration(password: Array("pw".utf8)))
        let owner = try RawClient(port: server.port)
        try owner.send("AUTH pw\r\nDETAILS geonames:658225\r\n")
        #expect(try await owner.replies(2)[1].text?.contains("Helsinki") == true)
        let stranger = try RawClient(port: server.port)
        try stranger.send("DETAILS geonames:658225\r\n")
        #expect(try await stranger.reply() == .error("NOAUTH Authentication required."))
        try await server.stop()
    }
}
