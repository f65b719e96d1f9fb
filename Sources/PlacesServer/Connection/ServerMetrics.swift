import Foundation
import NIOCore
import Prometheus
import RESP
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
        case errorReply, protocolError, droppedHTTPRequest, idleTimeout, backendCall,
             answeredFromMemory, miss, requestRefusedForMemory
    }

    /// What an error reply was about, for `places_errors_total{kind=…}`. Each kind is counted once, where the
    /// server decides the reply, so INFO's `total_error_replies` and these never disagree about an error.
    public enum ErrorKind: String, Sendable, CaseIterable {
        /// The bytes were not RESP: the reply is sent and the connection closed (INFO's `protocol_errors`).
        case `protocol`
        /// The request was refused as written: unknown command, wrong arguments, AUTH missing, MULTI misuse,
        /// or an argument the application rejects (``InputError``).
        case input
        /// The shared or local store could not be reached.
        case storageUnavailable = "storage_unavailable"
        /// A provider failed upstream.
        case provider
        /// The budget did not allow a paid call.
        case budget
        /// Anything else, logged by the server.
        case `internal`

        /// The kind's place in the counters; a switch, since `allCases` would build an array on each call.
        fileprivate var slot: Int {
            switch self {
            case .protocol: 0
            case .input: 1
            case .storageUnavailable: 2
            case .provider: 3
            case .budget: 4
            case .internal: 5
            }
        }
    }

    /// One command's counters: found once per request by the command's name bytes, without building a string.
    public final class CommandCounters: Sendable {
        /// The command name as it appears in the `command` label: upper case, or `other` for an unknown name.
        public let name: String
        fileprivate let calls = Atomic<Int>(0)
        /// Seconds from the request being read to its reply being ready; `nil` when nothing exports it.
        public let latency: DurationHistogram?

        init(name: String, latency: DurationHistogram?) {
            self.name = name
            self.latency = latency
        }

        public var callCount: Int { calls.load(ordering: .relaxed) }
    }

    /// An atomic that an array can hold (``Atomic`` itself cannot be copied into one).
    private final class ErrorCounter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// A command name compared without regard to case, as the command table reads names.
    private struct CommandName: Hashable {
        let bytes: ByteBuffer

        /// The length and the first eight letters, upper-cased, in one word: names that share them are told
        /// apart by `==`. Hashing byte by byte cost more than the rest of counting a request.
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeReadableBytes { raw in
                var word: UInt64 = 0
                for offset in 0..<min(raw.count, 8) { word |= UInt64(Self.upper(raw[offset])) << (8 * offset) }
                hasher.combine(raw.count)
                hasher.combine(word)
            }
        }

        static func == (lhs: CommandName, rhs: CommandName) -> Bool {
            lhs.bytes.withUnsafeReadableBytes { left in
                rhs.bytes.withUnsafeReadableBytes { right in
                    left.count == right.count && zip(left, right).allSatisfy { upper($0) == upper($1) }
                }
            }
        }

        private static func upper(_ byte: UInt8) -> UInt8 {
            byte &- UInt8(ascii: "a") < 26 ? byte - 32 : byte
        }
    }

    /// The label value of requests whose command name the server does not know.
    public static let otherCommand = "other"
    /// Latency buckets, in seconds: from memo answers (tens of microseconds) to paid lookups (seconds).
    public static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    /// Every known command's counters, in the command table's order, then ``otherCommand``'s.
    public let commands: [CommandCounters]
    private let commandsByName: [CommandName: CommandCounters]
    private let otherCommands: CommandCounters
    private let errorCounts: [ErrorCounter]
    /// Whether commands have latency histograms (`--metrics-port`): only then is the clock read per request.
    public let recordsLatency: Bool

    /// The Redis listener's connections, against ``ServerConfiguration/maxClients``.
    public let clients = ConnectionSlots()
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

    /// - Parameters:
    ///   - commandNames: the command table's names, each counted on its own; any other name counts as ``otherCommand``.
    ///   - registry: where each command's latency histogram goes (`places_request_duration_seconds`), when
    ///     `places serve --metrics-port` exports them; without one no clock is read per request.
    public init(commandNames: [String] = [], registry: PrometheusCollectorRegistry? = nil) {
        func counters(_ name: String) -> CommandCounters {
            CommandCounters(name: name, latency: registry?.makeDurationHistogram(
                name: "places_request_duration_seconds", labels: [("command", name)], buckets: Self.latencyBuckets,
                help: "Seconds from a request being read to its reply being ready, by command."))
        }
        var unique: [String] = []
        for name in commandNames.map({ $0.uppercased() }) where !unique.contains(name) { unique.append(name) }
        let known = unique.map(counters)
        otherCommands = counters(Self.otherCommand)
        commands = known + [otherCommands]
        commandsByName = Dictionary(uniqueKeysWithValues: known.map { (CommandName(bytes: ByteBuffer(string: $0.name)), $0) })
        errorCounts = ErrorKind.allCases.map { _ in ErrorCounter() }
        recordsLatency = registry != nil
    }

    /// Counts one request to the command it names and returns that command's counters (for its latency).
    @discardableResult
    public func countRequest(_ request: RESPRequest) -> CommandCounters {
        guard let name = request.arguments.first else {
            otherCommands.calls.wrappingAdd(1, ordering: .relaxed)
            return otherCommands
        }
        return countRequest(named: name)
    }

    /// Counts one request of the command `name` (its bytes as received). A dictionary lookup on the name's
    /// bytes: no string is built and nothing is allocated.
    @discardableResult
    public func countRequest(named name: ByteBuffer) -> CommandCounters {
        let counters = commandsByName[CommandName(bytes: name)] ?? otherCommands
        counters.calls.wrappingAdd(1, ordering: .relaxed)
        return counters
    }

    /// One connection's last command name and its counters: a connection mostly sends one command again and
    /// again, and finding the counters by name was most of what counting a memoised request cost.
    struct RecentCommand {
        /// The name's bytes (up to 16; a longer name is not remembered), so no buffer is held or compared through.
        private var words: (UInt64, UInt64) = (0, 0)
        private var length = -1
        private var counters: CommandCounters?

        /// Counts one request of the command `name`, read in place (a span of the receive buffer), and returns its
        /// counters, as ``ServerMetrics/countRequest(named:)``.
        mutating func countRequest(named name: UnsafeRawBufferPointer, in metrics: ServerMetrics) -> CommandCounters {
            let words = Self.words(name)
            if let counters, let words, name.count == length, words.0 == self.words.0, words.1 == self.words.1 {
                counters.calls.wrappingAdd(1, ordering: .relaxed)
                return counters
            }
            let found = metrics.countRequest(named: ByteBuffer(bytes: name))
            if let words {
                self.words = words
                length = name.count
                counters = found
            }
            return found
        }

        /// The bytes of a name of at most 16 bytes, zero-padded; `nil` for a longer one.
        private static func words(_ name: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
            guard name.count <= 16 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: name) }
            return words
        }
    }

    /// Counts an error reply of `kind` (a protocol error is INFO's `protocol_errors`, counted once).
    public func countError(_ kind: ErrorKind) {
        if kind == .protocol {
            count(.protocolError)
        } else {
            errorCounts[kind.slot].value.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// How many error replies of `kind` the server has sent.
    public func errorCount(_ kind: ErrorKind) -> Int {
        kind == .protocol ? protocolErrors.load(ordering: .relaxed) : errorCounts[kind.slot].value.load(ordering: .relaxed)
    }

    /// Each counter read on its own: a report taken under load may be off by the requests in flight.
    public var snapshot: Snapshot {
        Snapshot(
            connectedClients: clients.openCount,
            totalConnections: clients.acceptedCount,
            rejectedConnections: clients.refusedCount,
            // The per-command counters are the one count of requests: the total is their sum.
            commandsProcessed: commands.reduce(0) { $0 + $1.callCount },
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
