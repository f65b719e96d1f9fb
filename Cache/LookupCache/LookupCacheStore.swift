import Foundation
import PlacesCore

/// What a cache entry says about its question.
public enum CacheEntryKind: String, Sendable, Codable {
    /// A provider (or a merge of providers) answered.
    case answer
    /// Every provider asked said "no such place". Kept for a shorter time than answers, because a
    /// new place may open; provider errors are never stored at all.
    case negative
}

/// One stored answer. Expired entries are still returned by ``LookupCacheStore/entry(for:)`` so a
/// caller can serve them as `stale` when every provider fails.
public struct CachedEntry: Sendable, Hashable {
    public var key: String
    public var kind: CacheEntryKind
    public var payload: Data
    /// The providers whose data the payload holds; `purge --provider` removes an entry naming any of them.
    public var providers: [String]
    public var storedAt: Date
    public var expiresAt: Date

    public init(key: String, kind: CacheEntryKind, payload: Data, providers: [String], storedAt: Date, expiresAt: Date) {
        self.key = key
        self.kind = kind
        self.payload = payload
        self.providers = providers
        self.storedAt = storedAt
        self.expiresAt = expiresAt
    }

    public func isFresh(at now: Date) -> Bool { now < expiresAt }
}

public struct LookupCacheConfiguration: Sendable, Hashable {
    /// The size cap: when stored payloads exceed it, the least recently used entries go first.
    public var maxBytes: Int
    /// A hit refreshes the entry's LRU stamp only when the stamp is older than this, so hits stay
    /// read-only (and fast) in the common case. LRU order is therefore exact to this granularity.
    public var touchInterval: TimeInterval

    public init(maxBytes: Int = 64 << 20, touchInterval: TimeInterval = 60) {
        self.maxBytes = max(1, maxBytes)
        self.touchInterval = touchInterval
    }
}

public struct CacheStats: Sendable, Hashable, Codable {
    public struct ProviderStats: Sendable, Hashable, Codable {
        public var provider: String
        public var entries: Int
        public var expired: Int

        public init(provider: String, entries: Int, expired: Int) {
            self.provider = provider
            self.entries = entries
            self.expired = expired
        }
    }

    public var entries: Int
    public var answers: Int
    public var negatives: Int
    public var expired: Int
    /// Stored payloads plus keys: what the size cap counts.
    public var payloadBytes: Int
    public var maxBytes: Int
    /// What the store occupies on disk (a file, or a table with its indexes); `0` when unknown.
    public var fileBytes: Int
    public var oldest: Date?
    public var newest: Date?
    /// Each provider named by an entry, in name order.
    public var providers: [ProviderStats]

    public init(entries: Int, answers: Int, negatives: Int, expired: Int, payloadBytes: Int, maxBytes: Int, fileBytes: Int,
                oldest: Date?, newest: Date?, providers: [ProviderStats]) {
        self.entries = entries
        self.answers = answers
        self.negatives = negatives
        self.expired = expired
        self.payloadBytes = payloadBytes
        self.maxBytes = maxBytes
        self.fileBytes = fileBytes
        self.oldest = oldest
        self.newest = newest
        self.providers = providers
    }
}

