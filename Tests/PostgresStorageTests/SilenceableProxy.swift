import Foundation
import Glibc
import Synchronization

/// A TCP proxy on 127.0.0.1 that can go silent: after ``goSilent()`` it passes no byte either way but keeps every
/// connection open, as a NAT or firewall that has forgotten a connection does. Its sockets are close-on-exec, so no
/// process a test starts inherits them.
final class SilenceableProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let silent = Atomic(false)
    /// Both sockets of every connection, shut down by ``stop()``; each pair is closed once both its pumps have ended.
    private let open = Mutex<[Int32]>([])

    init(toPort upstreamPort: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard listener >= 0, bound, Glibc.listen(listener, 16) == 0 else {
            if listener >= 0 { close(listener) }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the proxy cannot listen on 127.0.0.1"])
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }  // shut down by stop()
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // accept4 is not in Glibc's Swift module
                let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                var target = Self.loopback(port: upstreamPort)
                let connected = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                }
                guard connected else {
                    close(client)
                    close(upstream)
                    continue
                }
                open.withLock { $0 += [client, upstream] }
                let pair = Pair(client: client, upstream: upstream)
                Thread { [self] in pump(from: client, to: upstream); finished(pair) }.start()
                Thread { [self] in pump(from: upstream, to: client); finished(pair) }.start()
            }
        }.start()
    }

    /// One connection's two sockets, closed when both their pumps have ended.
    private final class Pair: Sendable {
        let client: Int32
        let upstream: Int32
        let pumpsLeft = Mutex(2)
        init(client: Int32, upstream: Int32) { (self.client, self.upstream) = (client, upstream) }
    }

    private func finished(_ pair: Pair) {
        guard pair.pumpsLeft.withLock({ left in left -= 1; return left == 0 }) else { return }
        open.withLock { $0.removeAll { $0 == pair.client || $0 == pair.upstream } }
        close(pair.client)
        close(pair.upstream)
    }

    /// From now on bytes are swallowed and ends of stream kept back.
    func goSilent() { silent.store(true, ordering: .relaxed) }

    /// Stops accepting and ends every connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for socket in open.withLock({ $0 }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(source, &buffer, buffer.count)
            if silent.load(ordering: .relaxed) {
                if count <= 0 { return }
                continue
            }
            guard count > 0 else {
                shutdown(destination, Int32(SHUT_WR))
                return
            }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return }
                sent += written
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
