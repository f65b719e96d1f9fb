import NIOCore
import Synchronization

/// The connections one listener holds open, against its limit: a slot is taken when a connection is accepted,
/// on the event loop and before anything is read from it, and given back when the connection closes, however it
/// closes. The Redis listener (``ServerConfiguration/maxClients``) and the metrics listener
/// (``MetricsHTTPServer/maxConnections``) each have one.
///
/// Atomics rather than a lock: several event loops take slots at once, and a slot must be taken synchronously.
public final class ConnectionSlots: Sendable {
    /// How often at most a refusal is logged. In a flood every refusal would be a line, and the log would then
    /// cost more than the refusals; the count of them is in the metrics (and INFO) anyway.
    public static let refusalWarningInterval = TimeAmount.seconds(60)

    private let open = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    /// When a refusal was last logged, and how many refusals had been counted then.
    private let lastWarning = Mutex<(at: NIODeadline, refusedThen: Int)?>(nil)

    public init() {}

    /// Connections open now.
    public var openCount: Int { open.load(ordering: .relaxed) }
    /// Connections accepted since the listener started, refused ones included.
    public var acceptedCount: Int { accepted.load(ordering: .relaxed) }
    /// Connections closed at once because `limit` were open.
    public var refusedCount: Int { refused.load(ordering: .relaxed) }

    /// Takes a slot; `false` (and counted as refused) when `limit` are already taken.
    public func take(limit: Int) -> Bool {
        accepted.wrappingAdd(1, ordering: .relaxed)
        var taken = open.load(ordering: .relaxed)
        while taken < limit {
            let (exchanged, original) = open.compareExchange(expected: taken, desired: taken + 1, ordering: .relaxed)
            if exchanged { return true }
            taken = original
        }
        refused.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    /// Gives a slot back; returns how many are still taken.
    @discardableResult
    public func release() -> Int { open.wrappingSubtract(1, ordering: .relaxed).newValue }

    /// After a refusal: how many refusals a warning should report now (those since the last warning, this one
    /// included), or `nil` when the last warning is less than ``refusalWarningInterval`` old.
    public func refusalsToReport(now: NIODeadline = .now()) -> Int? {
        let refusedNow = refusedCount
        return lastWarning.withLock { last -> Int? in
            if let last, now - last.at < Self.refusalWarningInterval { return nil }
            let count = refusedNow - (last?.refusedThen ?? 0)
            last = (now, refusedNow)
            return max(1, count)
        }
    }

    /// The warning line for a refusal, when one is due (see ``refusalsToReport(now:)``): the first refusal is
    /// "refused a client: …", later lines say how many were refused since the one before.
    public func refusalWarning(_ what: String, reason: String, now: NIODeadline = .now()) -> String? {
        guard let count = refusalsToReport(now: now) else { return nil }
        if count == 1 {
            return "refused a \(what): \(reason) (refusals are logged at most once a minute)"
        }
        return "refused \(count) \(what)s since the last warning: \(reason)"
    }
}
