import Foundation
import GRDB
import PostgresNIO

/// `places storage migrate --to postgres://…`: copies one home's SQLite cache, ledger and spots into PostgreSQL, so a
/// user who started alone moves to shared state without losing spots or spend history.
///
/// Each table is copied in one transaction, and copying again changes nothing:
/// - spots and visits by their ids, cache entries by their keys, limits by scope and period: rows PostgreSQL already
///   has are kept as they are (they may be newer than the file);
/// - charges once per source file: `places_import` remembers which SQLite ledger was copied (charges have no natural
///   key), and the running totals are rebuilt from the charges in the same transaction.
/// A missing file is nothing to copy, not an error.
public enum SQLiteImport {
    /// The three files of one `$PLACES_HOME`.
    public struct Files: Sendable {
        public var cache: URL
        public var ledger: URL
        public var spots: URL

        public init(cache: URL, ledger: URL, spots: URL) {
            self.cache = cache
            self.ledger = ledger
            self.spots = spots
        }
    }

    /// What was copied, table by table; `skipped` rows were already in PostgreSQL.
    public struct Report: Sendable, Hashable, CustomStringConvertible {
        public struct Count: Sendable, Hashable {
            public var copied = 0
            public var skipped = 0

            public init(copied: Int = 0, skipped: Int = 0) {
                self.copied = copied
                self.skipped = skipped
            }
        }

        public var cacheEntries = Count()
        public var charges = Count()
        public var limits = Count()
        public var spots = Count()
        public var visits = Count()

        public init() {}

        public var description: String {
            [("spots", spots), ("visits", visits), ("budget charges", charges), ("budget limits", limits), ("cache entries", cacheEntries)]
                .map { "\($0.0): \($0.1.copied) copied, \($0.1.skipped) already there" }.joined(separator: "\n")
        }
    }

    public static func copy(_ files: Files, into database: SharedDatabase) async throws -> Report {
        try await database.schema.ensure(database)
        var report = Report()
        if let source = try open(files.spots) {
            let (spots, places, visits) = try await source.read { db in
                (try CopiedRow.all(db, "SELECT * FROM spot ORDER BY rowid"),
                 try CopiedRow.all(db, "SELECT spot.id AS spot_id, place_id FROM spot_place JOIN spot ON spot.rowid = spot_place.spot_rowid"),
                 try CopiedRow.all(db, "SELECT * FROM visit ORDER BY time, id"))
            }
            report.spots = try await copySpots(spots, places: places, database)
            report.visits = try await copyRows(visits, database) { row, connection in
                try await connection.query("""
                    INSERT INTO visit (id, spot_id, time, time_zone, local_day, lat, lon, note, photo_path, street, house_number, city, country)
                    VALUES (\(try row.get("id", String.self)), \(row.optional("spot_id", String.self)), \(try row.get("time", Double.self)), \(try row.get("time_zone", String.self)),
                            \(try row.get("local_day", String.self)), \(try row.get("lat", Double.self)), \(try row.get("lon", Double.self)), \(row.optional("note", String.self)),
                            \(row.optional("photo_path", String.self)), \(row.optional("street", String.self)),
                            \(row.optional("house_number", String.self)), \(row.optional("city", String.self)), \(row.optional("country", String.self)))
                    ON CONFLICT (id) DO NOTHING RETURNING 1
                    """, logger: database.logger).collect().count
            }
        }
        if let source = try open(files.ledger) {
            let (charges, limits) = try await source.read { db in
                (try CopiedRow.all(db, "SELECT * FROM charge ORDER BY id"), try CopiedRow.all(db, "SELECT * FROM budget_limit"))
            }
            report.limits = try await copyRows(limits, database) { row, connection in
                try await connection.query("""
                    INSERT INTO budget_limit (scope, period, amount) VALUES (\(try row.get("scope", String.self)), \(try row.get("period", String.self)), \(row.optional("amount", Int64.self)))
                    ON CONFLICT (scope, period) DO NOTHING RETURNING 1
                    """, logger: database.logger).collect().count
            }
            report.charges = try await copyCharges(charges, source: files.ledger.standardizedFileURL.path, database)
        }
        if let source = try open(files.cache) {
            let entries = try await source.read { db in try CopiedRow.all(db, "SELECT * FROM entry") }
            report.cacheEntries = try await copyRows(entries, database) { row, connection in
                let providers = (try row.get("providers", String.self)).split(separator: ",").map(String.init)
                return try await connection.query("""
                    INSERT INTO lookup_cache_entry (key, kind, payload, providers, stored_at, expires_at, last_used_at, size)
                    VALUES (\(try row.get("key", String.self)), \(try row.get("kind", String.self)), \(ByteBuffer(data: try row.get("payload", Data.self))), \(providers),
                            \(try row.get("stored_at", Double.self)), \(try row.get("expires_at", Double.self)), \(try row.get("last_used_at", Double.self)), \(try row.get("size", Int.self)))
                    ON CONFLICT (key) DO NOTHING RETURNING 1
                    """, logger: database.logger).collect().count
            }
        }
        return report
    }

