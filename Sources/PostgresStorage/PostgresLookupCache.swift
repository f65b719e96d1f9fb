import Foundation
import LookupCache
import PostgresNIO

/// The lookup cache on PostgreSQL: the SQLite ``LookupCacheStore``'s keys, absolute expiries, negative entries,
/// stale-if-error reads and LRU size cap, shared by every instance.
///
/// Two things exist only here, because only here do several processes share the entries:
/// - ``withFillLock(key:timeout:_:)``: cross-instance single flight. The first instance to miss a key takes a
///   transaction-scoped advisory lock on the key's hash; another instance missing the same key waits on it, then
///   reads the cache again and finds the answer the first one stored, so the provider is called once.
/// - ``purgeExpired(batchSize:)``: the periodic purge, which one instance at a time runs (a try-lock), in batches.
public final class PostgresLookupCache: LookupCacheStore {
    public let database: SharedDatabase
    public let configuration: LookupCacheConfiguration
    private let clock: @Sendable () -> Date

    /// Names "single flight of the lookup cache" among advisory locks (the two-key form: this, and the key's hash).
    static let fillLockNamespace: Int32 = 0x706C_6366  // "plcf"
    /// Names "the periodic purge".
    static let purgeLockKey: Int64 = 0x706C_6163_6573_5031  // "placesP1"

    /// The database's URL, password redacted.
    public var location: String { database.configuration.url.description }

    public init(database: SharedDatabase, configuration: LookupCacheConfiguration = LookupCacheConfiguration(),
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.configuration = configuration
        self.clock = clock
    }

    /// The hot path: one prepared statement per hit.
    struct EntryStatement: PostgresPreparedStatement {
        static let sql = "SELECT kind, payload, providers, stored_at, expires_at, last_used_at FROM lookup_cache_entry WHERE key = $1"
        typealias Row = (String, ByteBuffer, [String], Double, Double, Double)
        var key: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(key)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The entry for `key`, fresh or expired; `nil` when nothing was ever stored (or it was evicted).
    public func entry(for key: String) async throws -> CachedEntry? {
        let now = clock().timeIntervalSince1970
        guard let (kind, payload, providers, storedAt, expiresAt, lastUsed) = try await database.execute(EntryStatement(key: key)).first else {
            return nil
        }
        if now - lastUsed >= configuration.touchInterval {
            _ = try await database.rows("UPDATE lookup_cache_entry SET last_used_at = \(now) WHERE key = \(key)")
        }
        return CachedEntry(key: key, kind: CacheEntryKind(rawValue: kind) ?? .answer, payload: Data(buffer: payload),
                           providers: providers, storedAt: Date(timeIntervalSince1970: storedAt),
                           expiresAt: Date(timeIntervalSince1970: expiresAt))
    }

    /// Stores (or replaces) an entry living `ttl` seconds; a TTL of zero or less stores nothing. Past the size cap,
    /// the least recently used entries go.
    public func store(key: String, kind: CacheEntryKind, payload: Data, providers: [String], ttl: TimeInterval) async throws {
        guard ttl > 0 else { return }
        let now = clock().timeIntervalSince1970
        let providerList = Set(providers).sorted()
        let size = payload.count + key.utf8.count
        let maxBytes = configuration.maxBytes
        try await database.withTransaction { connection in
            let logger = self.database.logger
            try await connection.query("""
                INSERT INTO lookup_cache_entry (key, kind, payload, providers, stored_at, expires_at, last_used_at, size)
                VALUES (\(key), \(kind.rawValue), \(ByteBuffer(data: payload)), \(providerList), \(now), \(now + ttl), \(now), \(size))
                ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, payload = EXCLUDED.payload, providers = EXCLUDED.providers,
                    stored_at = EXCLUDED.stored_at, expires_at = EXCLUDED.expires_at, last_used_at = EXCLUDED.last_used_at,
                    size = EXCLUDED.size
                """, logger: logger)
            // Keep the most recently used entries whose sizes add up to the cap; the rest go.
            try await connection.query("""
                DELETE FROM lookup_cache_entry WHERE key IN (
                    SELECT key FROM (SELECT key, sum(size) OVER (ORDER BY last_used_at DESC, stored_at DESC, key) AS running
                                     FROM lookup_cache_entry) ranked
                    WHERE running > \(maxBytes))
                """, logger: logger)
        }
    }

