import NIOCore
import Testing
@testable import RESP

@Suite struct RESPValueTests {
    private func wire(_ value: RESPValue) -> String { String(buffer: value.encoded) }

    @Test func everyReplyKindHasItsWireForm() {
        #expect(wire(.ok) == "+OK\r\n")
        #expect(wire(.error("ERR nope")) == "-ERR nope\r\n")
        #expect(wire(.integer(-42)) == ":-42\r\n")
        #expect(wire(.integer(0)) == ":0\r\n")
        #expect(wire(.integer(Int.max)) == ":9223372036854775807\r\n")
        #expect(wire(.integer(Int.min)) == ":-9223372036854775808\r\n")
        #expect(wire(.bulk(String(repeating: "x", count: 1_958))).hasPrefix("$1958\r\nxx"))
        #expect(wire(.bulk("héllo")) == "$6\r\nhéllo\r\n")
        #expect(wire(.bulk("")) == "$0\r\n\r\n")
        #expect(wire(.null) == "$-1\r\n")
        #expect(wire(.array([])) == "*0\r\n")
        #expect(wire(.array([.integer(1), .bulk("a"), .null])) == "*3\r\n:1\r\n$1\r\na\r\n$-1\r\n")
    }

    @Test func lineBreaksCannotBreakOutOfAnErrorLine() {
        #expect(wire(.error("ERR bad\r\n+OK")) == "-ERR bad  +OK\r\n")
    }
}
