import Foundation

/// Recent answers kept in memory, so a hot `DETAILS` or `SEARCH` is answered on the event loop
/// without a task or a database read. Bounded in entries and age: the index only changes through
/// `places import`, and an import shows up here within ``timeToLive``.
public final class AnswerMemo: @unchecked Sendable {
    public struct Statistics: Sendable, Equatable {
        public var entries: Int
        public var hits: Int
        public var misses: Int
    }

    private struct Entry {
        var answer: CachedAnswer
        var expires: ContinuousClock.Instant
    }

    public let capacity: Int
    public let timeToLive: Duration
    private let lock = NSLock()
    private var entries: [BackendCall: Entry] = [:]
    /// Insertion order, for evicting the oldest entry when full.
    private var order: [BackendCall] = []
    private var orderStart = 0
    private var hits = 0
    private var misses = 0

    public init(capacity: Int = 10_000, timeToLive: Duration = .seconds(30)) {
        self.capacity = max(0, capacity)
        self.timeToLive = timeToLive
    }

    public func answer(for call: BackendCall) -> CachedAnswer? {
        let now = ContinuousClock.now
        return lock.withLock {
            guard let entry = entries[call], entry.expires > now else {
                misses += 1
                return nil
            }
            hits += 1
            return entry.answer
        }
    }

    public func store(_ answer: CachedAnswer, for call: BackendCall) {
        guard capacity > 0 else { return }
        let expires = ContinuousClock.now + timeToLive
        lock.withLock {
            if entries.updateValue(Entry(answer: answer, expires: expires), forKey: call) == nil {
                order.append(call)
            }
            while entries.count > capacity, orderStart < order.count {
                entries[order[orderStart]] = nil
                orderStart += 1
            }
            if orderStart > 4 * capacity {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }
    }

    public var statistics: Statistics {
        lock.withLock { Statistics(entries: entries.count, hits: hits, misses: misses) }
    }
}