    /// Removes entries: all, those naming `provider`, only expired ones, or both filters together.
    /// - Returns: how many entries were removed.
    @discardableResult
    public func purge(provider: String? = nil, expiredOnly: Bool = false) async throws -> Int {
        let now = clock().timeIntervalSince1970
        let rows = try await database.rows("""
            WITH gone AS (DELETE FROM lookup_cache_entry
                          WHERE (\(provider?.lowercased())::text IS NULL OR providers @> ARRAY[\(provider?.lowercased())::text])
                            AND (NOT \(expiredOnly) OR expires_at <= \(now))
                          RETURNING 1)
            SELECT count(*) FROM gone
            """)
        return try rows.first?.decode(Int.self) ?? 0
    }

    /// The periodic purge: deletes expired entries in batches, unless another instance is purging right now
    /// (then it returns `nil` at once rather than doing the same work twice).
    /// - Returns: how many entries were removed, or `nil` when another instance holds the purge.
    public func purgeExpired(batchSize: Int = 10_000) async throws -> Int? {
        let now = clock().timeIntervalSince1970
        return try await database.withTransaction { connection in
            let logger = self.database.logger
            let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.purgeLockKey))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard locked else { return nil }
            var total = 0
            while true {
                let removed = try await connection.query("""
                    WITH gone AS (DELETE FROM lookup_cache_entry WHERE ctid IN (
                        SELECT ctid FROM lookup_cache_entry WHERE expires_at <= \(now) LIMIT \(batchSize)) RETURNING 1)
                    SELECT count(*) FROM gone
                    """, logger: logger).collect().first?.decode(Int.self) ?? 0
                total += removed
                if removed < batchSize { return total }
            }
        }
    }

    /// Cross-instance single flight: runs `body` holding an advisory lock on `key`'s hash, so only one instance (and
    /// one task) at a time fills the same key. `body` should read the cache again first: when it waited, the
    /// answer is usually there. The lock lives on a connection of its own pool and ends with its transaction.
    /// - Parameter timeout: how long to wait for the lock plus run `body` (the provider's timeout and some).
    public func withFillLock<T: Sendable>(key: String, timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await database.withTransaction(timeout: timeout, pool: .locks) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.fillLockNamespace), hashtext(\(key)))",
                                       logger: self.database.logger)
            return try await body()
        }
    }

    /// Gives the space of deleted entries back.
    public func vacuum() async throws {
        _ = try await database.rows("VACUUM lookup_cache_entry")
    }

    public func stats() async throws -> CacheStats {
        let now = clock().timeIntervalSince1970
        let maxBytes = configuration.maxBytes
        return try await database.withTransaction { connection in
            let logger = self.database.logger
            let totals = try await connection.query("""
                SELECT count(*), count(*) FILTER (WHERE kind = 'answer'), count(*) FILTER (WHERE kind = 'negative'),
                       count(*) FILTER (WHERE expires_at <= \(now)), COALESCE(sum(size), 0)::bigint, min(stored_at), max(stored_at),
                       pg_total_relation_size('lookup_cache_entry')
                FROM lookup_cache_entry
                """, logger: logger).collect().first!.decode((Int, Int, Int, Int, Int64, Double?, Double?, Int64).self)
            var perProvider: [CacheStats.ProviderStats] = []
            for try await (provider, entries, expired) in try await connection.query("""
                SELECT provider, count(*), count(*) FILTER (WHERE expires_at <= \(now))
                FROM lookup_cache_entry, unnest(providers) AS provider GROUP BY provider ORDER BY provider
                """, logger: logger).decode((String, Int, Int).self) {
                perProvider.append(CacheStats.ProviderStats(provider: provider, entries: entries, expired: expired))
            }
            return CacheStats(entries: totals.0, answers: totals.1, negatives: totals.2, expired: totals.3,
                              payloadBytes: Int(totals.4), maxBytes: maxBytes, fileBytes: Int(totals.7),
                              oldest: totals.5.map(Date.init(timeIntervalSince1970:)),
                              newest: totals.6.map(Date.init(timeIntervalSince1970:)), providers: perProvider)
        }
    }
}
