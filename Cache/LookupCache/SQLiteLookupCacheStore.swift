import Foundation
import GRDB
import PlacesCore
import StoreSupport

/// The SQLite lookup cache: one file in the user's cache directory, WAL, so readers never wait for the writer.
///
/// SQLite calls are synchronous and short (a hit is one indexed read), so the `async` methods run them
/// on the caller's task rather than hopping to another thread.
public final class SQLiteLookupCacheStore: LookupCacheStore {
    public let path: URL
    public var location: String { path.path }
    public let configuration: LookupCacheConfiguration
    private let database: any DatabaseWriter
    private let clock: @Sendable () -> Date
    /// ``changeStamp()``'s own connection to the file.
    private let dataVersion: DataVersionStamp

    public init(path: URL, configuration: LookupCacheConfiguration = LookupCacheConfiguration(),
                clock: @escaping @Sendable () -> Date = { Date() }, concurrentReaders: Bool = true) throws {
        self.path = path
        self.configuration = configuration
        self.clock = clock
        dataVersion = DataVersionStamp(path: path)
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        database = try StoreDatabase.open(name: "lookup cache", path: path, configuration: config, migrator: Self.migrator,
                                          concurrentReaders: concurrentReaders)
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

    public func entry(for key: String) async throws -> CachedEntry? {
        let now = clock()
        let found = try await database.read { db -> (CachedEntry, Double)? in
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
            try await database.write { db in
                try db.execute(sql: "UPDATE entry SET last_used_at = ? WHERE key = ?",
                               arguments: [now.timeIntervalSince1970, key])
            }
        }
        return entry
    }

    public func store(key: String, kind: CacheEntryKind, payload: Data, providers: [String], ttl: TimeInterval) async throws {
        guard ttl > 0 else { return }
        let now = clock().timeIntervalSince1970
        let providerList = "," + Set(providers).sorted().joined(separator: ",") + ","
        let size = payload.count + key.utf8.count
        try await database.write { db in
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

    @discardableResult
    public func purge(provider: String?, expiredOnly: Bool) async throws -> Int {
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
        let filter = arguments
        let whereClause = clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ")
        return try await database.write { db in
            try db.execute(sql: "DELETE FROM entry" + whereClause, arguments: filter)
            return db.changesCount
        }
    }

    /// `PRAGMA data_version` on a connection used for nothing else: it changes whenever another connection or
    /// process commits to the file, this process's own writes included. `nil` when it cannot be
    /// read. It never waits for a busy file (a busy file reads as unknown, which sends the lookup to the store): the
    /// server reads it on its event loop.
    public func changeStamp() -> UInt64? {
        dataVersion.read()
    }

    public func vacuum() async throws {
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    public func stats() async throws -> CacheStats {
        let now = clock().timeIntervalSince1970
        return try await database.read { db in
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
