import Foundation
import LookupCache
import PostgresNIO
import Synchronization

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
    /// Watches `NOTIFY places_lookup_cache` for ``changeStamp()``; started by its first call.
    private let changes: CacheChangeListener

    /// The channel every write that can change or remove an entry notifies, in its own transaction.
    static let changeChannel = "places_lookup_cache"
    static let notifyChange: PostgresQuery = "SELECT pg_notify('places_lookup_cache', '')"

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
        changes = CacheChangeListener(database: database, channel: Self.changeChannel)
    }

    deinit { changes.stop() }

    /// Counts the notifications of every instance's cache writes (this one's included), on a connection of its own;
    /// `nil` until the LISTEN is in place and whenever the listener is down or reconnecting.
    public func changeStamp() -> UInt64? { changes.stamp() }

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
            try await connection.query(Self.notifyChange, logger: logger)
        }
        changes.changed()
    }

    /// Removes entries: all, those naming `provider`, only expired ones, or both filters together.
    /// - Returns: how many entries were removed.
    @discardableResult
    public func purge(provider: String? = nil, expiredOnly: Bool = false) async throws -> Int {
        let now = clock().timeIntervalSince1970
        let removed = try await database.withTransaction { connection in
            let logger = self.database.logger
            let removed = try await connection.query("""
                WITH gone AS (DELETE FROM lookup_cache_entry
                              WHERE (\(provider?.lowercased())::text IS NULL OR providers @> ARRAY[\(provider?.lowercased())::text])
                                AND (NOT \(expiredOnly) OR expires_at <= \(now))
                              RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger).collect().first?.decode(Int.self) ?? 0
            if removed > 0 { try await connection.query(Self.notifyChange, logger: logger) }
            return removed
        }
        if removed > 0 { changes.changed() }
        return removed
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
            defer { if total > 0 { self.changes.changed() } }
            while true {
                let removed = try await connection.query("""
                    WITH gone AS (DELETE FROM lookup_cache_entry WHERE ctid IN (
                        SELECT ctid FROM lookup_cache_entry WHERE expires_at <= \(now) LIMIT \(batchSize)) RETURNING 1)
                    SELECT count(*) FROM gone
                    """, logger: logger).collect().first?.decode(Int.self) ?? 0
                total += removed
                if removed < batchSize {
                    if total > 0 { try await connection.query(Self.notifyChange, logger: logger) }
                    return total
                }
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

/// The change stamp of one process's PostgreSQL lookup cache: a generation bumped by each `NOTIFY` on the cache's
/// channel (any instance's write), by this process's own writes, and by each (re)connection of the listener, since
/// notifications sent while it was down are lost. While the listener is not LISTENing, the stamp is `nil`.
final class CacheChangeListener: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var listening = false
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let database: SharedDatabase
    private let channel: String
    private let state = Mutex(State())

    init(database: SharedDatabase, channel: String) {
        self.database = database
        self.channel = channel
    }

    /// The generation while listening, else `nil`; the first call starts the listener.
    func stamp() -> UInt64? {
        state.withLock { state in
            if state.task == nil, !state.stopped { state.task = startListening() }
            return state.listening ? state.generation : nil
        }
    }

    /// This process changed the cache: its own next read must not trust what it remembered, even before its
    /// notification comes back.
    func changed() {
        state.withLock { $0.generation &+= 1 }
    }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.task?.cancel()
            state.listening = false
        }
    }

    /// Listens until cancelled; after a failure it is down (stamp `nil`) and retries, waiting longer each time
    /// up to a second.
    private func startListening() -> Task<Void, Never> {
        // Holds the listener (not the cache) until ``stop()``, which the cache's deinit calls.
        return Task.detached { [self] in
            var pause = Duration.milliseconds(50)
            while !Task.isCancelled {
                do {
                    try await self.database.listen(on: self.channel, ready: {
                        self.state.withLock { state in
                            state.generation &+= 1
                            state.listening = true
                        }
                    }, notified: {
                        self.state.withLock { $0.generation &+= 1 }
                    })
                } catch {}
                let wasListening = self.state.withLock { state -> Bool in
                    defer { state.listening = false; state.generation &+= 1 }
                    return state.listening
                }
                if wasListening { pause = .milliseconds(50) }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(1))
            }
        }
    }
}
