import Foundation
import GRDB
import PlacesCore
import StoreSupport

/// The local place index: OSM objects and GeoNames cities in one SQLite file.
///
/// Names are in an FTS5 table over the place rows' prepared words (`unicode61 remove_diacritics 2` with
/// prefix indexes, so "cafe" finds "Café" and "caf" completes it), positions in one R*Tree (POIs, address points and cities),
/// and GeoNames cities also in their own table (population, zone, country), indexed by grid cell
/// for reverse geocoding. Schema changes go only through ``migrator``.
///
/// ```swift
/// let index = try PlaceIndexStore(path: URL(fileURLWithPath: "index.sqlite"))
/// let hits = try index.search(text: "maya bar", near: Coordinate(latitude: 60.1721, longitude: 24.9450))
/// ```
///
/// Writes happen through ``write(_:)``, one transaction per import, so a failed import leaves
/// the index exactly as it was.
public final class PlaceIndexStore: Sendable {
    let database: any DatabaseWriter
    /// What a serving process keeps in memory from the index (cities for ``timeZones(near:)``, ``sources()``);
    /// `nil` in one-command processes.
    let inMemory: IndexInMemory?

    /// Opens (creating if needed) the index at `path`, in WAL mode so readers never wait for an import.
    /// - Parameters:
    ///   - concurrentReaders: `true` for a pool whose reads run in parallel (`places serve`), `false` for
    ///     one connection that writes nothing as it opens (one command); see ``StoreDatabase/connect(path:configuration:concurrentReaders:)``.
    ///   - keepInMemory: keep what requests read again and again (the cities for ``timeZones(near:)``, the
    ///     imported files) in memory, per version of the file (``IndexInMemory``): for a process that answers many requests.
    public init(path: URL, concurrentReaders: Bool = true, keepInMemory: Bool = false) throws {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // An import touches the R*Tree and FTS pages all over; with SQLite's default 2 MB cache they
            // spill to the WAL mid-transaction and are read back. 64 MB is allocated only as used.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
        }
        database = try StoreDatabase.connect(path: path, configuration: configuration, concurrentReaders: concurrentReaders)
        inMemory = keepInMemory ? IndexInMemory(path: path) : nil
        try Self.migrator.migrate(database)
    }

    /// Opens the index at `path` and checks that the file is whole, or throws ``PlaceIndexDamage`` when
    /// it is not a usable database (truncated, overwritten, not SQLite): the cue to set it aside and rebuild.
    /// The check is cheap (the header's page count against the file's size, and one read of each table).
    public static func openVerified(path: URL, concurrentReaders: Bool = true, keepInMemory: Bool = false) throws -> PlaceIndexStore {
        do {
            let store = try PlaceIndexStore(path: path, concurrentReaders: concurrentReaders, keepInMemory: keepInMemory)
            try store.verify(path: path)
            return store
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw PlaceIndexDamage(path: path, reason: error.resultCode == .SQLITE_NOTADB ? "not a database" : "corrupt")
        }
    }

    private func verify(path: URL) throws {
        let (pages, pageSize) = try database.read { db in
            (try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
        let mainBytes = fileSize(atPath: path.path) ?? 0
        let walBytes = fileSize(atPath: path.path + "-wal") ?? 0
        // With an empty WAL every page lives in the main file; a shorter file lost its end.
        if walBytes == 0, mainBytes < pages * pageSize {
            throw PlaceIndexDamage(path: path, reason: "truncated: \(mainBytes) of \(pages * pageSize) bytes")
        }
        try database.read { db in
            _ = try Row.fetchAll(db, sql: "SELECT * FROM source")
            _ = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM place")
            _ = try Int64.fetchOne(db, sql: "SELECT max(geonameid) FROM city")
            // One whole word: it reads the full-text index's structure and looks the word up in every segment.
            // The prefix query `a*` that was here read the doclists of every word starting with "a": 10 M
            // instructions, a sixth of all a warm `places search` executes.
            _ = try Int64.fetchOne(db, sql: "SELECT rowid FROM place_fts WHERE place_fts MATCH 'x' LIMIT 1")
            _ = try Int64.fetchOne(db, sql: "SELECT id FROM place_rtree WHERE min_lat >= 0 LIMIT 1")
        }
    }

    private init(database: any DatabaseWriter) throws {
        self.database = database
        inMemory = nil
        try Self.migrator.migrate(database)
    }

    /// An index that lives in memory only: for tests and benchmarks.
    public static func inMemory() throws -> PlaceIndexStore {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)") }
        return try PlaceIndexStore(database: DatabaseQueue(configuration: configuration))
    }

    /// True before anything was imported: the cue to build the index from the bundled data.
    public var isEmpty: Bool {
        get throws {
            try database.read { db in
                try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM place) AND NOT EXISTS (SELECT 1 FROM city)") ?? true
            }
        }
    }

    /// How much the index holds: POIs and cities, GeoNames cities, streets and areas, and address points.
    public func counts() throws -> PlaceIndexCounts {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM place WHERE kind IN ('poi', 'city')),
                       (SELECT count(*) FROM city),
                       (SELECT count(*) FROM place WHERE kind IN ('street', 'area')),
                       (SELECT count(*) FROM place WHERE kind = 'address')
                """)!
            return PlaceIndexCounts(places: row[0], cities: row[1], streetsAndAreas: row[2], addressPoints: row[3])
        }
    }

    /// The files imported so far, newest first, with what each one was and what it added. Every local search
    /// reads them (for its notes): a serving process from memory (``IndexInMemory``).
    public func sources() throws -> [IndexedSource] {
        if let snapshot = snapshotInMemory() { return snapshot.sources }
        return try database.read(Self.sources)
    }

    static func sources(_ db: Database) throws -> [IndexedSource] {
        // A statement prepared once per connection.
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT name, kind, imported_at, places, cities, bytes, checksum, format, address_points, names,
                   min_lat, max_lat, min_lon, max_lon
            FROM source ORDER BY imported_at DESC
            """)).map { row in
            var bounds: IndexedSource.Bounds?
            if let minLat = row[10] as Double?, let maxLat = row[11] as Double?, let minLon = row[12] as Double?,
               let maxLon = row[13] as Double? {
                bounds = IndexedSource.Bounds(minLatitude: minLat, maxLatitude: maxLat, minLongitude: minLon, maxLongitude: maxLon)
            }
            return IndexedSource(
                name: row[0], kind: row[1], importedAt: Date(timeIntervalSince1970: row[2]), places: row[3], cities: row[4],
                bytes: row[5], checksum: row[6], format: row[7], addressPoints: row[8], names: row[9], bounds: bounds)
        }
    }

    /// Reads what a serving process keeps in memory (``IndexInMemory``) now, so that its first request does not
    /// wait for it (a tenth of a second for cities1000). Nothing in a one-command process.
    public func readIntoMemory() {
        _ = snapshotInMemory()
    }

    /// Runs `body` in one read transaction, one snapshot of the index, as `database.read` does, but with `BEGIN` and
    /// `COMMIT` prepared once per connection: GRDB's transactions prepare them afresh each time, with their savepoint
    /// bookkeeping ~4 % of a one-client `SEARCH`'s CPU in `places serve` (perf).
    func readInOneTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try database.unsafeRead { db in
            guard !db.isInsideTransaction else { return try body(db) }
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            do {
                let value = try body(db)
                try db.cachedStatement(sql: "COMMIT").execute()
                return value
            } catch {
                // Never hand the connection back inside a transaction: its next reader would see this snapshot.
                if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK").execute() }
                throw error
            }
        }
    }

    /// The index as a serving process keeps it in memory now, or `nil` (one command; being read; unknown version).
    func snapshotInMemory() -> IndexInMemory.Snapshot? {
        inMemory?.current { stamp in
            try database.read { db in
                IndexInMemory.Snapshot(stamp: stamp, cities: try CityTable.read(db), sources: try Self.sources(db))
            }
        }
    }

    /// Runs `body` in one write transaction: everything it inserts becomes visible together, and if it
    /// throws, nothing it did remains.
    /// - Parameter statementJournalsInMemory: keep the transaction's statement journals (each row statement's
    ///   copy of the pages it changes, for undoing that statement alone) in memory. Otherwise, once one
    ///   statement's journal outgrew 64 KB and spilled to a temporary file, every later row's journal was
    ///   written there: on cities1000 a 4 KB `pwrite` per page touched, ~7,800 a second (`strace`), a fifth of
    ///   the inserting thread's `perf` samples. For imports of a bounded size: a statement that changes much
    ///   of a big index (replacing a whole extract) would hold a copy of each page it changes.
    public func write<T>(statementJournalsInMemory: Bool = false, _ body: (PlaceIndexWriter) throws -> T) throws -> T {
        try database.writeWithoutTransaction { db in
            // Set outside a transaction: SQLite picks where statement journals go when one begins.
            if statementJournalsInMemory { try db.execute(sql: "PRAGMA temp_store = MEMORY") }
            defer { if statementJournalsInMemory { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") } }
            var result: T?
            let writer = PlaceIndexWriter(db: db)
            try db.inTransaction {
                result = try body(writer)
                try writer.restoreSecondaryIndexes()
                return .commit
            }
            writer.markPhase("commit")
            return result!
        }
    }

    /// The page cache of each connection, in KiB.
    static let cacheKiB = 65_536

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: places, names, space, cities") { db in
            try db.execute(sql: """
                CREATE TABLE place (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    source TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL,
                    folded_name TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    category TEXT,
                    categories TEXT NOT NULL DEFAULT '',
                    brand TEXT,
                    folded_brand TEXT,
                    phone TEXT,
                    website TEXT,
                    opening_hours TEXT,
                    time_zone TEXT,
                    house_number TEXT, street TEXT, unit TEXT, postcode TEXT, city TEXT, district TEXT,
                    region TEXT, country_code TEXT,
                    attribution TEXT,
                    imported_at REAL NOT NULL
                );
                CREATE INDEX place_by_source ON place(source);
                CREATE VIRTUAL TABLE place_fts USING fts5(
                    name, brand, keywords,
                    tokenize = 'unicode61 remove_diacritics 2',
                    prefix = '2 3 4'
                );
                CREATE VIRTUAL TABLE place_rtree USING rtree(id, min_lat, max_lat, min_lon, max_lon);
                CREATE TABLE city (
                    geonameid INTEGER PRIMARY KEY,
                    source TEXT NOT NULL,
                    name TEXT NOT NULL,
                    ascii_name TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    feature_code TEXT,
                    country_code TEXT,
                    admin1 TEXT,
                    population INTEGER NOT NULL DEFAULT 0,
                    time_zone TEXT
                );
                CREATE INDEX city_by_source ON city(source);
                CREATE TABLE source (
                    name TEXT PRIMARY KEY,
                    kind TEXT NOT NULL,
                    imported_at REAL NOT NULL,
                    places INTEGER NOT NULL,
                    cities INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: searchable keywords kept with the place") { db in
            // Imports fill the FTS table in one INSERT … SELECT at the end, which needs the words on the row.
            try db.execute(sql: "ALTER TABLE place ADD COLUMN keywords TEXT NOT NULL DEFAULT ''")
        }
        migrator.registerMigration("v3: cities in an R*Tree of their own") { db in
            // Finding the city of a point searched the shared R*Tree, where a 15 km box around a
            // city holds every imported POI too, each read back only to be dropped as not a city.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE city_rtree USING rtree(id, min_lat, max_lat, min_lon, max_lon);
                INSERT INTO city_rtree (id, min_lat, max_lat, min_lon, max_lon) SELECT geonameid, lat, lat, lon, lon FROM city;
                """)
        }
        migrator.registerMigration("v4: what each imported file was") { db in
            // Lets a damaged or outdated build be recognised (the file's size and checksum, the index format
            // it was read with) and lets `places index` say what the index covers.
            try db.execute(sql: """
                ALTER TABLE source ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN checksum TEXT NOT NULL DEFAULT '';
                ALTER TABLE source ADD COLUMN format INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN address_points INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN names INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN min_lat REAL;
                ALTER TABLE source ADD COLUMN max_lat REAL;
                ALTER TABLE source ADD COLUMN min_lon REAL;
                ALTER TABLE source ADD COLUMN max_lon REAL;
                """)
        }
        migrator.registerMigration("v5: every name, addresses, importance, typo vocabulary") { db in
            // The full-text table now holds prepared words (see `SearchText`): the main name, every other
            // name with run-together forms, brand, category words, and the address. Rows from an older
            // import get their main name and keywords back; their files need a re-import for the rest
            // (the bundled ones are re-imported automatically, see `PlaceIndexStore.format`).
            try db.execute(sql: """
                ALTER TABLE place ADD COLUMN alt_names TEXT NOT NULL DEFAULT '';
                ALTER TABLE place ADD COLUMN search_name TEXT NOT NULL DEFAULT '';
                ALTER TABLE place ADD COLUMN search_alt TEXT NOT NULL DEFAULT '';
                ALTER TABLE place ADD COLUMN search_address TEXT NOT NULL DEFAULT '';
                ALTER TABLE place ADD COLUMN importance REAL NOT NULL DEFAULT 0;
                UPDATE place SET search_name = folded_name;
                DROP TABLE place_fts;
                CREATE VIRTUAL TABLE place_fts USING fts5(
                    name, alt, brand, keywords, address,
                    tokenize = 'unicode61 remove_diacritics 2',
                    prefix = '2 3 4'
                );
                INSERT INTO place_fts (rowid, name, alt, brand, keywords, address)
                SELECT rowid, search_name, '', brand, keywords, '' FROM place WHERE kind != 'address';
                CREATE TABLE search_term (
                    length INTEGER NOT NULL,
                    term TEXT NOT NULL,
                    reversed TEXT NOT NULL,
                    places INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (length, term)
                ) WITHOUT ROWID;
                CREATE INDEX search_term_by_ending ON search_term(length, reversed);
                CREATE INDEX place_by_importance ON place(importance);
                """)
        }
        migrator.registerMigration("v6: the most important places per name beginning") { db in
            // Suggestions for one to three letters complete from here (see `NamePrefixes`) instead of ranking
            // every name that starts with them. Filled once for what an older import left; imports keep it.
            try db.execute(sql: """
                CREATE TABLE name_prefix (
                    prefix TEXT NOT NULL,
                    importance REAL NOT NULL,
                    place INTEGER NOT NULL,
                    PRIMARY KEY (prefix, importance, place)
                ) WITHOUT ROWID;
                """)
            for length in 1...NamePrefixes.longestPrefix {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO name_prefix (prefix, importance, place)
                    SELECT prefix, importance, rowid FROM (
                        SELECT substr(search_name, 1, ?1) AS prefix, importance, rowid,
                               row_number() OVER (PARTITION BY source, substr(search_name, 1, ?1) ORDER BY importance DESC) AS position
                        FROM place
                        WHERE kind != 'address' AND length(search_name) >= ?1 AND instr(substr(search_name, 1, ?1), ' ') = 0
                    ) WHERE position <= ?2
                    """, arguments: [length, NamePrefixes.perPrefix])
            }
        }
        migrator.registerMigration("v7: the full-text index reads the place rows; prefixes of two and three letters") { db in
            // The full-text table kept its own copy of every prepared name (16 MB with the world's cities), and
            // its four-letter prefix index cost a third of the index build while four letters select few enough
            // words to merge at query time. External content: FTS5 reads the words from `place` (for deletes
            // too, so an entry is deleted before its row), and the columns carry the row's column names.
            try db.execute(sql: """
                DROP TABLE place_fts;
                CREATE VIRTUAL TABLE place_fts USING fts5(
                    search_name, search_alt, brand, keywords, search_address,
                    content = 'place', content_rowid = 'rowid',
                    tokenize = 'unicode61 remove_diacritics 2',
                    prefix = '2 3'
                );
                INSERT INTO place_fts (place_fts) VALUES ('rebuild');
                """)
        }
        migrator.registerMigration("v8: cities found by grid cell, not by an R*Tree") { db in
            // Inserting 170,000 GeoNames cities into their R*Tree cost ~1.9 s of the one SQLite thread, a
            // B-tree index on the cell ~0.1 s; a reverse lookup reads the few cells around the point in
            // ~30 µs more (bench/city-grid.sh). `CityGrid.cell(latitude:longitude:)` computes the same cell in Swift.
            try db.execute(sql: """
                DROP TABLE city_rtree;
                ALTER TABLE city ADD COLUMN cell INTEGER
                    GENERATED ALWAYS AS (CAST((lat + 90) * 10 AS INTEGER) * 4000 + CAST((lon + 180) * 10 AS INTEGER)) VIRTUAL;
                CREATE INDEX city_by_cell ON city(cell);
                """)
        }
        migrator.registerMigration("v9: places by their main name") { db in
            // A word in most of a big index's rows ("helsinki": every address in the city) cannot be ranked
            // row by row in a search's time; the main names that are the typed words or begin with them are
            // found here instead, most important first (see `LocalSearch.rankedCommon`). ~0.5 s on an index
            // of 500,000 places; imports keep it.
            try db.execute(sql: "CREATE INDEX place_by_search_name ON place(search_name, importance)")
        }
        return migrator
    }

    /// How places are read into the index. A file imported with an older format lacks what later versions
    /// index (alternate names, addresses), so bundled files recorded with an older format are re-imported.
    /// 3: railway stations are places; GeoNames cities no longer carry a "city" keyword.
    /// 4: named streets, parts of a city (`place=suburb`, squares, district boundaries) and postcodes are places.
    public static let format = 4
}

public struct PlaceIndexCounts: Hashable, Sendable {
    /// OSM POIs plus GeoNames cities.
    public var places: Int
    public var cities: Int
    /// Named OSM streets, parts of a city and postcodes (``IndexedPlaceKind/street``, ``IndexedPlaceKind/area``):
    /// searchable too.
    public var streetsAndAreas: Int
    /// Addressed OSM objects without a POI tag, found by reverse geocoding and address search.
    public var addressPoints: Int
}

/// The index file is not a usable database; it has to be set aside and rebuilt.
public struct PlaceIndexDamage: Error, CustomStringConvertible {
    public var path: URL
    /// "truncated: …", "corrupt", "not a database".
    public var reason: String

    public var description: String { "the local index \(path.path) is damaged (\(reason))" }
}

/// One imported file as the index remembers it.
public struct IndexedSource: Hashable, Sendable {
    /// The area a file's objects cover.
    public struct Bounds: Hashable, Sendable, CustomStringConvertible {
        public var minLatitude: Double
        public var maxLatitude: Double
        public var minLongitude: Double
        public var maxLongitude: Double

        /// "60.1642…60.1791 N, 24.9352…24.9534 E".
        public var description: String {
            func range(_ low: Double, _ high: Double, _ positive: String, _ negative: String) -> String {
                let format = { (value: Double) in String(format: "%.4f", abs(value)) + (value < 0 ? negative : positive) }
                return format(low) + "…" + format(high)
            }
            return range(minLatitude, maxLatitude, "N", "S") + ", " + range(minLongitude, maxLongitude, "E", "W")
        }

        public func contains(_ coordinate: Coordinate) -> Bool {
            (minLatitude...maxLatitude).contains(coordinate.latitude)
                && (minLongitude...maxLongitude).contains(coordinate.longitude)
        }
    }

    public var name: String
    public var kind: String
    public var importedAt: Date
    public var places: Int
    public var cities: Int
    /// The file's size in bytes and CRC-32 (hex), as read.
    public var bytes: Int64 = 0
    public var checksum: String = ""
    /// ``PlaceIndexStore/format`` when it was imported (0: before formats were recorded).
    public var format: Int = 0
    public var addressPoints: Int = 0
    /// Searchable names, alternate names included.
    public var names: Int = 0
    public var bounds: Bounds?
}

/// What an import records about the file it read, besides the counts.
public struct SourceFingerprint: Hashable, Sendable {
    public var bytes: Int64
    public var checksum: String

    public init(bytes: Int64, checksum: String) {
        self.bytes = bytes
        self.checksum = checksum
    }
}

/// What role a row plays: a named POI, a named street or area (a part of a city, a square, a postcode: found by
/// search, not listed as what is nearby), an address point (an addressed object without a POI tag: found by
/// reverse geocoding and by address search), or a GeoNames city.
public enum IndexedPlaceKind: String, Sendable {
    case poi, street, area, address, city
}

/// A GeoNames populated place as reverse geocoding needs it.
public struct IndexedCity: Hashable, Sendable {
    public var geonameID: Int64
    public var name: String
    public var asciiName: String
    public var coordinate: Coordinate
    public var featureCode: String?
    public var countryCode: String?
    public var admin1: String?
    public var population: Int64
    public var timeZone: String?

    public init(geonameID: Int64, name: String, asciiName: String, coordinate: Coordinate, featureCode: String?,
                countryCode: String?, admin1: String?, population: Int64, timeZone: String?) {
        self.geonameID = geonameID
        self.name = name
        self.asciiName = asciiName
        self.coordinate = coordinate
        self.featureCode = featureCode
        self.countryCode = countryCode
        self.admin1 = admin1
        self.population = population
        self.timeZone = timeZone
    }

    public var placeID: PlaceID { PlaceID(provider: "geonames", nativeID: String(geonameID)) }
}
