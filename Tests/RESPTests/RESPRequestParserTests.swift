import NIOCore
import Testing
@testable import RESP

/// Parses everything in `wire` at once, returning the requests as strings.
private func parseAll(_ wire: String, parser: RESPRequestParser = RESPRequestParser()) throws -> [[String]] {
    var parser = parser
    var buffer = ByteBuffer(string: wire)
    var requests: [[String]] = []
    while let request = try parser.next(&buffer) { requests.append(request.strings) }
    return requests
}

private func protocolError(_ wire: String, parser: RESPRequestParser = RESPRequestParser()) -> String? {
    do {
        _ = try parseAll(wire, parser: parser)
        return nil
    } catch {
        return (error as? RESPProtocolError)?.message
    }
}

@Suite struct RESPRequestParserTests {
    @Test func multibulkRequestsAreParsed() throws {
        #expect(try parseAll("*2\r\n$4\r\nPING\r\n$5\r\nhello\r\n") == [["PING", "hello"]])
        #expect(try parseAll("*1\r\n$0\r\n\r\n") == [[""]])
    }

    @Test func multibulkArgumentsMayHoldCRLFAndBinary() throws {
        var parser = RESPRequestParser()
        var buffer = ByteBuffer(bytes: Array("*2\r\n$4\r\nECHO\r\n$4\r\n".utf8) + [0x0D, 0x0A, 0x00, 0xFF] + Array("\r\n".utf8))
        let request = try #require(try parser.next(&buffer))
        #expect(Array(request.arguments[1].readableBytesView) == [0x0D, 0x0A, 0x00, 0xFF])
    }

    @Test func pipelinedRequestsComeOutOneAtATimeInOrder() throws {
        let wire = "*1\r\n$4\r\nPING\r\nPING\r\n*2\r\n$7\r\nDETAILS\r\n$11\r\nosm:node/42\r\nQUIT\n"
        #expect(try parseAll(wire) == [["PING"], ["PING"], ["DETAILS", "osm:node/42"], ["QUIT"]])
    }

    @Test func emptyArraysAndBlankLinesAreSkipped() throws {
        #expect(try parseAll("*0\r\n*-1\r\n\r\n\n   \r\nPING\r\n") == [["PING"]])
    }

    @Test func inlineLinesEndWithLFOrCRLF() throws {
        #expect(try parseAll("SEARCH maya\nDETAILS x\r\n") == [["SEARCH", "maya"], ["DETAILS", "x"]])
    }

    @Test func everySplitPointOfAPipelineYieldsTheSameRequests() throws {
        let wire = "*3\r\n$6\r\nSEARCH\r\n$8\r\nmaya bar\r\n$4\r\nNEAR\r\n"
            + "SEARCH \"caf\\xc3\\xa9 \\\"x\\\"\" 'it\\'s'\r\n*1\r\n$4\r\nPING\r\n"
        let expected = try parseAll(wire)
        #expect(expected == [["SEARCH", "maya bar", "NEAR"], ["SEARCH", "café \"x\"", "it's"], ["PING"]])
        let bytes = Array(wire.utf8)
        for cut in 0...bytes.count {
            for secondCut in stride(from: cut, through: bytes.count, by: 7) {
                var parser = RESPRequestParser()
                var buffer = ByteBuffer()
                var requests: [[String]] = []
                for chunk in [bytes[0..<cut], bytes[cut..<secondCut], bytes[secondCut...]] {
                    buffer.writeBytes(chunk)
                    while let request = try parser.next(&buffer) { requests.append(request.strings) }
                }
                #expect(requests == expected, "split at \(cut) and \(secondCut)")
            }
        }
    }

    @Test func byteByByteDeliveryWorks() throws {
        let wire = Array("*2\r\n$7\r\nDETAILS\r\n$15\r\ngeonames:658225\r\nPING\r\n".utf8)
        var parser = RESPRequestParser()
        var buffer = ByteBuffer()
        var requests: [[String]] = []
        for byte in wire {
            buffer.writeInteger(byte)
            while let request = try parser.next(&buffer) { requests.append(request.strings) }
        }
        #expect(requests == [["DETAILS", "geonames:658225"], ["PING"]])
        #expect(!parser.isMidRequest)
    }

    @Test func aHugeDeclaredCountAllocatesNothingUntilArgumentsArrive() throws {
        var parser = RESPRequestParser(limits: RESPLimits(maxArguments: 1_000_000))
        var buffer = ByteBuffer(string: "*999999\r\n$4\r\nPING\r\n")
        #expect(try parser.next(&buffer) == nil)
        #expect(parser.isMidRequest)
        #expect(buffer.readableBytes == 0)
    }

