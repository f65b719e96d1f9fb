import Foundation
import NIOCore
import PlacesPipeline
import RESP
import Synchronization

/// Recent replies to read-only commands, keyed by the request's own bytes, so a hot `DETAILS` or
/// `SEARCH` is answered on the event loop without parsing its arguments, starting a task or reading
/// the database. Shared by every connection; bounded in entries, bytes and age. The index only changes
/// through `places import`, and an import shows up here within ``timeToLive``.
///
/// Two spellings of one query (`near` and `NEAR`, `60.17` and `60.170`) are two entries with the same
/// answer: cheaper than normalising every request before the lookup.
///
/// Identical requests that miss at the same time share one computation (``sharedReply(for:computing:)``):
/// when a hot entry expires under load, fifty clients asking for it cost one index read, not fifty.
///
/// A LOOKUP reply built from a cache hit is kept under the hit's ``CacheHitLease`` (``store(_:for:lease:)``): it is
/// repeated only while the lookup cache's change stamp is the one the hit was read under (read again for every
/// repeat, so a purge or overwrite by any process makes the next LOOKUP go to the store) and for no longer than the
/// lease's lifetime (the row's expiry, or sooner the cache's touch interval), nor than ``timeToLive``.
public final class ReplyMemo: Sendable {
    /// A request as memo key: the command name compared without regard to case, the arguments byte for byte.
    ///
    /// Held in multibulk form, `*<n>\r\n` then `$<length>\r\n<argument>\r\n` per argument, which is how clients
    /// send a request: a connection looks a received request up by its own bytes before parsing it
    /// (``RESPFrame``), without building an argument array or a string.
    public struct Key: Hashable, Sendable {
        let frame: ByteBuffer
        /// Where the command name's bytes are in `frame`, counted from its reader index.
        let command: RESPFrame.Span

        /// Borrows a received frame (a slice of the receive buffer): for a lookup, which must not allocate.
        init(borrowing frame: ByteBuffer, command: RESPFrame.Span) {
            self.frame = frame
            self.command = command
        }

        /// Writes the request in multibulk form into a buffer of its own, so a stored key does not keep the
        /// (much larger) receive buffer its arguments were sliced from alive.
        public init(copying request: RESPRequest) {
            var frame = ByteBuffer()
            frame.reserveCapacity(16 + request.arguments.reduce(0) { $0 + $1.readableBytes + 16 })
            RESPValue.array(request.arguments.map(RESPValue.bulkString)).encode(into: &frame)
            self.frame = frame
            let commandLength = request.arguments.first?.readableBytes ?? 0
            // The command name is the first argument: after `*<n>\r\n$<length>\r\n`.
            let headers = "*\(request.arguments.count)\r\n".utf8.count + (request.arguments.isEmpty ? 0 : "$\(commandLength)\r\n".utf8.count)
            command = RESPFrame.Span(start: headers, length: commandLength)
        }

        var byteCount: Int { frame.readableBytes }

        // Hashing and comparing go through raw bytes: these run for every request, and views or
        // iterators over ByteBuffers would retain and release their storage once per byte or element.
        // Both treat the frame as if its command name were upper-cased; clients mostly send it so, and
        // then the frame is hashed and compared whole, in one call each.
        public func hash(into hasher: inout Hasher) {
            let command = self.command
            frame.withUnsafeReadableBytes { bytes in
                guard Self.hasLowercase(bytes, in: command) else {
                    hasher.combine(bytes: bytes)
                    return
                }
                withUnsafeTemporaryAllocation(byteCount: bytes.count, alignment: 1) { folded in
                    folded.copyMemory(from: bytes)
                    for offset in command.start..<command.end { folded[offset] = Self.upper(folded[offset]) }
                    hasher.combine(bytes: UnsafeRawBufferPointer(folded))
                }
            }
        }

