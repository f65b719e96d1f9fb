import Foundation
import Synchronization

/// When the in-process front of the lookup cache may answer, and when it must forget: a value type with no I/O,
/// so every rule is tested with plain numbers (``CacheHitFront`` holds one behind a lock).
///
/// An entry is remembered together with the store's change stamp read *before* the store was read
/// (``LookupCacheStore/changeStamp()``), and is served only while:
/// - the stamp is still that one: any write that could change or remove a cache row, by any process sharing the
///   store, changes the stamp, so a purged or replaced entry is never answered from memory;
/// - a stamp is known at all: `nil` (the PostgreSQL listener is down or reconnecting, or the store gives no stamp)
///   bypasses the front, and reads go to the store;
/// - the entry is before its expiry, which is the cache row's own expiry or, sooner, ``refreshInterval`` after
///   it was remembered, so the store still sees a read (its LRU touch) about as often as its touch interval.
///
/// Bounded by ``capacity`` entries: when full, the entry remembered first goes.
public struct CacheHitFrontPolicy<Value: Sendable>: Sendable {
    public struct Entry: Sendable {
        public var value: Value
        public var stamp: UInt64
        public var expiresAt: Date
    }

    public let capacity: Int
    public let refreshInterval: TimeInterval
    private(set) var entries: [String: Entry] = [:]
    /// Keys in the order they were first remembered, for evicting the oldest; may hold keys already forgotten.
    private var order: [String] = []
    private var orderStart = 0

    public init(capacity: Int, refreshInterval: TimeInterval) {
        self.capacity = max(0, capacity)
        self.refreshInterval = refreshInterval
    }

    public var count: Int { entries.count }

    /// The remembered value for `key`, when `stamp` is the one it was remembered under and it has not expired
    /// at `now`. An entry found stale (expired, or under another stamp) is forgotten.
    public mutating func answer(for key: String, stamp: UInt64?, now: Date) -> Value? {
        entry(for: key, stamp: stamp, now: now)?.value
    }

    /// ``answer(for:stamp:now:)`` with the stamp and expiry it was remembered under (for a ``CacheHitLease``).
    public mutating func entry(for key: String, stamp: UInt64?, now: Date) -> Entry? {
        guard let entry = entries[key] else { return nil }
        guard let stamp, stamp == entry.stamp, now < entry.expiresAt else {
            if stamp != nil { entries[key] = nil }  // stale for good; with no stamp it may still be valid later
            return nil
        }
        return entry
    }

    /// Remembers a hit the store returned: `stamp` is the change stamp read before that store read, `expiresAt`
    /// the cache row's expiry. Nothing is remembered without a stamp, past the row's expiry, or with no capacity.
    /// - Returns: the entry remembered, `nil` when nothing was.
    @discardableResult
    public mutating func remember(_ value: Value, for key: String, stamp: UInt64?, expiresAt: Date, now: Date) -> Entry? {
        guard let stamp, capacity > 0, refreshInterval > 0, now < expiresAt else { return nil }
        let entry = Entry(value: value, stamp: stamp, expiresAt: min(expiresAt, now.addingTimeInterval(refreshInterval)))
        if entries.updateValue(entry, forKey: key) == nil { order.append(key) }
        while entries.count > capacity, orderStart < order.count {
            entries[order[orderStart]] = nil
            orderStart += 1
        }
        if orderStart > max(64, order.count / 2) {
            order.removeFirst(orderStart)
            orderStart = 0
            // Keys forgotten as stale stay in `order` until evicted; keep only those still remembered.
            order.removeAll { entries[$0] == nil }
        }
        return entry
    }
}

/// The in-process front of the lookup cache that `places serve` puts before the store: a repeated cache-hit LOOKUP
/// is answered from memory, without a store read (a PostgreSQL round trip) or a decode, for as long as
/// ``CacheHitFrontPolicy`` allows. Budget, single flight and misses are untouched: only a hit the store returned
/// (under a stamp that has not changed since) is ever remembered. The CLI does not use it: one process per lookup.
public final class CacheHitFront<Value: Sendable>: Sendable {
    private let policy: Mutex<CacheHitFrontPolicy<Value>>

    /// - Parameters:
    ///   - capacity: the most entries remembered.
    ///   - refreshInterval: the longest an entry is answered from memory before the store is read again (the
    ///     store's LRU touch interval).
    public init(capacity: Int = 10_000, refreshInterval: TimeInterval) {
        policy = Mutex(CacheHitFrontPolicy(capacity: capacity, refreshInterval: refreshInterval))
    }

    public func answer(for key: String, stamp: UInt64?, now: Date) -> CacheHitFrontPolicy<Value>.Entry? {
        policy.withLock { $0.entry(for: key, stamp: stamp, now: now) }
    }

    @discardableResult
    public func remember(_ value: Value, for key: String, stamp: UInt64?, expiresAt: Date,
                         now: Date) -> CacheHitFrontPolicy<Value>.Entry? {
        policy.withLock { $0.remember(value, for: key, stamp: stamp, expiresAt: expiresAt, now: now) }
    }

    public var count: Int { policy.withLock { $0.count } }
}

/// A hit the front answered or remembered, handed out so that a copy further out may repeat what was built from it
/// under the front's own rules: `places serve`'s reply memo keeps the LOOKUP reply's bytes, keyed by the request's
/// bytes, and answers a repeat on the event loop (no task, no pipeline, no JSON) only while ``isCurrent`` (the store's
/// change stamp is still the one the hit was read under) and for no longer than ``lifetime`` (the cache row's expiry,
/// or sooner the front's refresh interval, so the store still sees a read about as often as its touch interval).
public struct CacheHitLease: Sendable {
    /// The store's change stamp the hit was read under.
    public let stamp: UInt64
    /// Seconds from when the lease was given out until the hit must be read from the store again.
    public let lifetime: TimeInterval
    private let currentStamp: @Sendable () -> UInt64?
    private let repeated: @Sendable () -> Void

    /// - Parameters:
    ///   - currentStamp: the store's change stamp now: synchronous and cheap (``LookupCacheStore/changeStamp()``).
    ///   - repeated: counts a repeat as the lookup-cache hit it stands for (the pipeline's metrics).
    public init(stamp: UInt64, lifetime: TimeInterval, currentStamp: @escaping @Sendable () -> UInt64?,
                repeated: @escaping @Sendable () -> Void = {}) {
        self.stamp = stamp
        self.lifetime = lifetime
        self.currentStamp = currentStamp
        self.repeated = repeated
    }

    /// Whether no write that could change or remove the hit has happened since it was read: the store's stamp is
    /// still ``stamp`` (an unknown stamp is not).
    public var isCurrent: Bool { currentStamp() == stamp }

    /// A repeat was answered from the copy: counted as the lookup-cache hit it is.
    public func noteRepeat() { repeated() }
}
