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
        #expect(machine.received(RESPRequest(["COMMAND", "DOCS"])) == .reply(.array([])))
        #expect(machine.received(RESPRequest(["CONFIG", "GET", "save"])) == .reply(.array([])))
        #expect(machine.received(RESPRequest(["CLIENT", "SETINFO", "lib-name", "redis-py"])) == .reply(.ok))
        guard case .reply(.error(let hello)) = machine.received(RESPRequest(["HELLO", "3"])) else {
            Issue.record("HELLO must be refused so RESP3 clients fall back")
            return
        }
        #expect(hello.hasPrefix("NOPROTO"))
        #expect(machine.received(RESPRequest(["PING", "hi"])) == .reply(.bulk("hi")))
    }

    @Test func backendCommandsBecomeCalls() {
        var machine = ConnectionStateMachine(password: nil)
        #expect(machine.received(RESPRequest(["BUDGET"])) == .execute(.budget))
        #expect(machine.received(RESPRequest(["INFO", "Clients"])) == .report(sections: ["clients"], json: false))
        #expect(machine.received(RESPRequest(["STATS"])) == .report(sections: [], json: true))
    }
}
