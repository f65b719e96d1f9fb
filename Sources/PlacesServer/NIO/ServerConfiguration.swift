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
    /// Two event loops were the sweet spot for a Redis-protocol NIO server on small machines.
    public var eventLoopCount: Int
    /// Requests of one connection queued for replies before the server stops reading from it. With the
    /// write-buffer watermark this bounds the memory one client can make the server hold (about this many replies).
    public var maxPipelinedRequests: Int
    /// Outbound bytes queued for one client beyond which the server stops reading its requests.
    public var writeBufferHighWatermark: Int
    /// Shown by `INFO server`.
    public var version: String

    public init(host: String = "127.0.0.1", port: Int = 7878, password: [UInt8]? = nil, maxClients: Int = 10_000,
                idleTimeoutSeconds: Int = 300, limits: RESPLimits = RESPLimits(), eventLoopCount: Int = 2,
                maxPipelinedRequests: Int = 128, writeBufferHighWatermark: Int = 256 * 1024, version: String = "dev") {
        self.host = host
        self.port = port
        self.password = password
        self.maxClients = maxClients
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.limits = limits
        self.eventLoopCount = eventLoopCount
        self.maxPipelinedRequests = maxPipelinedRequests
        self.writeBufferHighWatermark = writeBufferHighWatermark
        self.version = version
    }
}