    private static func open(_ file: URL) throws -> DatabaseQueue? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: file.path, configuration: configuration)
    }

    /// Copies `rows` in one transaction; `insert` returns 1 when the row was new, 0 when PostgreSQL had it.
    private static func copyRows(_ rows: [CopiedRow], _ database: SharedDatabase,
                                 _ insert: @escaping @Sendable (CopiedRow, PostgresConnection) async throws -> Int) async throws -> Report.Count {
        try await database.withTransaction(timeout: .seconds(600)) { connection in
            var count = Report.Count()
            for row in rows {
                if try await insert(row, connection) == 1 { count.copied += 1 } else { count.skipped += 1 }
            }
            return count
        }
    }

    private static func copySpots(_ spots: [CopiedRow], places: [CopiedRow], _ database: SharedDatabase) async throws -> Report.Count {
        var placesBySpot: [String: [String]] = [:]
        for row in places { placesBySpot[try row.get("spot_id", String.self), default: []].append(try row.get("place_id", String.self)) }
        return try await copyRows(spots, database) { [placesBySpot] row, connection in
            let inserted = try await connection.query("""
                INSERT INTO spot (id, name, folded_name, lat, lon, category, tags, notes, rating, address, url, created_at, updated_at,
                                  place_ids, snapshot, snapshot_fetched_at, snapshot_source)
                VALUES (\(try row.get("id", String.self)), \(try row.get("name", String.self)), \(try row.get("folded_name", String.self)), \(try row.get("lat", Double.self)),
                        \(try row.get("lon", Double.self)), \(row.optional("category", String.self)), \(try row.get("tags", String.self)), \(row.optional("notes", String.self)),
                        \(row.optional("rating", String.self)), \(row.optional("address", String.self)), \(row.optional("url", String.self)), \(try row.get("created_at", Double.self)),
                        \(try row.get("updated_at", Double.self)), \(try row.get("place_ids", String.self)), \(row.optional("snapshot", String.self)),
                        \(row.optional("snapshot_fetched_at", Double.self)), \(row.optional("snapshot_source", String.self)))
                ON CONFLICT (id) DO NOTHING RETURNING rowid
                """, logger: database.logger).collect()
            guard let rowid = try inserted.first?.decode(Int64.self) else { return 0 }
            let placeIDs = placesBySpot[try row.get("id", String.self)] ?? []
            if !placeIDs.isEmpty {
                try await connection.query("INSERT INTO spot_place (spot_rowid, place_id) SELECT \(rowid), unnest(\(placeIDs)::text[])",
                                           logger: database.logger)
            }
            return 1
        }
    }

    private static func copyCharges(_ charges: [CopiedRow], source: String, _ database: SharedDatabase) async throws -> Report.Count {
        try await database.withTransaction(timeout: .seconds(600)) { connection in
            let logger = database.logger
            // The ledger's lock: no reservation interleaves with the copy and the rebuilt totals.
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresBudgetLedger.lockKey))", logger: logger)
            let fresh = try await connection.query("""
                INSERT INTO places_import (source, what) VALUES (\(source), 'budget charges') ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger).collect()
            guard !fresh.isEmpty else { return Report.Count(copied: 0, skipped: charges.count) }
            for row in charges {
                try await connection.query("""
                    INSERT INTO budget_charge (provider, sku, cost, list_price, state, day, month, created_at)
                    VALUES (\(try row.get("provider", String.self)), \(try row.get("sku", String.self)), \(try row.get("cost", Int64.self)), \(try row.get("list_price", Int64.self)),
                            \(try row.get("state", String.self)), \(try row.get("day", String.self)), \(try row.get("month", String.self)), \(try row.get("created_at", Double.self)))
                    """, logger: logger)
            }
            try await PostgresBudgetLedger.rebuildTotals(connection, logger: logger)
            return Report.Count(copied: charges.count, skipped: 0)
        }
    }
}

/// A SQLite row copied out of GRDB (whose `Row` cannot cross tasks), read by column name.
struct CopiedRow: Sendable {
    private let values: [String: DatabaseValue]

    static func all(_ db: Database, _ sql: String) throws -> [CopiedRow] {
        try Row.fetchAll(db, sql: sql).map { row in
            CopiedRow(values: Dictionary(row.columnNames.map { ($0, row[$0] as DatabaseValue) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The column's value; a missing or mistyped one (a damaged file) is an error naming the column, not a crash.
    func get<T: DatabaseValueConvertible>(_ column: String, _ type: T.Type) throws -> T {
        guard let value = optional(column, type) else { throw DamagedSQLiteRow(column: column) }
        return value
    }

    func optional<T: DatabaseValueConvertible>(_ column: String, _ type: T.Type) -> T? {
        values[column].flatMap(T.fromDatabaseValue)
    }
}

/// A row of the SQLite file lacks a value the copy needs.
public struct DamagedSQLiteRow: Error, Sendable, CustomStringConvertible {
    public var column: String
    public var description: String { "the SQLite file has a row without a usable '\(column)'; nothing of that table was copied" }
}
