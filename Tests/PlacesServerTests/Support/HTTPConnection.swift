import Foundation
import LoopbackSocket

/// One HTTP/1.1 connection over a blocking loopback socket, kept alive across requests: answers are read by
/// their `Content-Length`, so a test can tell "answered" from "closed without an answer". Call from
/// ``offPool(_:)``: every read blocks (with a timeout, so a broken server fails the test instead of hanging it).
///
/// The timeout is two minutes: a scrape runs on Swift's cooperative threads, which other suites running at the
/// same time can keep busy for seconds (as the half-close tests of ``ServerHardeningTests`` allow for).
final class HTTPConnection: @unchecked Sendable {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let socket: LoopbackSocket
    private var received: [UInt8] = []

    init(port: Int) throws {
        socket = try LoopbackSocket(port: port)
    }

    static func request(_ path: String, method: String = "GET") -> [UInt8] {
        Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    }

    func send(_ bytes: [UInt8]) throws { try socket.send(bytes) }

    func get(_ path: String = "/metrics") throws -> Answer {
        try send(Self.request(path))
        return try answer()
    }

    /// The next answer, whole; throws when the connection ends (or times out) first.
    func answer() throws -> Answer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = Self.find(separator, in: received) {
                let head = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let status = head.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                let bodyStart = end + separator.count
                while received.count < bodyStart + length { try fill() }
                let body = Array(received[bodyStart..<(bodyStart + length)])
                received.removeFirst(bodyStart + length)
                return Answer(status: status, headers: headers, body: body)
            }
            try fill()
        }
    }

    /// Everything until the server closes: `closed` is false when the read timed out first.
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        while true {
            switch socket.receive() {
            case .bytes(let bytes): received += bytes
            case .endOfStream, .reset: return (received, true)
            case .timedOut: return (received, false)
            }
        }
    }

    private func fill() throws {
        guard case .bytes(let bytes) = socket.receive() else {
            throw InputError("the connection ended or timed out after \(received.count) bytes of an answer")
        }
        received += bytes
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
