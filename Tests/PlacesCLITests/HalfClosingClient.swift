import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `nc -N` does: connect to 127.0.0.1, send the bytes, shut down the write side, and read until
/// the server closes (at most 30 s). Replies are split into one string per reply: a bulk's body, a
/// simple string or error line with its `+`/`-` sign, `nil` bulks as the empty string.
enum HalfClosingClient {
    static func send(_ text: String, port: Int) throws -> (replies: [String], closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeFailure(log: "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ServeFailure(log: "connect to 127.0.0.1:\(port) failed") }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw ServeFailure(log: "send to 127.0.0.1:\(port) failed") }
            offset += sent
        }
        shutdown(fd, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var closed = false
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { closed = true }
            guard count > 0 else { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return (splitReplies(received), closed)
    }

    /// Top-level RESP2 replies of the kinds this server sends to these requests.
    private static func splitReplies(_ bytes: [UInt8]) -> [String] {
        var replies: [String] = []
        var index = 0
        while let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\n")), lineEnd > index {
            let line = String(decoding: bytes[index..<(lineEnd - 1)], as: UTF8.self)
            index = lineEnd + 1
            guard line.hasPrefix("$"), let length = Int(line.dropFirst()) else {
                replies.append(line)
                continue
            }
            guard length >= 0 else {
                replies.append("")
                continue
            }
            guard bytes.count >= index + length + 2 else { break }
            replies.append(String(decoding: bytes[index..<(index + length)], as: UTF8.self))
            index += length + 2
        }
        return replies
    }
}
