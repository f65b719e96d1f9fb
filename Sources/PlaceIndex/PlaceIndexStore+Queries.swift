import Foundation
import GRDB
import PlacesCore

/// The answer to a reverse-geocoding question, before a provider dresses it up.
public struct IndexedReverse: Sendable {
    /// The nearest POI or address point within the search radius.
    public var nearest: Place?
    public var nearestDistance: Double?
    /// The city the point belongs to (best GeoNames populated place near it).
    public var city: IndexedCity?
}

extension PlaceIndexStore {
    /// Places within `radius` metres of `center`, nearest first.
    /// - Parameters:
    ///   - category: a normalised category (`cafe`) or a provider label (`amenity=cafe`, `coffee shop`).
    ///   - brand: matches the `brand` tag or the name, ignoring case and accents ("starbucks").
    public func nearby(center: Coordinate, radius: Double, category: String? = nil, brand: String? = nil,
                       limit: Int = 20) throws -> [Place] {
        guard radius > 0, limit > 0 else { return [] }
        let categoryFilter = CategoryFilter(category)
        var condition = categoryFilter?.wantsCities == true ? "p.kind = 'city'" : "p.kind = 'poi'"
        var arguments: StatementArguments = []
        if let categoryFilter {
            condition += " AND " + categoryFilter.sql
            arguments += categoryFilter.arguments
        }
        if let brand, !Self.brandKey(brand).isEmpty {
            let key = Self.brandKey(brand)
            condition += " AND (\(Self.brandKeySQL("p.folded_brand")) = ? OR instr(\(Self.brandKeySQL("p.folded_name")), ?) > 0)"
            arguments += [key, key]
        }
        return try database.read { db in
            // Boxes from 250 m up to the radius: a city's 1 km holds thousands of places, its 250 m enough for a page.
            var found: [(rowid: Int64, distance: Double)] = []
            try PlacesAround(db: db, center: center, columns: "p.lat, p.lon", condition: condition, arguments: arguments)
                .read(radii: PlacesAround.doubling(from: min(radius, 250), upTo: radius)) { row in
                    let distance = GeoMath.distance(center, Coordinate(latitude: row.double(1), longitude: row.double(2)))
                    if distance <= radius { found.append((row.int64(0), distance)) }
                } enough: { boxRadius in
                    PlacesAround.settled(found.map(\.distance), boxRadius: boxRadius) >= limit
                }
            // Places at the same distance (one object in two imported files) in row order, not in the order the
            // R*Tree happens to hold them.
            let nearest = found.sorted { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }.prefix(limit)
            return try PlaceRow.fetch(db, rowids: nearest.map(\.rowid))
        }
    }

    /// A brand as compared: folded, with only its letters and digits, so "Robert's Coffee", "roberts coffee" and
    /// "ROBERTS-COFFEE" are one brand, as are "7-Eleven" and "7 eleven".
    public static func brandKey(_ text: String) -> String {
        String(String.UnicodeScalarView(TextFolding.fold(text).unicodeScalars.filter(SearchText.isWordScalar)))
    }

