import Foundation
import Synchronization

/// The last decoded value of each recently read cache entry, kept next to the payload bytes it came from,
/// so a hot cache hit compares bytes instead of running `JSONDecoder` (a fifth of a cache-hit LOOKUP's CPU).
///
/// It is not a second cache: every request still reads its entry from the store, and only the decoding of
/// that entry's payload is skipped, when the payload is byte for byte the one decoded before. So everything
/// the shared store decides stays with the store, on SQLite and on PostgreSQL alike:
/// - an entry another instance purged or never had is a miss (the store returns nothing, the memo is not asked);
/// - an entry another instance replaced has other bytes, and is decoded again;
/// - freshness is checked on the entry the store returned, before the memo is asked, so a memo never
///   outlives the entry's TTL;
/// - the store's last-used touch (which its size cap evicts by) and its hit counts (CACHE.STATS) happen
///   on every read, as before.
///
/// (`places serve` also puts a ``CacheHitFront`` before the store read, which skips the read itself while the store's
/// change stamp holds; this memo serves the reads that still happen, and the CLI.)
///
/// Bounded by ``capacity`` entries; when full it starts over, which costs one decode per hot key.
final class DecodedPayloadMemo<Value: Sendable>: Sendable {
    private struct Stored: Sendable {
        var payload: Data
        var value: Value
    }

    let capacity: Int
    private let entries = Mutex<[String: Stored]>([:])

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The value of `payload` stored under `key`: the memoised one when the bytes are the same, else
    /// `decode(payload)` (remembered when it succeeds).
    func value(for key: String, payload: Data, decode: (Data) -> Value?) -> Value? {
        if let stored = entries.withLock({ $0[key] }), stored.payload == payload { return stored.value }
        guard let value = decode(payload) else { return nil }
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = Stored(payload: payload, value: value)
        }
        return value
    }
}