        public static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.frame.readableBytes == rhs.frame.readableBytes, lhs.command == rhs.command else { return false }
            let command = lhs.command
            return lhs.frame.withUnsafeReadableBytes { left in
                rhs.frame.withUnsafeReadableBytes { right in
                    if memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 { return true }
                    // Equal but for the case of the command name?
                    guard memcmp(left.baseAddress!, right.baseAddress!, command.start) == 0 else { return false }
                    for offset in command.start..<command.end where upper(left[offset]) != upper(right[offset]) {
                        return false
                    }
                    let rest = left.count - command.end
                    return rest == 0 || memcmp(left.baseAddress! + command.end, right.baseAddress! + command.end, rest) == 0
                }
            }
        }

        private static func hasLowercase(_ bytes: UnsafeRawBufferPointer, in command: RESPFrame.Span) -> Bool {
            for offset in command.start..<command.end where bytes[offset] &- UInt8(ascii: "a") < 26 { return true }
            return false
        }

        private static func upper(_ byte: UInt8) -> UInt8 {
            byte &- UInt8(ascii: "a") < 26 ? byte - 32 : byte
        }
    }

    public struct Statistics: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int
        public var hits: Int
        /// Memoisable requests that went to the backend (and whose reply was then stored).
        public var misses: Int
    }

    /// `NIODeadline` rather than `ContinuousClock.Instant`: a standard-library instant has no layout known at
    /// compile time, so every copy of an entry went through runtime metadata (callgrind).
    ///
    /// Only the wire form is kept: the reply (a bulk string or null, all that is stored) is read back from it, so a
    /// lookup copies out one buffer and the reply's bytes are held once.
    private struct Entry {
        /// The reply's wire form (RESP2), written as it is by a connection: see ``frame(answering:resp3:)``.
        var frame: ByteBuffer
        /// The bulk string's length, the last bytes of `frame` but its `\r\n`; -1 for null.
        var payload: Int
        var bytes: Int
        var expires: NIODeadline
        /// For a reply built from a cache hit: repeated only while the lease is current.
        var lease: CacheHitLease?

        var isNull: Bool { payload < 0 }

        var reply: RESPValue {
            guard payload >= 0 else { return .null }
            return .bulkString(frame.getSlice(at: frame.writerIndex - 2 - payload, length: payload)!)
        }

        func answers(at now: NIODeadline) -> Bool { expires > now && (lease?.isCurrent ?? true) }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Insertion order, for evicting the oldest entries when over a bound.
        var order: [Key] = []
        var orderStart = 0
        var bytes = 0
        var hits = 0
        var misses = 0
        var inFlight: [Key: Flight] = [:]
    }

    /// One computation in progress, and the identical requests waiting for its reply.
    private final class Flight: Sendable {
        private let state = Mutex<(reply: RESPValue?, waiters: [CheckedContinuation<RESPValue, Never>])>((nil, []))

        func wait() async -> RESPValue {
            await withCheckedContinuation { waiter in
                let ready = state.withLock { state -> RESPValue? in
                    if let reply = state.reply { return reply }
                    state.waiters.append(waiter)
                    return nil
                }
                if let ready { waiter.resume(returning: ready) }
            }
        }

        /// Identical requests now waiting for this computation's reply.
        var waiting: Int { state.withLock { $0.waiters.count } }

        func finish(with reply: RESPValue) {
            let waiters = state.withLock { state in
                state.reply = reply
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: reply) }
        }
    }

    public let capacity: Int
    public let maxBytes: Int
    public let timeToLive: Duration
    private let state = Mutex(State())

    public init(capacity: Int = 10_000, maxBytes: Int = 64 << 20, timeToLive: Duration = .seconds(30)) {
        self.capacity = max(0, capacity)
        self.maxBytes = max(0, maxBytes)
        self.timeToLive = timeToLive
    }

    /// Requests now waiting for an identical request's computation to finish: what a test waits on to know
    /// every caller has joined a flight, instead of guessing a sleep.
    var followersWaiting: Int {
        state.withLock { state in state.inFlight.values.reduce(0) { $0 + $1.waiting } }
    }

    /// The stored reply to `request`, if one is younger than ``timeToLive``. Any request may be asked
    /// about: only memoisable ones are ever stored.
    public func reply(to request: RESPRequest) -> RESPValue? {
        entry(for: Key(copying: request), at: .now())?.reply
    }

    /// Whether anything may be stored: `--memo-ttl 0` (or a zero capacity) turns the memo off, and a
    /// connection then does not look requests up.
    var isEnabled: Bool { capacity > 0 && timeToLive > .zero }

    /// The stored reply to the request `key` stands for, as it goes on the wire, for a connection to copy into its
    /// output as it is; `isNull` tells a miss (`$-1`), which the caller counts. `nil` when nothing younger than
    /// ``timeToLive`` is stored.
    /// - Parameters:
    ///   - resp3: after `HELLO 3`, where a miss is written `_` instead.
    ///   - now: the time the entry's age is checked against.
    func frame(answering key: Key, resp3: Bool, at now: NIODeadline) -> (frame: ByteBuffer, isNull: Bool)? {
        guard let entry = entry(for: key, at: now) else { return nil }
        if resp3 && entry.isNull { return (ByteBuffer(staticString: "_\r\n"), true) }
        return (entry.frame, entry.isNull)
    }

    private func entry(for key: Key, at now: NIODeadline) -> Entry? {
        let found = state.withLock { state -> Entry? in
            guard let entry = state.entries[key], entry.answers(at: now) else { return nil }
            state.hits += 1
            return entry
        }
        found?.lease?.noteRepeat()
        return found
    }

    /// The reply to the request `key` stands for: computed by `compute`, unless an identical request
    /// is already being computed, whose reply (an error included) is then shared. A bulk or null reply
    /// is stored for the next requests.
    public func sharedReply(for key: Key, computing compute: () async -> RESPValue) async -> RESPValue {
        enum Role {
            case answered(RESPValue)
            case leader(Flight)
            case follower(Flight)
        }
        let now = NIODeadline.now()
        let role = state.withLock { state -> Role in
            // Stored since this request missed on the event loop: an identical one was just answered.
            if let entry = state.entries[key], entry.answers(at: now) { return .answered(entry.reply) }
            if let flight = state.inFlight[key] { return .follower(flight) }
            let flight = Flight()
            state.inFlight[key] = flight
            return .leader(flight)
        }
        switch role {
        case .answered(let reply):
            return reply
        case .follower(let flight):
            return await flight.wait()
        case .leader(let flight):
            let reply = await compute()
            store(reply, for: key)
            state.withLock { _ = $0.inFlight.removeValue(forKey: key) }
            flight.finish(with: reply)
            return reply
        }
    }

    /// Keeps a bulk or null reply; anything else (an error) is not an answer worth repeating.
    /// - Parameter lease: for a reply built from a cache hit, the hit's lease: the reply is repeated only while it is
    ///   current, and for no longer than its lifetime.
    public func store(_ reply: RESPValue, for key: Key, lease: CacheHitLease? = nil) {
        let size: Int
        let payload: Int
        switch reply {
        case .bulkString(let bytes):
            size = key.byteCount + bytes.readableBytes
            payload = bytes.readableBytes
        case .null:
            size = key.byteCount
            payload = -1
        default: return
        }
        let age = lease.map { min(timeToLive, .seconds(max(0, $0.lifetime))) } ?? timeToLive
        // A zero age keeps nothing, like a zero capacity: `--memo-ttl 0` turns the memo off.
        guard capacity > 0, age > .zero, size <= maxBytes else { return }
        let expires = NIODeadline.now() + TimeAmount(age)
        var frame = ByteBuffer()
        reply.encode(into: &frame)
        state.withLock { state in
            state.misses += 1
            let entry = Entry(frame: frame, payload: payload, bytes: size, expires: expires, lease: lease)
            if let previous = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= previous.bytes
            } else {
                state.order.append(key)
            }
            state.bytes += size
            while state.entries.count > capacity || state.bytes > maxBytes, state.orderStart < state.order.count {
                if let evicted = state.entries.removeValue(forKey: state.order[state.orderStart]) {
                    state.bytes -= evicted.bytes
                }
                state.orderStart += 1
            }
            if state.orderStart > max(64, state.order.count / 2) {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }

    public var statistics: Statistics {
        state.withLock { Statistics(entries: $0.entries.count, bytes: $0.bytes, hits: $0.hits, misses: $0.misses) }
    }
}
