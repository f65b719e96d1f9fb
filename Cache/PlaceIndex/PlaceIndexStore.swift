import Foundation
import GRDB
import PlacesCore

/// The local place index: OSM objects and GeoNames cities in one SQLite file.
///
/// Names are in an FTS5 table (`unicode61 remove_diacritics 2` with prefix indexes, so "cafe"
/// finds "Café" and "caf" completes it), positions in one R*Tree (POIs, address points and cities),
/// and GeoNames cities also in their own table (population, zone, country) with an R*Tree of their
/// own for reverse geocoding. Schema changes go only through ``migrator``.
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

    /// Opens (creating if needed) the index at `path`, in WAL mode so readers never wait for an import.
    public init(path: URL) throws {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // An import touches the R*Tree and FTS pages all over; with SQLite's default 2 MB cache they
            // spill to the WAL mid-transaction and are read back. 64 MB is allocated only as used.
            try db.execute(sql: "PRAGMA cache_size = -65536")
        }
        database = try DatabasePool(path: path.path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    private init(database: any DatabaseWriter) throws {
        self.database = database
        try Self.migrator.migrate(database)
    }

    /// An index that lives in memory only: for tests and benchmarks.
    public static func inMemory() throws -> PlaceIndexStore {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -65536") }
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

    /// How much the index holds: searchable places (POIs and cities), GeoNames cities, and address points.
    public func counts() throws -> PlaceIndexCounts {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM place WHERE kind != 'address'),
                       (SELECT count(*) FROM city),
                       (SELECT count(*) FROM place WHERE kind = 'address')
                """)!
            return PlaceIndexCounts(places: row[0], cities: row[1], addressPoints: row[2])
        }
    }

    /// The files imported so far, newest first.
    public func sources() throws -> [IndexedSource] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT name, kind, imported_at, places, cities FROM source ORDER BY imported_at DESC").map {
                IndexedSource(name: $0[0], kind: $0[1], importedAt: Date(timeIntervalSince1970: $0[2]), places: $0[3], cities: $0[4])
            }
        }
    }

    /// Runs `body` in one write transaction: everything it inserts becomes visible together, and if it
    /// throws, nothing it did remains.
    public func write<T>(_ body: (PlaceIndexWriter) throws -> T) throws -> T {
        try database.write { db in
            try body(PlaceIndexWriter(db: db))
        }
    }

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
        return migrator
    }
}

public struct PlaceIndexCounts: Hashable, Sendable {
    /// Searchable places: OSM POIs plus GeoNames cities.
    public var places: Int
    public var cities: Int
    /// Addressed OSM objects without a POI tag, kept for reverse geocoding only.
    public var addressPoints: Int
}

public struct IndexedSource: Hashable, Sendable {
    public var name: String
    public var kind: String
    public var importedAt: Date
    public var places: Int
    public var cities: Int
}

/// What role a row plays. Address points answer reverse geocoding but are not search results.
public enum IndexedPlaceKind: String, Sendable {
    case poi, address, city
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
