import Foundation

/// Counters shared by all connections on both event loops, for INFO, STATS and the client limit.
/// A lock (not an actor) because the event loop must take the client slot synchronously on accept.
public final class ServerMetrics: @unchecked Sendable {
    public struct Snapshot: Sendable, Equatable {
        public var connectedClients = 0
        public var totalConnections = 0
        public var rejectedConnections = 0
        public var commandsProcessed = 0
        public var errorReplies = 0
        public var protocolErrors = 0
        public var droppedHTTPRequests = 0
        public var idleTimeouts = 0
        public var backendCalls = 0
        public var answeredFromMemory = 0
        public var misses = 0
    }

    private let lock = NSLock()
    private var counters = Snapshot()
    public let startedAt = Date()

    public init() {}

    public var snapshot: Snapshot { lock.withLock { counters } }

    /// Takes a client slot; `false` (and counted as rejected) when `limit` are already connected.
    public func admitClient(limit: Int) -> Bool {
        lock.withLock {
            counters.totalConnections += 1
            guard counters.connectedClients < limit else {
                counters.rejectedConnections += 1
                return false
            }
            counters.connectedClients += 1
            return true
        }
    }

    public func releaseClient() { lock.withLock { counters.connectedClients -= 1 } }

    public func record(_ update: (inout Snapshot) -> Void) { lock.withLock { update(&counters) } }
}
