import Foundation
import LoopbackSocket

/// What `nc -N` does: connect to 127.0.0.1, send the bytes, shut down the write side, and read until
/// the server closes (at most ``LoopbackSocket/hangGuardSeconds``). Replies are split into one string per reply: a bulk's body, a
/// simple string or error line with its `+`/`-` sign, `nil` bulks as the empty string.
enum HalfClosingClient {
    static func send(_ text: String, port: Int) throws -> (replies: [String], closed: Bool) {
        let socket = try LoopbackSocket(port: port)
        try socket.send(Array(text.utf8))
        socket.shutdownWrite()
        var received: [UInt8] = []
        while true {
            switch socket.receive() {
            case .bytes(let bytes): received.append(contentsOf: bytes)
            case .endOfStream: return (splitReplies(received), true)
            case .reset, .timedOut: return (splitReplies(received), false)
            }
        }
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