    /// The same key computed in SQL over an already folded column: the punctuation names carry, removed.
    static func brandKeySQL(_ column: String) -> String {
        ["'", " ", ".", "-", "&", ",", "!", "/", "+", ":", "(", ")"].reduce(column) { sql, character in
            "replace(\(sql), '\(character == "'" ? "''" : character)', '')"
        }
    }

    /// The place with this id (POI, address point or city), or `nil`.
    public func place(id: PlaceID) throws -> Place? {
        // One statement, so no transaction: SQLite reads it in one snapshot of its own, and BEGIN and COMMIT
        // around it cost a tenth of reading the place (perf, uncached DETAILS).
        try database.unsafeRead { db in
            try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(PlaceRow.columns) FROM place WHERE id = ?"), arguments: [id.description])
                .map(PlaceRow.place).next()
        }
    }

    /// The city reverse geocoding would name for each point, in one read: how places without a zone of
    /// their own get the IANA time zone their opening hours are evaluated in.
    public func cities(near coordinates: [Coordinate]) throws -> [IndexedCity?] {
        try database.read { db in try CityLookup.best(near: coordinates, in: db) }
    }

    /// The time zone of the city ``cities(near:)`` names for each point. A serving process answers from the
    /// cities it holds in memory (``IndexInMemory``), without reading the index; others read it.
    public func timeZones(near coordinates: [Coordinate]) throws -> [String?] {
        if let snapshot = snapshotInMemory() { return coordinates.map(snapshot.cities.timeZone(near:)) }
        return try cities(near: coordinates).map { $0?.timeZone }
    }

    /// The nearest POI or address point within `radius` metres, and the city the point is in.
    public func reverse(_ coordinate: Coordinate, radius: Double = 100) throws -> IndexedReverse {
        try database.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT p.rowid, p.lat, p.lon FROM place_rtree r CROSS JOIN place p ON p.rowid = r.id
                WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ? AND p.kind IN ('poi', 'address')
                """)
            let nearest = try GeoMath.boundingBoxes(around: coordinate, radius: radius)
                .flatMap { box in
                    try Row.fetchAll(statement, arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude])
                }
                .map { row -> (rowid: Int64, distance: Double) in
                    (row[0], GeoMath.distance(coordinate, Coordinate(latitude: row[1], longitude: row[2])))
                }
                .filter { $0.distance <= radius }
                .min { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }
            let place = try nearest.flatMap { try PlaceRow.fetch(db, rowids: [$0.rowid]).first }
            return IndexedReverse(nearest: place, nearestDistance: place == nil ? nil : nearest?.distance,
                                  city: try CityLookup.best(near: coordinate, in: db))
        }
    }
}

/// `--category` as SQL: the normalised category, or one of the provider's own labels verbatim.
struct CategoryFilter {
    let sql: String
    let arguments: StatementArguments
    let wantsCities: Bool

    init?(_ category: String?) {
        guard let raw = category?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        let normalized = PlaceCategory.normalize(raw)
        wantsCities = normalized == "city"
        sql = "(p.category = ? OR instr(char(10) || p.categories || char(10), char(10) || ? || char(10)) > 0)"
        arguments = [normalized ?? raw.lowercased(), raw.lowercased()]
    }
}

/// Places around a point, read from the R*Tree in growing boxes: each box after the first reads only the ring
/// outside the one before (the R*Tree skips the entries inside it before their rows are read), so a row is
/// handed over once, even one on the inner box's edge that the R*Tree's 32-bit rounding puts in both.
/// The caller says after each box whether it has read enough. What nearby, the nearest members of a
/// category and suggestions near a point read, so that their cost follows the neighbourhood they need.
struct PlacesAround {
    let db: Database
    let center: Coordinate
    /// Read from `place p` after `p.rowid`, which comes first.
    let columns: String
    let columnArguments: StatementArguments
    /// Which rows count, on `place p` (`AND`-ed to the box).
    let condition: String
    let arguments: StatementArguments
    /// When given, only the rows of R*Tree entries whose id it holds are read (the others are skipped before
    /// their rows are): a set collected once for every box, where an `IN (SELECT …)` in `condition` is
    /// collected again for each.
    let ids: Set<Int64>?

    init(db: Database, center: Coordinate, columns: String, columnArguments: StatementArguments = [], condition: String,
         arguments: StatementArguments, ids: Set<Int64>? = nil) {
        self.db = db
        self.center = center
        self.columns = columns
        self.columnArguments = columnArguments
        self.condition = condition
        self.arguments = arguments
        self.ids = ids
    }

    /// Reads the boxes of `radii` metres (growing) in turn, handing each row to `visit`, until `enough` (asked
    /// after each box with its radius) says so or the last box is read.
    func read(radii: [Double], _ visit: (SQLiteRow) throws -> Void, enough: (_ boxRadius: Double) -> Bool) throws {
        var inner: [BoundingBox] = []
        var seen = Set<Int64>()
        for radius in radii {
            let boxes = GeoMath.boundingBoxes(around: center, radius: radius)
            for box in boxes {
                try read(box, outside: inner, seen: &seen, visit)
            }
            if enough(radius) { return }
            inner = boxes
        }
    }

    /// Reads the entries of `box` that lie in none of `inner` (a box already read), skipping those in `seen`.
    private func read(_ box: BoundingBox, outside inner: [BoundingBox], seen: inout Set<Int64>,
                      _ visit: (SQLiteRow) throws -> Void) throws {
        var inBox = "r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ?"
        var boxArguments: StatementArguments = [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]
        for inner in inner {
            inBox += " AND NOT (r.min_lat >= ? AND r.max_lat <= ? AND r.min_lon >= ? AND r.max_lon <= ?)"
            boxArguments += [inner.minLatitude, inner.maxLatitude, inner.minLongitude, inner.maxLongitude]
        }
        if let ids {
            var wanted: [Int64] = []
            try SQLiteRow.forEach(db.cachedStatement(sql: "SELECT r.id FROM place_rtree r WHERE \(inBox)"), arguments: boxArguments) { entry in
                let id = entry.int64(0)
                if ids.contains(id), seen.insert(id).inserted { wanted.append(id) }
            }
            try read(rowids: wanted, visit)
        } else {
            // CROSS JOIN keeps the R*Tree as the outer loop; otherwise SQLite may scan every place.
            try SQLiteRow.forEach(db.cachedStatement(sql: """
                SELECT p.rowid, \(columns) FROM place_rtree r CROSS JOIN place p ON p.rowid = r.id WHERE \(inBox) AND (\(condition))
                """), arguments: columnArguments + boxArguments + arguments) { row in
                if seen.insert(row.int64(0)).inserted { try visit(row) }
            }
        }
    }

    /// Reads the rows of `rowids` that meet `condition`, in the order of `rowids`' batches, 256 at a time (one
    /// statement, the last batch padded with its last id): what the boxes read of the ids they hold, and how a
    /// category's few members are read whole.
    func read(rowids: [Int64], _ visit: (SQLiteRow) throws -> Void) throws {
        let batch = 256
        let statement = try db.cachedStatement(sql: """
            SELECT p.rowid, \(columns) FROM place p
            WHERE p.rowid IN (\(Array(repeating: "?", count: batch).joined(separator: ","))) AND (\(condition))
            """)
        for start in stride(from: 0, to: rowids.count, by: batch) {
            let ids = rowids[start..<min(start + batch, rowids.count)]
            let padded = Array(ids) + Array(repeating: ids.last!, count: batch - ids.count)
            try SQLiteRow.forEach(statement, arguments: columnArguments + StatementArguments(padded) + arguments, visit)
        }
    }

    /// Radii from `first` doubling up to `last` (the last box exactly `last`), or without `last` until a box
    /// holds the whole world.
    static func doubling(from first: Double, upTo last: Double?) -> [Double] {
        let end = last ?? GeoMath.earthRadiusMeters * .pi
        var radii: [Double] = []
        var radius = max(first, 1)
        while radius < end {
            radii.append(radius)
            radius *= 2
        }
        radii.append(last ?? radius)
        return radii
    }

    /// How many of `distances` are surely the nearest: a box holds the circle of its radius but for the
    /// longitude's rounding at high latitudes, so everything within 90 % of its radius has been read, and
    /// nothing outside the box is nearer than that.
    static func settled(_ distances: [Double], boxRadius: Double) -> Int {
        distances.filter { $0 <= 0.9 * boxRadius }.count
    }
}

/// Which GeoNames city a point belongs to.
enum CityLookup {
    /// Close cities compete on distance against size: a 600,000-people city 3 km away beats a village
    /// 2 km away, but not a town you are standing in. Score = km − 2·log10(population + 1), lowest wins.
    static func best(near coordinate: Coordinate, in db: Database) throws -> IndexedCity? {
        guard let winner = try winner(near: coordinate, in: db) else { return nil }
        return try city(geonameID: winner, in: db)
    }

    /// ``best(near:in:)`` for each point. A search's results lie close together, and their 15 km windows
    /// overlap: when the points' windows fit in one a few times as large, its cities are read once and each
    /// point picks from those inside its own window, the same candidates (edges included) in the same order
    /// as reading its window alone; a point with none there, or points far apart, read their own.
    static func best(near coordinates: [Coordinate], in db: Database) throws -> [IndexedCity?] {
        var cities: [Int64: IndexedCity?] = [:]
        return try winners(near: coordinates, in: db).map { winner in
            guard let winner else { return nil }
            if let known = cities[winner] { return known }
            let city = try city(geonameID: winner, in: db)
            cities[winner] = city
            return city
        }
    }

    private static func winners(near coordinates: [Coordinate], in db: Database) throws -> [Int64?] {
        guard coordinates.count > 1 else { return try coordinates.map { try winner(near: $0, in: db) } }
        let pieces = coordinates.map { GeoMath.boundingBoxes(around: $0, radius: 15_000) }
        // A window across the antimeridian is two boxes at the ends of the longitudes, which no common box holds.
        guard pieces.allSatisfy({ $0.count == 1 }) else { return try coordinates.map { try winner(near: $0, in: db) } }
        let windows = pieces.map { $0[0] }
        let common = BoundingBox(
            minLatitude: windows.map(\.minLatitude).min() ?? 0, minLongitude: windows.map(\.minLongitude).min() ?? 0,
            maxLatitude: windows.map(\.maxLatitude).max() ?? 0, maxLongitude: windows.map(\.maxLongitude).max() ?? 0)
        let first = windows[0]
        guard common.maxLatitude - common.minLatitude <= 3 * (first.maxLatitude - first.minLatitude),
              common.maxLongitude - common.minLongitude <= 3 * (first.maxLongitude - first.minLongitude)
        else { return try coordinates.map { try winner(near: $0, in: db) } }
        let shared = try CityGrid.candidates(in: common, db: db)
        return try zip(coordinates, windows).map { coordinate, window in
            let scored = shared.filter { window.containsInclusive($0.coordinate) }
                .map { candidate in (candidate: candidate, distance: GeoMath.distance(coordinate, candidate.coordinate)) }
                .filter { $0.distance <= 15_000 }
            guard !scored.isEmpty else { return try winner(near: coordinate, in: db) }
            return scored.min { score($0) < score($1) }?.candidate.geonameID
        }
    }

    /// The `geonameid` of the city ``best(near:in:)`` names: scored on position and population alone, so
    /// the dozens of cities in a window cost no strings; only the winner's row is read whole.
    private static func winner(near coordinate: Coordinate, in db: Database) throws -> Int64? {
        try winner(near: coordinate) { box in try CityGrid.candidates(in: box, db: db) }
    }

    /// ``winner(near:in:)`` over the cities `candidates` gives for a box (every city inside it, edges included,
    /// in the order of `CityGrid.candidates(in:db:)`): the one rule, whether the cities come from the index or
    /// from a serving process's memory (``IndexInMemory``).
    static func winner(near coordinate: Coordinate,
                       candidates: (BoundingBox) throws -> [CityGrid.Candidate]) rethrows -> Int64? {
        // Population is worth at most ~15 km (2·log10 of the largest cities), so a 15 km window holds the winner.
        for radius in [15_000.0, 300_000.0] {
            let candidates = try GeoMath.boundingBoxes(around: coordinate, radius: radius).flatMap(candidates)
            let scored = candidates.map { candidate -> (candidate: CityGrid.Candidate, distance: Double) in
                (candidate, GeoMath.distance(coordinate, candidate.coordinate))
            }.filter { $0.distance <= radius }
            guard !scored.isEmpty else { continue }
            if radius > 15_000 { return scored.min { $0.distance < $1.distance }?.candidate.geonameID }
            return scored.min { score($0) < score($1) }?.candidate.geonameID
        }
        return nil
    }

    private static func score(_ scored: (candidate: CityGrid.Candidate, distance: Double)) -> Double {
        scored.distance / 1_000 - 2 * log10(Double(max(0, scored.candidate.population)) + 1)
    }

    static func city(geonameID: Int64, in db: Database) throws -> IndexedCity? {
        try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(columns) FROM city WHERE geonameid = ?"), arguments: [geonameID])
            .map(city).next()
    }

    /// The `city` columns ``city(_:)`` reads, in the order it reads them (by position: see ``PlaceRow``).
    static let columns = "geonameid, name, ascii_name, lat, lon, feature_code, country_code, admin1, population, time_zone"

    /// A row of ``columns`` as a city.
    static func city(_ row: Row) -> IndexedCity {
        IndexedCity(geonameID: row[0], name: row[1], asciiName: row[2],
                    coordinate: Coordinate(latitude: row[3], longitude: row[4]), featureCode: row[5],
                    countryCode: row[6], admin1: row[7], population: row[8], timeZone: row[9])
    }
}

/// GeoNames cities by position: the `city` table's `cell` column (migration v8) numbers squares of a tenth
/// of a degree, row by row from the south-west, and an index on it finds the cities of a box one row of
/// squares at a time. A seventeenth of an R*Tree's CPU to build for the world's 170,000 cities, for ~30 µs
/// more per reverse-geocoding box (`bench/city-grid.sh`).
enum CityGrid {
    /// Squares per degree.
    static let perDegree = 10.0
    /// Cell numbers per row of squares: more than the 3,601 a row holds (longitude 180 is a square of its own).
    static let rowStride = 4_000

    /// The SQL column's formula, `CAST((lat + 90) * 10 AS INTEGER) * 4000 + CAST((lon + 180) * 10 AS INTEGER)`:
    /// the same floating-point operations, and truncation of a value that is never negative is rounding down.
    static func cell(latitude: Double, longitude: Double) -> Int {
        row(latitude) * rowStride + column(longitude)
    }

    static func row(_ latitude: Double) -> Int { Int(((latitude + 90) * perDegree).rounded(.down)) }
    static func column(_ longitude: Double) -> Int { Int(((longitude + 180) * perDegree).rounded(.down)) }

    /// What a city competes on for a point: its position and population.
    struct Candidate {
        var geonameID: Int64
        var coordinate: Coordinate
        var population: Int64
    }

    /// Every city inside `box` (edges included), read one row of squares at a time.
    static func candidates(in box: BoundingBox, db: Database) throws -> [Candidate] {
        let statement = try db.cachedStatement(sql: """
            SELECT geonameid, lat, lon, population FROM city
            WHERE cell BETWEEN ? AND ? AND lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?
            """)
        let first = column(box.minLongitude), last = column(box.maxLongitude)
        var candidates: [Candidate] = []
        for row in row(box.minLatitude)...row(box.maxLatitude) {
            let rows = try Row.fetchCursor(statement, arguments: [
                row * rowStride + first, row * rowStride + last,
                box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude,
            ])
            while let found = try rows.next() {
                candidates.append(Candidate(geonameID: found[0], coordinate: Coordinate(latitude: found[1], longitude: found[2]),
                                            population: found[3]))
            }
        }
        return candidates
    }
}

private extension BoundingBox {
    /// Whether SQL's `lat BETWEEN min AND max AND lon BETWEEN min AND max` holds for the point.
    func containsInclusive(_ point: Coordinate) -> Bool {
        point.latitude >= minLatitude && point.latitude <= maxLatitude
            && point.longitude >= minLongitude && point.longitude <= maxLongitude
    }
}

/// A `place` row back into a ``Place``.
///
/// Index rows (here and in ``CityLookup``) are decoded while a cursor stands on them, never from
/// `fetchAll`/`fetchOne` copies: a copied row finds a column by lower-casing every column name on each
/// access (GRDB 7), which made reading two dozen columns by name the costliest part of a DETAILS. They
/// select the columns they read, in a fixed order, and read them by position: a cursor's row still
/// builds a table of lower-cased column names for each query and hashes the name at every access by
/// name, which was a tenth of an uncached DETAILS's CPU (perf, release, 2026-11-23).
enum PlaceRow {
    /// The `place` columns ``place(_:)`` reads, by position: `rowid` first, `alt_names` last (search reads both).
    static let columns = """
        rowid, id, name, lat, lon, house_number, street, unit, postcode, city, district, region, country_code, \
        categories, imported_at, phone, website, category, brand, opening_hours, time_zone, attribution, alt_names
        """
    static let rowidColumn = 0
    static let altNamesColumn = 22

    /// Full rows for `rowids`, in that order. Queries rank light (rowid, position, score) rows first
    /// and only build ``Place`` values for the few they return.
    static func fetch(_ db: Database, rowids: [Int64]) throws -> [Place] {
        try fetch(db, rowids: rowids, place)
    }

    /// Rows for `rowids`, in that order, each turned into a value by `make` while the cursor stands on it.
    static func fetch<T>(_ db: Database, rowids: [Int64], _ make: (Row) throws -> T) throws -> [T] {
        guard let padded = PaddedRowids(rowids) else { return [] }
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(columns) FROM place WHERE rowid IN (\(padded.placeholders))"),
                                       arguments: padded.arguments)
        var byRowid: [Int64: T] = [:]
        while let row = try rows.next() { byRowid[row[rowidColumn]] = try make(row) }
        return rowids.compactMap { byRowid[$0] }
    }

    /// A row of ``columns`` as a place.
    static func place(_ row: Row) -> Place {
        let idText: String = row[1]
        let id = (try? PlaceID(parsing: idText)) ?? PlaceID(provider: "local", nativeID: idText)
        let address = PostalAddress(
            houseNumber: row[5], street: row[6], unit: row[7], postcode: row[8],
            city: row[9], district: row[10], region: row[11], countryCode: row[12])
        let categories: String = row[13]
        let importedAt = Date(timeIntervalSince1970: row[14])
        let place = Place(
            id: id, name: row[2], coordinate: Coordinate(latitude: row[3], longitude: row[4]),
            address: address.isEmpty ? nil : address, formattedAddress: address.formatted,
            phone: row[15], website: row[16],
            categories: categories.isEmpty ? [] : categories.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) },
            category: row[17], brand: row[18], openingHoursText: row[19],
            timeZone: row[20], attribution: row[21])
        return place.attributed(to: "local", at: importedAt)
    }
}

/// Row ids for `rowid IN (…)`, padded with the last one (which `IN` reads once) to a power of two: a statement
/// per power of two is prepared once per connection, not per query (at most 11 for LIMIT's 1…1000 ids).
struct PaddedRowids {
    /// `?,?,…`, one per slot.
    let placeholders: String
    let arguments: StatementArguments

    /// `nil` for no ids.
    init?(_ rowids: [Int64]) {
        guard let last = rowids.last else { return nil }
        let slots = 1 << (Int.bitWidth - (rowids.count - 1).leadingZeroBitCount)
        placeholders = Array(repeating: "?", count: slots).joined(separator: ",")
        arguments = StatementArguments(rowids + Array(repeating: last, count: slots - rowids.count))
    }
}
