import NIOCore
import RESP

/// How `places serve` listens and what it tolerates. The defaults are safe for a laptop: loopback
/// only, no password needed because nothing off the machine can connect, and small request limits.
public struct ServerConfiguration: Sendable {
    /// Loopback by default; binding elsewhere exposes the paid-provider budget to the network, so set a password.
    public var host: String
    /// 0 asks the OS for a free port (tests); the bound address is reported through `onListening`.
    public var port: Int
    /// When set, clients must `AUTH` before anything else.
    public var password: [UInt8]?
    public var maxClients: Int
    /// Seconds without traffic before a connection is closed (slowloris defence); 0 never closes.
    public var idleTimeoutSeconds: Int
    public var limits: RESPLimits
    public var eventLoopCount: Int
    /// Requests of one connection queued for replies before the server stops reading from it. With the
    /// write-buffer watermark this bounds the memory one client can make the server hold (about this many replies).
    public var maxPipelinedRequests: Int
    /// Outbound bytes queued for one client beyond which the server stops reading its requests.
    public var writeBufferHighWatermark: Int
    /// Bytes all connections together may hold in requests that arrive over more than one read (large
    /// or slow requests), until their replies are written. A request that would pass it is refused with
    /// `-ERR max memory for requests in flight reached` and its connection closed; the others go on.
    /// With ``RESPLimits/maxRequestLength`` (one request) this bounds what clients can make the server hold.
    public var maxRequestBytesInFlight: Int
    /// Shown by `INFO server`.
    public var version: String

    /// Half the cores, at least one. Event loops only parse, answer from memory and write; index
    /// queries run on Swift's cooperative pool, which has a thread per core, and clients are often on
    /// the same machine. Measured on 2 cores with redis-benchmark beside the server (bench/server.sh):
    /// one loop kept p99 near 1.2 ms, two loops let the three busy threads preempt each other and p99
    /// rose to 3–4 ms, for no more throughput.
    public static let defaultEventLoopCount = max(1, System.coreCount / 2)

    public init(host: String = "127.0.0.1", port: Int = 7878, password: [UInt8]? = nil, maxClients: Int = 10_000,
                idleTimeoutSeconds: Int = 300, limits: RESPLimits = RESPLimits(),
                eventLoopCount: Int = ServerConfiguration.defaultEventLoopCount,
                maxPipelinedRequests: Int = 128, writeBufferHighWatermark: Int = 256 * 1024,
                maxRequestBytesInFlight: Int = 64 * 1024 * 1024, version: String = "dev") {
        self.host = host
        self.port = port
        self.password = password
        self.maxClients = maxClients
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.limits = limits
        self.eventLoopCount = eventLoopCount
        self.maxPipelinedRequests = maxPipelinedRequests
        self.writeBufferHighWatermark = writeBufferHighWatermark
        self.maxRequestBytesInFlight = maxRequestBytesInFlight
        self.version = version
    }
}
