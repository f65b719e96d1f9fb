import Foundation
import GRDB
import PlacesCore
import StoreSupport

/// The SQLite spot store: its own database file in the user's data directory.
///
/// Every public method is one transaction (SQLite's journal guarantees a killed command leaves no trace).
/// The database runs in WAL mode with a busy timeout, so the CLI and the server can read and write it at the
/// same time. Spatial questions go through an R*Tree of the spots' points: the bounding box of the radius picks
/// candidates, and the haversine distance from ``GeoMath`` decides.
public final class SQLiteSpotStore: SpotStore {
    /// A pool in a serving process, one connection for one command (see ``StoreDatabase/connect(path:configuration:concurrentReaders:)``).
    public let database: any DatabaseWriter

    /// Opens (creating when missing) the database at `path` and brings its schema up to date.
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another process's write before failing.
    ///   - concurrentReaders: `false` for one connection that writes nothing as it opens (one command).
    /// - Throws: ``StoreOpenError`` saying which file and why.
    public init(path: URL, busyTimeout: TimeInterval = 15, concurrentReaders: Bool = true) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        // WAL + NORMAL: a killed process never loses a committed transaction; only a power cut can
        // lose the last few, and nothing is ever half-written.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        database = try StoreDatabase.open(name: "spots database", path: path, configuration: configuration, migrator: Self.migrator,
                                          concurrentReaders: concurrentReaders)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: spots, attachments, visits, spatial index") { db in
            try db.execute(sql: """
                CREATE TABLE spot (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    folded_name TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    category TEXT,
                    tags TEXT NOT NULL DEFAULT '[]',
                    notes TEXT,
                    rating TEXT CHECK (rating IN ('like', 'dislike')),
                    address TEXT,
                    url TEXT,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    place_ids TEXT NOT NULL DEFAULT '[]',
                    snapshot TEXT,
                    snapshot_fetched_at REAL,
                    snapshot_source TEXT
                );
                CREATE INDEX spot_category ON spot(category);
                CREATE INDEX spot_updated ON spot(updated_at);
                CREATE TABLE spot_place (
                    spot_rowid INTEGER NOT NULL REFERENCES spot(rowid) ON DELETE CASCADE,
                    place_id TEXT NOT NULL,
                    PRIMARY KEY (place_id, spot_rowid)
                ) WITHOUT ROWID;
                CREATE INDEX spot_place_spot ON spot_place(spot_rowid);
                CREATE VIRTUAL TABLE spot_rtree USING rtree(spot_rowid, min_lat, max_lat, min_lon, max_lon);
                CREATE TRIGGER spot_rtree_insert AFTER INSERT ON spot BEGIN
                    INSERT INTO spot_rtree VALUES (new.rowid, new.lat, new.lat, new.lon, new.lon);
                END;
                CREATE TRIGGER spot_rtree_update AFTER UPDATE OF lat, lon ON spot BEGIN
                    UPDATE spot_rtree SET min_lat = new.lat, max_lat = new.lat, min_lon = new.lon, max_lon = new.lon
                    WHERE spot_rowid = new.rowid;
                END;
                CREATE TRIGGER spot_rtree_delete AFTER DELETE ON spot BEGIN
                    DELETE FROM spot_rtree WHERE spot_rowid = old.rowid;
                END;
                CREATE TABLE visit (
                    id TEXT PRIMARY KEY,
                    spot_id TEXT REFERENCES spot(id) ON DELETE SET NULL,
                    time REAL NOT NULL,
                    time_zone TEXT NOT NULL,
                    local_day TEXT NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    note TEXT,
                    photo_path TEXT
                );
                CREATE INDEX visit_time ON visit(time);
                CREATE INDEX visit_day ON visit(local_day);
                CREATE INDEX visit_spot ON visit(spot_id);
                """)
        }
        migrator.registerMigration("v2: visit addresses") { db in
            // Nullable columns: visits logged before stay as they were, without an address.
            try db.execute(sql: """
                ALTER TABLE visit ADD COLUMN street TEXT;
                ALTER TABLE visit ADD COLUMN house_number TEXT;
                ALTER TABLE visit ADD COLUMN city TEXT;
                ALTER TABLE visit ADD COLUMN country TEXT;
                """)
        }
        return migrator
    }

    // MARK: Writing spots

    public func add(_ spot: Spot) async throws {
        try await database.write { db in try Self.insert(spot, db) }
    }

    public func add(_ spots: [Spot]) async throws {
        try await database.write { db in for spot in spots { try Self.insert(spot, db) } }
    }

    @discardableResult
    public func update(_ reference: String, now: Date, _ change: @escaping @Sendable (inout Spot) throws -> Void) async throws -> Spot {
        try await database.write { db in
            var spot = try Self.resolve(reference, db)
            try change(&spot)
            spot.updatedAt = now.roundedToMilliseconds
            try Self.replace(spot, db)
            return spot
        }
    }

    @discardableResult
    public func remove(_ reference: String) async throws -> Spot {
        try await database.write { db in
            let spot = try Self.resolve(reference, db)
            try db.execute(sql: "DELETE FROM spot WHERE id = ?", arguments: [spot.id.storeKey])
            return spot
        }
    }

    public func importAll(spots: [Spot], visits: [Visit], replacing: Bool) async throws {
        try await database.write { db in
            if replacing {
                try db.execute(sql: "DELETE FROM visit; DELETE FROM spot;")
            }
            for spot in spots {
                if try Self.rowid(of: spot.id, db) != nil { try Self.replace(spot, db) } else { try Self.insert(spot, db) }
            }
            for visit in visits { try Self.insert(visit, db) }
        }
    }

    // MARK: Reading spots

    public func resolve(_ reference: String) async throws -> Spot {
        try await database.read { db in try Self.resolve(reference, db) }
    }

    public func spot(id: UUID) async throws -> Spot? {
        try await database.read { db in
            try Self.spot(id: id, db)
        }
    }

    public func spots(attachedTo placeID: PlaceID) async throws -> [Spot] {
        try await database.read { db in
            try Array(Row.fetchCursor(db, sql: """
                SELECT spot.* FROM spot_place JOIN spot ON spot.rowid = spot_place.spot_rowid
                WHERE spot_place.place_id = ? ORDER BY spot.created_at
                """, arguments: [placeID.description]).map(Self.spot(from:)))
        }
    }

    /// One read transaction for the whole batch, so big imports stay fast.
    public func duplicateCandidates(for spots: [Spot], radius: Double) async throws -> [[Spot]] {
        try await database.read { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM spot") ?? 0 > 0 else { return spots.map { _ in [] } }
            let byPlace = try db.cachedStatement(sql: """
                SELECT spot.* FROM spot_place JOIN spot ON spot.rowid = spot_place.spot_rowid WHERE spot_place.place_id = ?
                """)
            return try spots.map { spot in
                var found: [Spot] = []
                if let same = try Self.spot(id: spot.id, db) { found.append(same) }
                for placeID in spot.placeIDs {
                    found += try Array(Row.fetchCursor(byPlace, arguments: [placeID.description]).map(Self.spot(from:)))
                }
                let near = try Self.candidates(spot.coordinate, radius: radius, db).filter { $0.distance <= radius }
                found += try Self.load(near.sorted { $0.distance < $1.distance }, center: spot.coordinate, db).map(\.spot)
                var seen = Set<UUID>()
                return found.filter { seen.insert($0.id).inserted }
            }
        }
    }

    public func count() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM spot") ?? 0 }
    }

    public func list(_ filter: SpotFilter) async throws -> [Spot] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let category = filter.category {
            conditions.append("category = ?")
            _ = arguments.append(contentsOf: [category])
        }
        for tag in filter.tags {
            conditions.append("EXISTS (SELECT 1 FROM json_each(spot.tags) WHERE value = ?)")
            _ = arguments.append(contentsOf: [tag])
        }
        switch filter.rating {
        case .none: break
        case .some(.none): conditions.append("rating IS NULL")
        case .some(.some(let rating)):
            conditions.append("rating = ?")
            _ = arguments.append(contentsOf: [rating.rawValue])
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order = switch filter.sort {
        case .name, .distance: "folded_name, id"
        case .recent: "updated_at DESC, id"
        case .added: "created_at DESC, id"
        case .visited: "(SELECT max(time) FROM visit WHERE visit.spot_id = spot.id) DESC NULLS LAST, folded_name, id"
        }
        let sql = "SELECT * FROM spot \(whereClause) ORDER BY \(order)"
        let filterArguments = arguments
        var spots = try await database.read { db in try Array(Row.fetchCursor(db, sql: sql, arguments: filterArguments).map(Self.spot(from:))) }
        if filter.sort == .distance, let reference = filter.reference {
            spots = spots.map { ($0, GeoMath.distance(reference, $0.coordinate)) }
                .sorted { $0.1 < $1.1 }.map(\.0)
        }
        return spots
    }

    public func categories() async throws -> [(category: String?, count: Int)] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT category, count(*) AS n FROM spot GROUP BY category ORDER BY n DESC, category")
                .map { (category: $0["category"] as String?, count: $0["n"] as Int) }
        }
    }

    public func near(_ center: Coordinate, radius: Double, limit: Int?) async throws -> [SpotDistance] {
        try await database.read { db in
            var hits = try Self.candidates(center, radius: radius, db).filter { $0.distance <= radius }
            hits.sort { $0.distance < $1.distance }
            if let limit, hits.count > limit { hits.removeLast(hits.count - limit) }
            return try Self.load(hits, center: center, db)
        }
    }

    public func nearest(_ center: Coordinate, limit: Int) async throws -> [SpotDistance] {
        guard limit > 0 else { return [] }
        return try await database.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM spot") ?? 0
            let wanted = min(limit, total)
            guard wanted > 0 else { return [] }
            // Grow a search circle until it holds enough spots; only within the circle is the order exact.
            var radius = 500.0
            while true {
                var hits = try Self.candidates(center, radius: radius, db)
                let inside = hits.filter { $0.distance <= radius }
                if inside.count >= wanted || radius >= 2.1e7 {
                    hits = (inside.count >= wanted ? inside : hits).sorted { $0.distance < $1.distance }
                    return try Self.load(Array(hits.prefix(wanted)), center: center, db)
                }
                radius *= 4
            }
        }
    }

    public func allSpots() async throws -> [Spot] {
        try await database.read { db in try Array(Row.fetchCursor(db, sql: "SELECT * FROM spot ORDER BY created_at, id").map(Self.spot(from:))) }
    }

    public func allPoints() async throws -> [SpotPoint] {
        try await database.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, lat, lon FROM spot")
            var points: [SpotPoint] = []
            while let row = try rows.next() {
                guard let id = UUID(uuidString: row["id"]) else { continue }
                points.append(SpotPoint(id: id, name: row["name"], coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"])))
            }
            return points
        }
    }

    // MARK: Visits

    public func log(_ visit: Visit) async throws {
        try await database.write { db in try Self.insert(visit, db) }
    }

    public func visit(_ reference: String) async throws -> Visit {
        try await database.read { db in try Self.resolveVisit(reference, db) }
    }

    @discardableResult
    public func updateVisit(_ reference: String, _ change: @escaping @Sendable (inout Visit) throws -> Void) async throws -> Visit {
        try await database.write { db in
            var visit = try Self.resolveVisit(reference, db)
            let id = visit.id
            try change(&visit)
            visit.id = id
            try Self.insert(visit, db)
            return visit
        }
    }

    @discardableResult
    public func removeVisit(_ reference: String) async throws -> Visit {
        try await database.write { db in
            let visit = try Self.resolveVisit(reference, db)
            try db.execute(sql: "DELETE FROM visit WHERE id = ?", arguments: [visit.id.storeKey])
            return visit
        }
    }

    static func resolveVisit(_ reference: String, _ db: Database) throws -> Visit {
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        guard SpotRules.isIDPrefix(key) else { throw UnknownVisit(reference: reference) }
        let matches = try Array(Row.fetchCursor(db, sql: "SELECT * FROM visit WHERE id LIKE ? || '%' ORDER BY id LIMIT 2",
                                                arguments: [key]).map(visit(from:)))
        return try SpotRules.onlyVisit(matches, reference: reference)
    }

    public func visits(day: String?, since: Date?, spot: UUID?) async throws -> [Visit] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let day { conditions.append("local_day = ?"); _ = arguments.append(contentsOf: [day]) }
        if let since { conditions.append("time >= ?"); _ = arguments.append(contentsOf: [since.timeIntervalSinceReferenceDate]) }
        if let spot { conditions.append("spot_id = ?"); _ = arguments.append(contentsOf: [spot.storeKey]) }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let filterArguments = arguments
        return try await database.read { db in
            try Array(Row.fetchCursor(db, sql: "SELECT * FROM visit \(whereClause) ORDER BY time, id", arguments: filterArguments)
                .map(Self.visit(from:)))
        }
    }

    // MARK: Rows

    static func spot(id: UUID, _ db: Database) throws -> Spot? {
        try Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM spot WHERE id = ?"), arguments: [id.storeKey])
            .map(spot(from:)).next()
    }

    static func resolve(_ reference: String, _ db: Database) throws -> Spot {
        let key = reference.trimmingCharacters(in: .whitespaces).lowercased()
        if let id = UUID(uuidString: key), let spot = try spot(id: id, db) {
            return spot
        }
        try SpotRules.checkIDPrefix(key, reference: reference)
        let spots = try Array(Row.fetchCursor(db, sql: "SELECT * FROM spot WHERE id LIKE ? || '%' LIMIT 2", arguments: [key])
            .map(spot(from:)))
        return try SpotRules.onlyMatch(spots, reference: reference)
    }

    static func rowid(of id: UUID, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT rowid FROM spot WHERE id = ?", arguments: [id.storeKey])
    }

    static func insert(_ spot: Spot, _ db: Database) throws {
        let values = try columns(spot)
        let names = values.map(\.0)
        try db.execute(
            sql: "INSERT INTO spot (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments(values.map(\.1)))
        try attach(spot, rowid: db.lastInsertedRowID, db)
    }

    static func replace(_ spot: Spot, _ db: Database) throws {
        let values = try columns(spot).filter { $0.0 != "id" }
        try db.execute(
            sql: "UPDATE spot SET \(values.map { "\($0.0) = ?" }.joined(separator: ", ")) WHERE id = ?",
            arguments: StatementArguments(values.map(\.1) + [spot.id.storeKey]))
        guard let rowid = try rowid(of: spot.id, db) else { return }
        try db.execute(sql: "DELETE FROM spot_place WHERE spot_rowid = ?", arguments: [rowid])
        try attach(spot, rowid: rowid, db)
    }

    private static func attach(_ spot: Spot, rowid: Int64, _ db: Database) throws {
        for placeID in Set(spot.placeIDs) {
            try db.execute(sql: "INSERT INTO spot_place (spot_rowid, place_id) VALUES (?, ?)", arguments: [rowid, placeID.description])
        }
    }

    private static func columns(_ spot: Spot) throws -> [(String, (any DatabaseValueConvertible)?)] {
        try SpotRules.checkStorable(spot)
        return [
            ("id", spot.id.storeKey), ("name", spot.name), ("folded_name", TextFolding.fold(spot.name)),
            ("lat", spot.coordinate.latitude), ("lon", spot.coordinate.longitude), ("category", spot.category),
            ("tags", spot.tags.isEmpty ? "[]" : try SpotCoding.jsonText(spot.tags)), ("notes", spot.notes), ("rating", spot.rating?.rawValue),
            ("address", spot.address), ("url", spot.url),
            ("created_at", spot.createdAt.roundedToMilliseconds.timeIntervalSinceReferenceDate),
            ("updated_at", spot.updatedAt.roundedToMilliseconds.timeIntervalSinceReferenceDate),
            ("place_ids", spot.placeIDs.isEmpty ? "[]" : try SpotCoding.jsonText(spot.placeIDs)),
            ("snapshot", try spot.snapshot.map { try SpotCoding.jsonText($0.place) }),
            ("snapshot_fetched_at", spot.snapshot?.fetchedAt.roundedToMilliseconds.timeIntervalSinceReferenceDate),
            ("snapshot_source", spot.snapshot?.source),
        ]
    }

    /// Decodes the row a cursor stands on. Rows are never decoded from `fetchAll`/`fetchOne` copies: a
    /// copied row finds a column by lower-casing every column name on each access (GRDB 7), which made
    /// `spots near` spend most of its time naming columns.
    static func spot(from row: Row) throws -> Spot {
        guard let id = UUID(uuidString: row["id"]) else { throw InputError("corrupt spot row: bad id \(row["id"] as String)") }
        var snapshot: SpotSnapshot?
        if let text = row["snapshot"] as String?, let fetched = row["snapshot_fetched_at"] as Double? {
            snapshot = SpotSnapshot(place: try SpotCoding.decode(Place.self, text),
                                    fetchedAt: Date(timeIntervalSinceReferenceDate: fetched),
                                    source: row["snapshot_source"] ?? "unknown")
        }
        return Spot(
            id: id, name: row["name"], coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]),
            category: row["category"], tags: try SpotCoding.decodeList([String].self, row["tags"]), notes: row["notes"],
            rating: (row["rating"] as String?).flatMap(SpotRating.init(rawValue:)), address: row["address"], url: row["url"],
            createdAt: Date(timeIntervalSinceReferenceDate: row["created_at"]),
            updatedAt: Date(timeIntervalSinceReferenceDate: row["updated_at"]),
            placeIDs: try SpotCoding.decodeList([PlaceID].self, row["place_ids"]), snapshot: snapshot)
    }

    static func insert(_ visit: Visit, _ db: Database) throws {
        if let spotID = visit.spotID, try rowid(of: spotID, db) == nil {
            throw SpotRules.unknownVisitSpot(spotID)
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO visit (id, spot_id, time, time_zone, local_day, lat, lon, note, photo_path,
                                          street, house_number, city, country)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                visit.id.storeKey, visit.spotID?.storeKey, visit.time.roundedToMilliseconds.timeIntervalSinceReferenceDate, visit.timeZone,
                visit.localDay, visit.coordinate.latitude, visit.coordinate.longitude, visit.note, visit.photoPath,
                visit.address?.street, visit.address?.houseNumber, visit.address?.city, visit.address?.country,
            ])
    }

    static func visit(from row: Row) throws -> Visit {
        guard let id = UUID(uuidString: row["id"]) else { throw InputError("corrupt visit row: bad id") }
        return Visit(
            id: id, spotID: (row["spot_id"] as String?).flatMap(UUID.init(uuidString:)),
            time: Date(timeIntervalSinceReferenceDate: row["time"]), timeZone: row["time_zone"],
            coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]), note: row["note"], photoPath: row["photo_path"],
            address: VisitAddress(street: row["street"], houseNumber: row["house_number"], city: row["city"], country: row["country"]))
    }

    // MARK: Spatial

    private struct Candidate { var rowid: Int64; var distance: Double }

    private static func candidates(_ center: Coordinate, radius: Double, _ db: Database) throws -> [Candidate] {
        let statement = try db.cachedStatement(sql: """
            SELECT spot.rowid, spot.lat, spot.lon FROM spot_rtree JOIN spot ON spot.rowid = spot_rtree.spot_rowid
            WHERE spot_rtree.max_lat >= ? AND spot_rtree.min_lat <= ? AND spot_rtree.max_lon >= ? AND spot_rtree.min_lon <= ?
            """)
        var result: [Candidate] = []
        var seen = Set<Int64>()
        for box in GeoMath.boundingBoxes(around: center, radius: radius) {
            let rows = try Row.fetchCursor(statement, arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude])
            while let row = try rows.next() {
                guard seen.insert(row[0]).inserted else { continue }
                // The R*Tree keeps 32-bit floats (rounded outwards), so it only preselects; the exact columns decide.
                let point = Coordinate(latitude: row[1], longitude: row[2])
                result.append(Candidate(rowid: row[0], distance: GeoMath.distance(center, point)))
            }
        }
        return result
    }

    /// Fetches the full spots for the winning candidates.
    private static func load(_ hits: [Candidate], center: Coordinate, _ db: Database) throws -> [SpotDistance] {
        let statement = try db.cachedStatement(sql: "SELECT * FROM spot WHERE rowid = ?")
        return try hits.compactMap { hit in
            try Row.fetchCursor(statement, arguments: [hit.rowid]).map(spot(from:)).next()
                .map { SpotDistance(spot: $0, center: center) }
        }
    }
}

/// JSON for the columns that hold structured values. Default date coding keeps `Date`s bit-exact. Public so the
/// PostgreSQL store writes the same column text.
public enum SpotCoding {
    public static func jsonText<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// Most spots have no tags or attachments: skip the decoder for `[]`, which keeps `near` fast.
    public static func decodeList<T: Decodable & RangeReplaceableCollection>(_ type: T.Type, _ text: String) throws -> T {
        text == "[]" ? T() : try decode(type, text)
    }
}
