import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP socket to 127.0.0.1 for tests that must send exact bytes and control the
/// connection's ends themselves (pipelines, garbage, a FIN after the requests). Every read has a
/// timeout, so a server that never answers fails the test instead of hanging it.
public final class LoopbackSocket: @unchecked Sendable {
    /// How long a read waits. It only guards against a hung server: on a 2-core CI machine
    /// running the whole suite in parallel, a server's first reply (which opens its stores) has taken more
    /// than 10 s, so the guard is far above that. No test waits for it to pass.
    public static let hangGuardSeconds = 120

    public enum Received {
        case bytes([UInt8])
        /// The server closed its side cleanly (FIN).
        case endOfStream
        /// The server reset the connection.
        case reset
        /// Nothing arrived within the read timeout (or another error).
        case timedOut
    }

    private let fd: Int32

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackSocketError(description: "socket() failed") }
        var timeout = timeval(tv_sec: Self.hangGuardSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw LoopbackSocketError(description: "connect to 127.0.0.1:\(port) failed")
        }
    }

    deinit { close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)  // a server that closed must fail the test, not kill it with SIGPIPE
            #else
            let flags = Int32(0)
            #endif
            let sent = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { throw LoopbackSocketError(description: "send failed (the server closed the connection?)") }
            offset += sent
        }
    }

    /// Shuts down the sending side (a FIN), as `nc -N` does at the end of its input; replies can still be read.
    public func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Waits for the next bytes (at most 64 KiB) or the end of the connection.
    public func receive() -> Received {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(Array(chunk[0..<count])) }
        if count == 0 { return .endOfStream }
        return errno == ECONNRESET ? .reset : .timedOut
    }
}

public struct LoopbackSocketError: Error, CustomStringConvertible {
    public let description: String
}