/// The lookup cache's whole contract: what any implementation (SQLite today, PostgreSQL next) must do,
/// checked by the shared contract suite in `Tests/LookupCacheTests/LookupCacheContract.swift`.
///
/// Keys are canonical query forms; the cache does not interpret them. TTLs are decided by the
/// caller (the shorter of configuration and the provider's terms) and stored as an absolute
/// expiry, so a later change of configuration never silently extends what was stored before.
/// Every method reads "now" from the clock the implementation was built with, never from the wall
/// clock directly, so expiry is testable without sleeping.
///
/// What every implementation guarantees:
/// - **TTLs.** ``store(key:kind:payload:providers:ttl:)`` with `ttl <= 0` stores nothing (the provider's
///   terms allow no caching); otherwise the entry expires `ttl` seconds after it was stored.
/// - **Stale-if-error.** An expired entry is still returned by ``entry(for:)`` (``CachedEntry/isFresh(at:)``
///   says so) until it is purged or evicted, so the caller may serve it when every provider fails.
/// - **Negative entries** (``CacheEntryKind/negative``) are stored, returned and counted like answers; only
///   their TTL (the caller's choice) differs.
/// - **Replace.** Storing a key again replaces the whole entry (kind, payload, providers, times), atomically:
///   a reader sees the old entry or the new one, never a mix.
/// - **Size cap.** After every store, the payload bytes (payload plus key, UTF-8) are at most
///   ``LookupCacheConfiguration/maxBytes``: least recently used entries (last stored or read, to
///   ``LookupCacheConfiguration/touchInterval``) are evicted first, in the same transaction as the store.
/// - **Purge** by provider (an entry that names the provider among its contributors; provider names are lower case)
///   and/or expired only; it returns how many entries went.
/// - **Stats** count entries, answers, negatives, expired ones and bytes, per provider too.
///
/// ```swift
/// let cache: any LookupCacheStore = try SQLiteLookupCacheStore(path: env.cacheDatabase)
/// try await cache.store(key: query.canonicalForm(grid: grid), kind: .answer, payload: data,
///                       providers: ["yelp"], ttl: 86_400)
/// if let hit = try await cache.entry(for: key), hit.isFresh(at: .now) { … }
/// ```
public protocol LookupCacheStore: Sendable {
    /// The size cap and LRU granularity this store enforces.
    var configuration: LookupCacheConfiguration { get }

    /// Where the entries live, for people (`cache stats`): a file path, or a database URL without its password.
    var location: String { get }

    /// The entry for `key`, fresh or expired; `nil` when nothing was ever stored (or it was purged or evicted).
    /// A hit counts as a use for the LRU order.
    func entry(for key: String) async throws -> CachedEntry?

    /// Stores (or replaces) an entry living `ttl` seconds, then evicts down to the size cap, as one atomic step.
    /// A TTL of zero or less stores nothing, which is how "these terms allow no caching" is honoured.
    func store(key: String, kind: CacheEntryKind, payload: Data, providers: [String], ttl: TimeInterval) async throws

    /// Removes entries: all (both filters off), those naming `provider`, only expired ones, or both filters together.
    /// - Returns: how many entries were removed.
    @discardableResult
    func purge(provider: String?, expiredOnly: Bool) async throws -> Int

    /// Gives the space of deleted entries back to the file system (SQLite `VACUUM`, PostgreSQL `VACUUM`).
    func vacuum() async throws

    func stats() async throws -> CacheStats

    /// Runs `body` as the only filler of `key` among every process sharing this cache, so a question that misses
    /// in two instances at once is asked upstream once: the second waits, then (re-reading the cache first, as
    /// `body` must) finds the first one's answer. A cache only one process uses needs no lock (the default):
    /// in-process single flight already shares the call. `timeout` bounds the wait plus `body`.
    func withFillLock<T: Sendable>(key: String, timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T

    /// A number that changes whenever any process sharing this store may have changed or removed an entry (a store,
    /// a purge, an eviction), read *before* a store read so that an in-process copy of what that read returned can
    /// be trusted while the number stays the same. `nil` when the store cannot tell right now (PostgreSQL's change
    /// listener is down or not connected yet): nothing may then be answered from memory. The first call may start
    /// the watching (a listener connection), so a process that never asks pays nothing. Synchronous and cheap (no
    /// network round trip, never a wait on a busy database): `places serve` reads it on the event loop for every
    /// LOOKUP its reply memo answers.
    func changeStamp() -> UInt64?
}

extension LookupCacheStore {
    public func withFillLock<T: Sendable>(key: String, timeout: Duration,
                                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    /// No stamp: a store that cannot tell when others change it is never answered from memory.
    public func changeStamp() -> UInt64? { nil }
}

