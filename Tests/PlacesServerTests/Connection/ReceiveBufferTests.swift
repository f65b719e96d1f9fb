import NIOCore
import RESP
import Testing
@testable import PlacesServer

/// Memory given back: after a large request is parsed, the connection keeps only its unparsed tail,
/// in storage of ordinary size.
@Suite struct ReceiveBufferTests {
    @Test func aLargeRequestsStorageIsNotKeptForTheTailAfterIt() throws {
        var received = ReceiveBuffer()
        var parser = RESPRequestParser()
        let payload = String(repeating: "p", count: 1024 * 1024)
        let wire = Array(("*2\r\n$4\r\nECHO\r\n$1048576\r\n" + payload + "\r\n" + "PI").utf8)
        // Delivered in 64 KiB reads, as the socket hands it over.
        var offset = 0
        var requests: [RESPRequest] = []
        while offset < wire.count {
            let end = min(offset + 64 * 1024, wire.count)
            received.append(ByteBuffer(bytes: wire[offset..<end]))
            offset = end
            let taken = received.take()
            var buffer = try #require(taken)
            while let request = try parser.next(&buffer) { requests.append(request) }
            received.keep(buffer)
        }
        #expect(requests.count == 1 && requests[0].arguments[1].readableBytes == 1024 * 1024)
        #expect(received.readableBytes == 2, "the start of the next request is kept")
        #expect(received.capacity <= ReceiveBuffer.retainedCapacity,
                "the megabyte of storage is let go: capacity \(received.capacity)")
    }

    @Test func smallReadsAreKeptAsTheyCame() {
        var received = ReceiveBuffer()
        let first = ByteBuffer(string: "SEARCH ma")
        received.append(first)
        received.keep(received.take()!)
        #expect(received.readableBytes == 9)
        received.append(ByteBuffer(string: "ya\r\n"))
        var buffer = received.take()!
        #expect(String(buffer: buffer) == "SEARCH maya\r\n")
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        received.keep(buffer)
        #expect(received.capacity == 0 && received.take() == nil, "nothing is held once everything is parsed")
    }
}
