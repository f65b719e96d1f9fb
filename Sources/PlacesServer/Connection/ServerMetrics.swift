import Foundation
import Synchronization

/// Counters shared by all connections on every event loop, for INFO, STATS and the client limit.
/// Atomics rather than a lock: they are bumped on every request of every connection, and the event
/// loop must take a client slot synchronously on accept.
public final class ServerMetrics: Sendable {
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
        /// Bytes held right now by requests that arrived over more than one read, across all connections.
        public var requestBytesInFlight = 0
        public var requestsRefusedForMemory = 0
    }

    /// The counters that only ever grow.
    public enum Event: Sendable {
        case commandProcessed, errorReply, protocolError, droppedHTTPRequest, idleTimeout, backendCall,
             answeredFromMemory, miss, requestRefusedForMemory
    }

    private let connectedClients = Atomic<Int>(0)
    private let totalConnections = Atomic<Int>(0)
    private let rejectedConnections = Atomic<Int>(0)
    private let commandsProcessed = Atomic<Int>(0)
    private let errorReplies = Atomic<Int>(0)
    private let protocolErrors = Atomic<Int>(0)
    private let droppedHTTPRequests = Atomic<Int>(0)
    private let idleTimeouts = Atomic<Int>(0)
    private let backendCalls = Atomic<Int>(0)
    private let answeredFromMemory = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let requestBytesInFlight = Atomic<Int>(0)
    private let requestsRefusedForMemory = Atomic<Int>(0)
    public let startedAt = Date()

    public init() {}

    /// Each counter read on its own: a report taken under load may be off by the requests in flight.
    public var snapshot: Snapshot {
        Snapshot(
            connectedClients: connectedClients.load(ordering: .relaxed),
            totalConnections: totalConnections.load(ordering: .relaxed),
            rejectedConnections: rejectedConnections.load(ordering: .relaxed),
            commandsProcessed: commandsProcessed.load(ordering: .relaxed),
            errorReplies: errorReplies.load(ordering: .relaxed),
            protocolErrors: protocolErrors.load(ordering: .relaxed),
            droppedHTTPRequests: droppedHTTPRequests.load(ordering: .relaxed),
            idleTimeouts: idleTimeouts.load(ordering: .relaxed),
            backendCalls: backendCalls.load(ordering: .relaxed),
            answeredFromMemory: answeredFromMemory.load(ordering: .relaxed),
            misses: misses.load(ordering: .relaxed),
            requestBytesInFlight: requestBytesInFlight.load(ordering: .relaxed),
            requestsRefusedForMemory: requestsRefusedForMemory.load(ordering: .relaxed))
    }

    public func count(_ event: Event) {
        switch event {
        case .commandProcessed: commandsProcessed.wrappingAdd(1, ordering: .relaxed)
        case .errorReply: errorReplies.wrappingAdd(1, ordering: .relaxed)
        case .protocolError: protocolErrors.wrappingAdd(1, ordering: .relaxed)
        case .droppedHTTPRequest: droppedHTTPRequests.wrappingAdd(1, ordering: .relaxed)
        case .idleTimeout: idleTimeouts.wrappingAdd(1, ordering: .relaxed)
        case .backendCall: backendCalls.wrappingAdd(1, ordering: .relaxed)
        case .answeredFromMemory: answeredFromMemory.wrappingAdd(1, ordering: .relaxed)
        case .miss: misses.wrappingAdd(1, ordering: .relaxed)
        case .requestRefusedForMemory: requestsRefusedForMemory.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Takes a client slot; `false` (and counted as rejected) when `limit` are already connected.
    public func admitClient(limit: Int) -> Bool {
        totalConnections.wrappingAdd(1, ordering: .relaxed)
        var connected = connectedClients.load(ordering: .relaxed)
        while connected < limit {
            let (exchanged, original) = connectedClients.compareExchange(
                expected: connected, desired: connected + 1, ordering: .relaxed)
            if exchanged { return true }
            connected = original
        }
        rejectedConnections.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    public func releaseClient() { connectedClients.wrappingSubtract(1, ordering: .relaxed) }

    /// Takes `bytes` of the server-wide allowance for requests in flight; `false` (nothing taken) when
    /// that would pass `limit`. Every connection draws on one allowance, so many clients each within
    /// their own query-buffer limit still cannot exhaust the machine's memory together.
    public func reserveRequestBytes(_ bytes: Int, limit: Int) -> Bool {
        var held = requestBytesInFlight.load(ordering: .relaxed)
        while held + bytes <= limit {
            let (exchanged, original) = requestBytesInFlight.compareExchange(
                expected: held, desired: held + bytes, ordering: .relaxed)
            if exchanged { return true }
            held = original
        }
        return false
    }

    public func releaseRequestBytes(_ bytes: Int) {
        if bytes > 0 { requestBytesInFlight.wrappingSubtract(bytes, ordering: .relaxed) }
    }
}
