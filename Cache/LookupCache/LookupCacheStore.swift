import Foundation
import GRDB
import PlacesCore
import StoreSupport

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
    public var payloadBytes: Int
    public var maxBytes: Int
    public var fileBytes: Int
    public var oldest: Date?
    public var newest: Date?
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

/// The SQLite TTL cache in front of the lookup pipeline (WAL, so readers never wait for the writer).
///
/// Keys are canonical query forms; the cache does not interpret them. TTLs are decided by the
/// caller (the shorter of configuration and the provider's terms) and stored as an absolute
/// expiry, so a later change of configuration never silently extends what was stored before.
///
/// ```swift
/// let cache = try LookupCacheStore(path: env.cacheDatabase)
/// try cache.store(key: query.canonicalForm(grid: grid), kind: .answer, payload: data,
///                 providers: ["yelp"], ttl: 86_400)
/// if let hit = try cache.entry(for: key), hit.isFresh(at: .now) { … }
/// ```
public final class LookupCacheStore: Sendable {
    public let path: URL
    public let configuration: LookupCacheConfiguration
    private let pool: DatabasePool
    private let clock: @Sendable () -> Date

    public init(path: URL, configuration: LookupCacheConfiguration = LookupCacheConfiguration(),
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.path = path
        self.configuration = configuration
        self.clock = clock
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try StoreDatabase.open(name: "lookup cache", path: path, configuration: config, migrator: Self.migrator)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE entry (
                    key TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    providers TEXT NOT NULL,      -- ",yelp,google," so one LIKE finds a provider
                    stored_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    last_used_at REAL NOT NULL,
                    size INTEGER NOT NULL
                );
                CREATE INDEX entry_lru ON entry(last_used_at);
                CREATE INDEX entry_expiry ON entry(expires_at);
                """)
        }
        return migrator
    }

    /// The entry for `key`, fresh or expired; `nil` when nothing was ever stored (or it was evicted).
    public func entry(for key: String) throws -> CachedEntry? {
        let now = clock()
        let found = try pool.read { db -> (CachedEntry, Double)? in
            // A cached statement: hits are the hot path, and compiling the SQL each time would double their cost.
            let statement = try db.cachedStatement(sql: """
                SELECT kind, payload, providers, stored_at, expires_at, last_used_at FROM entry WHERE key = ?
                """)
            // Decoded on the cursor: a copied row (`fetchOne`) lower-cases every column name on each named access.
            return try Row.fetchCursor(statement, arguments: [key]).map { row -> (CachedEntry, Double) in
                let providers = (row["providers"] as String).split(separator: ",").map(String.init)
                let entry = CachedEntry(
                    key: key, kind: CacheEntryKind(rawValue: row["kind"]) ?? .answer, payload: row["payload"],
                    providers: providers, storedAt: Date(timeIntervalSince1970: row["stored_at"]),
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
                return (entry, row["last_used_at"])
            }.next()
        }
        guard let (entry, lastUsed) = found else { return nil }
        if now.timeIntervalSince1970 - lastUsed >= configuration.touchInterval {
            try pool.write { db in
                try db.execute(sql: "UPDATE entry SET last_used_at = ? WHERE key = ?",
                               arguments: [now.timeIntervalSince1970, key])
            }
        }
        return entry
    }

    /// Stores (or replaces) an entry living `ttl` seconds; a TTL of zero or less stores nothing,
    /// which is how "these terms allow no caching" is honoured.
    public func store(key: String, kind: CacheEntryKind, payload: Data, providers: [String], ttl: TimeInterval) throws {
        guard ttl > 0 else { return }
        let now = clock().timeIntervalSince1970
        let providerList = "," + Set(providers).sorted().joined(separator: ",") + ","
        let size = payload.count + key.utf8.count
        try pool.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO entry (key, kind, payload, providers, stored_at, expires_at, last_used_at, size)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [key, kind.rawValue, payload, providerList, now, now + ttl, now, size])
            try evictLeastRecentlyUsed(db)
        }
    }

    private func evictLeastRecentlyUsed(_ db: Database) throws {
        var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") ?? 0
        guard total > configuration.maxBytes else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT key, size FROM entry ORDER BY last_used_at, stored_at")
        var victims: [String] = []
        while total > configuration.maxBytes, let row = try rows.next() {
            victims.append(row["key"])
            total -= row["size"] as Int
        }
        for key in victims {
            try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [key])
        }
    }

    /// Removes entries: all, those naming `provider`, only expired ones, or both filters together.
    /// - Returns: how many entries were removed.
    @discardableResult
    public func purge(provider: String? = nil, expiredOnly: Bool = false) throws -> Int {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if let provider {
            clauses.append("providers LIKE ?")
            _ = arguments.append(contentsOf: ["%," + provider.lowercased() + ",%"])
        }
        if expiredOnly {
            clauses.append("expires_at <= ?")
            _ = arguments.append(contentsOf: [clock().timeIntervalSince1970])
        }
        let whereClause = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
        return try pool.write { db in
            try db.execute(sql: "DELETE FROM entry" + whereClause, arguments: arguments)
            return db.changesCount
        }
    }

    /// Gives the space of deleted entries back to the file system.
    public func vacuum() throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    public func stats() throws -> CacheStats {
        let now = clock().timeIntervalSince1970
        return try pool.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS entries,
                       COALESCE(SUM(kind = 'answer'), 0) AS answers,
                       COALESCE(SUM(kind = 'negative'), 0) AS negatives,
                       COALESCE(SUM(expires_at <= ?), 0) AS expired,
                       COALESCE(SUM(size), 0) AS bytes,
                       MIN(stored_at) AS oldest, MAX(stored_at) AS newest
                FROM entry
                """, arguments: [now])!
            var perProvider: [String: (Int, Int)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT providers, expires_at <= ? AS expired FROM entry", arguments: [now]) {
                for provider in (row["providers"] as String).split(separator: ",").map(String.init) {
                    var counts = perProvider[provider, default: (0, 0)]
                    counts.0 += 1
                    if row["expired"] as Bool { counts.1 += 1 }
                    perProvider[provider] = counts
                }
            }
            let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return CacheStats(
                entries: row["entries"], answers: row["answers"], negatives: row["negatives"], expired: row["expired"],
                payloadBytes: row["bytes"], maxBytes: configuration.maxBytes, fileBytes: pageCount * pageSize,
                oldest: (row["oldest"] as Double?).map(Date.init(timeIntervalSince1970:)),
                newest: (row["newest"] as Double?).map(Date.init(timeIntervalSince1970:)),
                providers: perProvider.keys.sorted().map {
                    CacheStats.ProviderStats(provider: $0, entries: perProvider[$0]!.0, expired: perProvider[$0]!.1)
                })
        }
    }
}