    @Test func oversizeInputsAreProtocolErrors() {
        let long = String(repeating: "a", count: 64 * 1024 + 1)
        #expect(protocolError(long) == "ERR Protocol error: too big inline request")
        #expect(protocolError(long + "\r\n") == "ERR Protocol error: too big inline request")
        #expect(protocolError("*" + long) == "ERR Protocol error: too big mbulk count string")
        #expect(protocolError("*1\r\n$" + long) == "ERR Protocol error: too big bulk count string")
        #expect(protocolError("*1\r\n$65537\r\n") == "ERR Protocol error: invalid bulk length")
        #expect(protocolError("*2\r\n$4\r\nECHO\r\n$1048577\r\n") == "ERR Protocol error: invalid bulk length")
        #expect(protocolError("*1025\r\n") == "ERR Protocol error: invalid multibulk length")
        // A bulk exactly at the limit is fine.
        let limit = String(repeating: "x", count: 64 * 1024)
        #expect(protocolError("*1\r\n$65536\r\n" + limit + "\r\n") == nil)
    }

    /// Arguments are short in every command (names, ids, coordinates, notes): 64 KiB each. PING and
    /// ECHO carry opaque markers and take up to 1 MiB, in any letter case.
    @Test func onlyPayloadCommandsTakeArgumentsOverSixtyFourKiB() throws {
        let large = String(repeating: "b", count: 1024 * 1024)
        for command in ["ECHO", "echo", "Ping"] {
            #expect(try parseAll("*2\r\n$4\r\n\(command)\r\n$1048576\r\n" + large + "\r\n") == [[command, large]])
        }
        for command in ["SEARCH", "SPOT.ADD", "ECHOX", "ECH"] {
            let header = "*2\r\n$\(command.utf8.count)\r\n\(command)\r\n"
            #expect(protocolError(header + "$65537\r\n") == "ERR Protocol error: invalid bulk length", "\(command)")
            #expect(protocolError(header + "$65536\r\n" + String(repeating: "n", count: 65536) + "\r\n") == nil)
        }
    }

    /// The per-client query buffer: the arguments of one request together, counted as declared, so
    /// the refusal comes before the bytes are buffered.
    @Test func aRequestWhoseArgumentsAddUpPastTheLimitIsRefusedWhenDeclared() throws {
        let limits = RESPLimits(maxBulkLength: 1000, maxRequestLength: 2500)
        var parser = RESPRequestParser(limits: limits)
        let chunk = String(repeating: "c", count: 1000)
        var buffer = ByteBuffer(string: "*4\r\n$6\r\nSEARCH\r\n$1000\r\n\(chunk)\r\n$1000\r\n")
        #expect(try parser.next(&buffer) == nil)
        #expect(parser.pendingRequestBytes == 2006, "what the request has declared so far")
        buffer.writeString(chunk + "\r\n$1000\r\n")
        #expect(throws: RESPProtocolError.requestTooLarge(limit: 2500)) { try parser.next(&buffer) }
        #expect(RESPProtocolError.requestTooLarge(limit: 2500).message
            == "ERR Protocol error: request too large: its arguments exceed the query buffer limit of 2500 bytes")
        // Up to the limit, and request after request, is fine: the count starts again with each request.
        var fresh = RESPRequestParser(limits: limits)
        var within = ByteBuffer(string: String(repeating: "*3\r\n$4\r\nPING\r\n$1000\r\n\(chunk)\r\n$1000\r\n\(chunk)\r\n", count: 3))
        for _ in 0..<3 { #expect(try fresh.next(&within)?.arguments.count == 3) }
        #expect(fresh.pendingRequestBytes == 0)
    }

    @Test func beforeAuthenticationRequestsAreSmall() {
        let locked = RESPRequestParser(isAuthenticated: false)
        #expect(protocolError("*11\r\n", parser: locked) == "ERR Protocol error: unauthenticated multibulk length")
        #expect(protocolError("*1\r\n$16385\r\n", parser: locked) == "ERR Protocol error: unauthenticated bulk length")
        #expect(protocolError("a b c d e f g h i j k\r\n", parser: locked) == "ERR Protocol error: unauthenticated multibulk length")
        #expect(protocolError("*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n", parser: locked) == nil)
    }

    @Test func garbageIsAProtocolError() {
        #expect(protocolError("*abc\r\n") == "ERR Protocol error: invalid multibulk length")
        #expect(protocolError("*1\r\n$-5\r\n") == "ERR Protocol error: invalid bulk length")
        #expect(protocolError("*1\r\n$ 3\r\n") == "ERR Protocol error: invalid bulk length")
        #expect(protocolError("*1\r\nPING\r\n") == "ERR Protocol error: expected '$', got 'P'")
        #expect(protocolError("*1\r\n$4\r\nPINGxx") == "ERR Protocol error: bulk string not terminated by CRLF")
        #expect(protocolError("SEARCH \"unbalanced\r\n") == "ERR Protocol error: unbalanced quotes in request")
        #expect(protocolError("*2\r\n$4\r\nPING\r\n\u{0}\u{1}") == "ERR Protocol error: expected '$', got '\\x00'")
    }

    @Test func incompleteInputWaitsForMore() throws {
        for wire in ["*", "*2\r", "*2\r\n$4\r\nPI", "*2\r\n$4\r\nPING\r\n", "SEARCH maya"] {
            #expect(try parseAll(wire).isEmpty, "\(wire)")
        }
    }
}
