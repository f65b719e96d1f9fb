import NIOCore
import PlacesCore
import RESP
import Testing
@testable import PlacesServer

@Suite struct ConnectionStateMachineTests {
    @Test func withAPasswordEverythingButAuthIsRefusedUntilAuthenticated() {
        var machine = ConnectionStateMachine(password: Array("s3cret".utf8))
        #expect(!machine.isAuthenticated)
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.error("NOAUTH Authentication required.")))
        #expect(machine.received(RESPRequest(["NOSUCH"])) == .reply(.error("NOAUTH Authentication required.")))
        #expect(machine.received(RESPRequest(["SEARCH", "x"])) == .reply(.error("NOAUTH Authentication required.")))
        #expect(machine.received(RESPRequest(["AUTH", "wrong"]))
            == .reply(.error("WRONGPASS invalid username-password pair or user is disabled.")))
        #expect(machine.received(RESPRequest(["AUTH", "other", "s3cret"]))
            == .reply(.error("WRONGPASS invalid username-password pair or user is disabled.")))
        #expect(machine.received(RESPRequest(["AUTH", "s3cret"])) == .reply(.ok))
        #expect(machine.isAuthenticated)
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("PONG")))
    }

    @Test func redis6StyleAuthWithTheDefaultUserWorks() {
        var machine = ConnectionStateMachine(password: Array("pw".utf8))
        #expect(machine.received(RESPRequest(["AUTH", "default", "pw"])) == .reply(.ok))
    }

    @Test func authWithoutAConfiguredPasswordIsAnError() {
        var machine = ConnectionStateMachine(password: nil)
        guard case .reply(.error(let message)) = machine.received(RESPRequest(["AUTH", "x"])) else {
            Issue.record("expected an error reply")
            return
        }
        #expect(message.hasPrefix("ERR AUTH <password> called without any password configured"))
    }

    @Test func passwordComparisonIsExact() {
        #expect(ConnectionStateMachine.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ConnectionStateMachine.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ConnectionStateMachine.constantTimeEqual(Array("ab".utf8), Array("abc".utf8)))
        #expect(!ConnectionStateMachine.constantTimeEqual(Array("abc\0".utf8), Array("abc".utf8)))
        #expect(!ConnectionStateMachine.constantTimeEqual([], Array("abc".utf8)))
    }

    @Test func quitRepliesThenClosesAndIgnoresTheRest() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["QUIT"])) == .replyAndClose(.ok))
        #expect(machine.received(RESPRequest(["PING"])) == .ignore)
    }

    @Test func aProtocolErrorRepliesThenCloses() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.protocolError(.tooBigInline) == .replyAndClose(.error("ERR Protocol error: too big inline request")))
        #expect(machine.isClosing)
    }

    @Test func httpRequestsAreDropped() {
        for words in [["GET", "/", "HTTP/1.1"], ["POST", "/api"], ["Host:", "localhost:7878"], ["HEAD", "/", "http/1.0"], ["PUT", "/x", "HTTP/1.1"]] {
            var machine = ConnectionStateMachine(password: "pw".map { _ in 1 })
            guard case .drop = machine.received(RESPRequest(words, isInline: true)) else {
                Issue.record("\(words) was not dropped")
                continue
            }
            #expect(machine.isClosing)
        }
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["GET", "key"])) == .reply(.error("ERR unknown command 'GET', with args beginning with: 'key' (HELP lists the commands)")))
    }

    @Test func clientStartupCommandsGetHarmlessAnswers() {
        var machine = ConnectionStateMachine(password: nil)
        guard case .reply(.array(let docs)) = machine.received(RESPRequest(["COMMAND", "DOCS"])) else {
            Issue.record("COMMAND DOCS must answer an array")
            return
        }
        #expect(docs.count == 2 * CommandTable.parsingOnly.entries.count, "a name and its doc map per command")
        #expect(docs.prefix(2) == [.bulk("search"), .array([
            .bulk("summary"), .bulk("places whose names match the words, as `places search --json`; OPEN NOW keeps only places "
                + "whose hours say open now on their own clock (places without hours are left out)"), .bulk("since"), .bulk("1.0.0"),
            .bulk("group"), .bulk("generic"), .bulk("arguments"),
            .array([.array([.bulk("name"), .bulk("query [NEAR lat lon] [RADIUS m] [LIMIT n] [CATEGORY c] [OPEN NOW | OPEN AT time]"),
                            .bulk("type"), .bulk("string")])]),
        ])])
        #expect(machine.received(RESPRequest(["CONFIG", "GET", "save"])) == .reply(.array([])))
        #expect(machine.received(RESPRequest(["CLIENT", "SETINFO", "lib-name", "redis-py"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["PING", "hi"])) == .reply(.bulk("hi")))
    }

    /// `redis-cli --pipe` ends a batch with ECHO of 20 random bytes and waits for exactly those bytes.
    @Test func echoAndPingReturnTheirBytesUntouchedEvenWhenNotUTF8() {
        var machine = ConnectionStateMachine(password: nil)
        let marker = ByteBuffer(bytes: [0x1E, 0x69, 0xB8, 0xB0, 0xDD, 0xFF, 0x00, 0xC3])
        #expect(machine.received(RESPRequest(arguments: [ByteBuffer(string: "ECHO"), marker])) == .reply(.bulkString(marker)))
        #expect(machine.received(RESPRequest(arguments: [ByteBuffer(string: "PING"), marker])) == .reply(.bulkString(marker)))
    }

    /// redis-py 8 and `redis-cli -3` open with `HELLO 3` and do not fall back when it is refused.
    @Test func helloAnswersTheServerMapForProtocolsTwoAndThree() {
        var machine = ConnectionStateMachine(password: nil)
        guard case .reply(.map(let fields)) = machine.received(RESPRequest(["HELLO", "3"])) else {
            Issue.record("HELLO 3 must answer a RESP3 map")
            return
        }
        #expect(fields.count == 14)
        #expect(fields[0] == .bulk("server") && fields[1] == .bulk("places"))
        #expect(fields[4] == .bulk("proto") && fields[5] == .integer(3))
        #expect(String(buffer: RESPValue.map(fields).encoded).hasPrefix("%7\r\n$6\r\nserver\r\n"))
        guard case .reply(.array(let resp2)) = machine.received(RESPRequest(["HELLO", "2"])) else {
            Issue.record("HELLO 2 must answer a flat array")
            return
        }
        #expect(resp2[5] == .integer(2))
        #expect(machine.protocolVersion == 2)
        #expect(String(buffer: RESPValue.null.encoded) == "$-1\r\n")
        var resp3Null = ByteBuffer()
        RESPValue.array([.null]).encode(into: &resp3Null, resp3: true)
        #expect(String(buffer: resp3Null) == "*1\r\n_\r\n")
        #expect(machine.received(RESPRequest(["HELLO", "4"])) == .reply(.error("NOPROTO unsupported protocol version")))
        #expect(machine.received(RESPRequest(["HELLO", "x"])) == .reply(.error("ERR Protocol version is not an integer or out of range")))
    }

    @Test func helloCanAuthenticate() {
        var machine = ConnectionStateMachine(password: Array("s3cret".utf8))
        guard case .reply(.error(let refused)) = machine.received(RESPRequest(["HELLO", "3"])) else {
            Issue.record("HELLO before auth must be refused")
            return
        }
        #expect(refused.hasPrefix("NOAUTH"))
        guard case .reply(.error(let wrong)) = machine.received(RESPRequest(["HELLO", "3", "AUTH", "default", "nope"])) else {
            Issue.record("a wrong password must be refused")
            return
        }
        #expect(wrong.hasPrefix("WRONGPASS"))
        #expect(!machine.isAuthenticated)
        guard case .reply(.map) = machine.received(RESPRequest(["HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "app"])) else {
            Issue.record("HELLO with the right password must answer the map")
            return
        }
        #expect(machine.isAuthenticated)
    }

    /// A client that sends its requests and then a FIN (`nc -N`) gets every one of them answered.
    @Test func aHalfClosedInputAnswersWhatWasReceivedThenCloses() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(!machine.isInputClosed)
        #expect(machine.inputClosed() == .closeWhenAnswered)
        #expect(machine.isInputClosed)
        #expect(!machine.isClosing, "the requests received before the FIN are still to be answered")
        #expect(machine.received(RESPRequest(["SEARCH", "kiasma"])) == .execute(expectedCall("SEARCH", ServerRequests.Filtered(query: SearchQuery(text: "kiasma")))))
        #expect(machine.received(RESPRequest(["SPOT.ADD", "Kiasma", "60.1717", "24.9363"]))
            == .execute(expectedCall("SPOT.ADD", ServerRequests.NewSpot(name: "Kiasma", coordinate: Coordinate(latitude: 60.1717, longitude: 24.9363)))))
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("PONG")))
        #expect(machine.inputClosed() == .ignore, "a second FIN changes nothing")
    }

    @Test func aHalfClosedInputKeepsTheAuthenticationRules() {
        var machine = ConnectionStateMachine(password: Array("pw".utf8))
        #expect(machine.inputClosed() == .closeWhenAnswered)
        #expect(machine.received(RESPRequest(["SEARCH", "x"])) == .reply(.error("NOAUTH Authentication required.")))
        #expect(machine.received(RESPRequest(["AUTH", "pw"])) == .reply(.ok))
        #expect(machine.received(RESPRequest(["PING"])) == .reply(.simpleString("PONG")))
    }

    @Test func aFINAfterQuitOrAProtocolErrorIsIgnored() {
        var quit = ConnectionStateMachine(password: nil)
        #expect(quit.received(RESPRequest(["QUIT"])) == .replyAndClose(.ok))
        #expect(quit.inputClosed() == .ignore)
        var broken = ConnectionStateMachine(password: nil)
        _ = broken.protocolError(.tooBigInline)
        #expect(broken.inputClosed() == .ignore)
    }

    @Test func aRequestOverTheServerWideMemoryAllowanceIsRefusedThenClosed() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.requestMemoryExhausted(limit: 1024)
            == .replyAndClose(.error("ERR max memory for requests in flight reached (1024 bytes); retry later")))
        #expect(machine.isClosing)
        #expect(machine.received(RESPRequest(["PING"])) == .ignore)
        #expect(machine.requestMemoryExhausted(limit: 1024) == .ignore)
    }

    @Test func backendCommandsBecomeCalls() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["BUDGET"])) == .execute(expectedCall("BUDGET", true)))
        #expect(machine.received(RESPRequest(["INFO", "Clients"])) == .report(sections: ["clients"], json: false))
        #expect(machine.received(RESPRequest(["STATS"])) == .report(sections: [], json: true))
    }
}
