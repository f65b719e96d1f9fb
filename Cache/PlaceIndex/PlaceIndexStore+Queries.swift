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
    /// Full-text search over names (and brands and category words), best first.
    ///
    /// With `near`, text relevance (bm25) is blended with proximity, so among equally good name matches the
    /// closer one wins, and a good match next door beats a perfect one across the world.
    /// With `near` and `radius`, results outside the circle are dropped.
    public func search(text: String, near: Coordinate? = nil, radius: Double? = nil, category: String? = nil,
                       limit: Int = 10) throws -> [Place] {
        let tokens = FullTextQuery.tokens(text)
        guard !tokens.isEmpty, limit > 0 else { return [] }
        let exact = try rankedMatches(FullTextQuery.all(tokens, prefixLast: false), near: near, radius: radius,
                                      category: category, limit: limit)
        if !exact.isEmpty { return exact }
        // Nothing matched whole words: treat every word as a prefix ("maya ba", "kiasm").
        let prefixed = try rankedMatches(FullTextQuery.all(tokens, prefixAll: true), near: near, radius: radius,
                                         category: category, limit: limit)
        if !prefixed.isEmpty || tokens.count < 2 { return prefixed }
        // Still nothing: any word may match ("maya bar and grill" finds "Maya Bar & Grill"); bm25 puts
        // names matching more of the words first.
        return try rankedMatches(FullTextQuery.any(tokens), near: near, radius: radius, category: category, limit: limit)
    }

    /// Search-as-you-type: the last word is a prefix, results are biased towards `near`.
    public func suggest(prefix: String, near: Coordinate? = nil, limit: Int = 8) throws -> [Place] {
        let tokens = FullTextQuery.tokens(prefix)
        guard !tokens.isEmpty, limit > 0 else { return [] }
        let match = FullTextQuery.all(tokens, prefixLast: true)
        if let near, tokens.count == 1, tokens[0].count == 1 {
            // One letter matches a large share of the world's names; ranking them all costs tens of
            // milliseconds, so the first keystroke completes from the neighbourhood only.
            let local = try rankedMatches(match, near: near, radius: 5_000, category: nil, limit: limit)
            if !local.isEmpty { return local }
        }
        return try rankedMatches(match, near: near, radius: nil, category: nil, limit: limit)
    }

    /// Places within `radius` metres of `center`, nearest first.
    /// - Parameters:
    ///   - category: a normalised category (`cafe`) or a provider label (`amenity=cafe`, `coffee shop`).
    ///   - brand: matches the `brand` tag or the name, ignoring case and accents ("starbucks").
    public func nearby(center: Coordinate, radius: Double, category: String? = nil, brand: String? = nil,
                       limit: Int = 20) throws -> [Place] {
        guard radius > 0, limit > 0 else { return [] }
        let box = GeoMath.boundingBox(around: center, radius: radius)
        // CROSS JOIN keeps the R*Tree as the outer loop; otherwise SQLite may scan every place.
        var sql = """
            SELECT p.rowid, p.lat, p.lon FROM place_rtree r CROSS JOIN place p ON p.rowid = r.id
            WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ?
            """
        var arguments: StatementArguments = [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]
        let categoryFilter = CategoryFilter(category)
        sql += categoryFilter?.wantsCities == true ? " AND p.kind = 'city'" : " AND p.kind = 'poi'"
        if let categoryFilter {
            sql += " AND " + categoryFilter.sql
            arguments += categoryFilter.arguments
        }
        if let brand, !brand.trimmingCharacters(in: .whitespaces).isEmpty {
            let folded = TextFolding.fold(brand).trimmingCharacters(in: .whitespaces)
            sql += " AND (p.folded_brand = ? OR instr(p.folded_name, ?) > 0)"
            arguments += [folded, folded]
        }
        return try database.read { db in
            let nearest = try Row.fetchAll(db, sql: sql, arguments: arguments)
                .map { row -> (rowid: Int64, distance: Double) in
                    (row[0], GeoMath.distance(center, Coordinate(latitude: row[1], longitude: row[2])))
                }
                .filter { $0.distance <= radius }
                .sorted { $0.distance < $1.distance }
                .prefix(limit)
            return try PlaceRow.fetch(db, rowids: nearest.map(\.rowid))
        }
    }

    /// The place with this id (POI, address point or city), or `nil`.
    public func place(id: PlaceID) throws -> Place? {
        try database.read { db in
            try Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM place WHERE id = ?"), arguments: [id.description])
                .map(PlaceRow.place).next()
        }
    }

    /// The city reverse geocoding would name for each point, in one read: how places without a zone of
    /// their own get the IANA time zone their opening hours are evaluated in.
    public func cities(near coordinates: [Coordinate]) throws -> [IndexedCity?] {
        try database.read { db in try coordinates.map { try CityLookup.best(near: $0, in: db) } }
    }

    /// The nearest POI or address point within `radius` metres, and the city the point is in.
    public func reverse(_ coordinate: Coordinate, radius: Double = 100) throws -> IndexedReverse {
        try database.read { db in
            let box = GeoMath.boundingBox(around: coordinate, radius: radius)
            let nearest = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT p.rowid, p.lat, p.lon FROM place_rtree r CROSS JOIN place p ON p.rowid = r.id
                WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ? AND p.kind != 'city'
                """), arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude])
                .map { row -> (rowid: Int64, distance: Double) in
                    (row[0], GeoMath.distance(coordinate, Coordinate(latitude: row[1], longitude: row[2])))
                }
                .filter { $0.distance <= radius }
                .min { $0.distance < $1.distance }
            let place = try nearest.flatMap { try PlaceRow.fetch(db, rowids: [$0.rowid]).first }
            return IndexedReverse(nearest: place, nearestDistance: place == nil ? nil : nearest?.distance,
                                  city: try CityLookup.best(near: coordinate, in: db))
        }
    }

    private func rankedMatches(_ match: String, near: Coordinate?, radius: Double?, category: String?,
                               limit: Int) throws -> [Place] {
        var sql = """
            SELECT p.rowid, p.lat, p.lon, bm25(place_fts, 10.0, 4.0, 1.0) AS rank
            FROM place_fts CROSS JOIN place p ON p.rowid = place_fts.rowid
            WHERE place_fts MATCH ?
            """
        var arguments: StatementArguments = [match]
        if let near, let radius {
            let box = GeoMath.boundingBox(around: near, radius: radius)
            sql += " AND p.rowid IN (SELECT id FROM place_rtree WHERE max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?)"
            arguments += [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]
        }
        if let filter = CategoryFilter(category) {
            sql += " AND " + filter.sql
            arguments += filter.arguments
        }
        // Without a reference point bm25 alone orders; with one, a wider pool is re-ranked by distance.
        let pool = near == nil ? limit : max(limit * 20, 200)
        sql += " ORDER BY rank LIMIT \(pool)"
        return try database.read { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (rowid: row[0] as Int64, coordinate: Coordinate(latitude: row[1], longitude: row[2]), rank: row[3] as Double)
            }
            guard let near else { return try PlaceRow.fetch(db, rowids: rows.map(\.rowid)) }
            // bm25 is negative, lower is better; relevance 1 is the best match of this query.
            let best = rows.map { -$0.rank }.max() ?? 1
            var scored: [(rowid: Int64, distance: Double, score: Double)] = []
            scored.reserveCapacity(rows.count)
            for row in rows {
                let distance = GeoMath.distance(near, row.coordinate)
                if let radius, distance > radius { continue }
                let relevance: Double = best > 0 ? -row.rank / best : 1
                let proximity: Double = 1 / (1 + distance / 1_000)
                scored.append((row.rowid, distance, 0.6 * relevance + 0.4 * proximity))
            }
            scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.distance < $1.distance }
            return try PlaceRow.fetch(db, rowids: scored.prefix(limit).map(\.rowid))
        }
    }
}

/// Builds FTS5 MATCH expressions from user text without letting its punctuation become FTS syntax.
enum FullTextQuery {
    /// Folded words, split the way the `unicode61` tokenizer splits them.
    static func tokens(_ text: String) -> [String] {
        TextFolding.fold(text)
            .split { !($0.isLetter || $0.isNumber) }
            .map(String.init)
    }

    static func any(_ tokens: [String]) -> String {
        tokens.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " OR ")
    }

    static func all(_ tokens: [String], prefixLast: Bool = false, prefixAll: Bool = false) -> String {
        tokens.enumerated().map { index, token in
            let quoted = "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let prefix = prefixAll || (prefixLast && index == tokens.count - 1)
            return prefix ? quoted + "*" : quoted
        }.joined(separator: " ")
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

/// Which GeoNames city a point belongs to.
enum CityLookup {
    /// Close cities compete on distance against size: a 600,000-people city 3 km away beats a village
    /// 2 km away, but not a town you are standing in. Score = km − 2·log10(population + 1), lowest wins.
    static func best(near coordinate: Coordinate, in db: Database) throws -> IndexedCity? {
        // Population is worth at most ~15 km (2·log10 of the largest cities), so a 15 km window holds the winner.
        for radius in [15_000.0, 300_000.0] {
            let box = GeoMath.boundingBox(around: coordinate, radius: radius)
            let cities = try Array(Row.fetchCursor(db.cachedStatement(sql: """
                SELECT c.* FROM city_rtree r CROSS JOIN city c ON c.geonameid = r.id
                WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ?
                """), arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]).map(city))
            let scored = cities.map { city -> (city: IndexedCity, distance: Double) in
                (city, GeoMath.distance(coordinate, city.coordinate))
            }.filter { $0.distance <= radius }
            guard !scored.isEmpty else { continue }
            if radius > 15_000 { return scored.min { $0.distance < $1.distance }?.city }
            return scored.min { score($0) < score($1) }?.city
        }
        return nil
    }

    private static func score(_ candidate: (city: IndexedCity, distance: Double)) -> Double {
        candidate.distance / 1_000 - 2 * log10(Double(max(0, candidate.city.population)) + 1)
    }

    static func city(_ row: Row) -> IndexedCity {
        IndexedCity(geonameID: row["geonameid"], name: row["name"], asciiName: row["ascii_name"],
                    coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]), featureCode: row["feature_code"],
                    countryCode: row["country_code"], admin1: row["admin1"], population: row["population"],
                    timeZone: row["time_zone"])
    }
}

/// A `place` row back into a ``Place``.
///
/// Index rows (here and in ``CityLookup``) are decoded while a cursor stands on them, never from
/// `fetchAll`/`fetchOne` copies: a copied row finds a column by lower-casing every column name on each
/// access (GRDB 7), which made reading two dozen columns by name the costliest part of a DETAILS. A
/// cursor's row looks names up in a table built once per statement.
enum PlaceRow {
    /// Full rows for `rowids`, in that order. Queries rank light (rowid, position, score) rows first
    /// and only build ``Place`` values for the few they return.
    static func fetch(_ db: Database, rowids: [Int64]) throws -> [Place] {
        guard !rowids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: rowids.count).joined(separator: ",")
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM place WHERE rowid IN (\(placeholders))",
                                       arguments: StatementArguments(rowids))
        var byRowid: [Int64: Place] = [:]
        while let row = try rows.next() { byRowid[row["rowid"]] = place(row) }
        return rowids.compactMap { byRowid[$0] }
    }

    static func place(_ row: Row) -> Place {
        let idText: String = row["id"]
        let id = (try? PlaceID(parsing: idText)) ?? PlaceID(provider: "local", nativeID: idText)
        let address = PostalAddress(
            houseNumber: row["house_number"], street: row["street"], unit: row["unit"], postcode: row["postcode"],
            city: row["city"], district: row["district"], region: row["region"], countryCode: row["country_code"])
        let categories: String = row["categories"]
        let importedAt = Date(timeIntervalSince1970: row["imported_at"])
        let place = Place(
            id: id, name: row["name"], coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]),
            address: address.isEmpty ? nil : address, formattedAddress: address.formatted,
            phone: row["phone"], website: row["website"],
            categories: categories.isEmpty ? [] : categories.components(separatedBy: "\n"),
            category: row["category"], brand: row["brand"], openingHoursText: row["opening_hours"],
            timeZone: row["time_zone"], attribution: row["attribution"])
        return place.attributed(to: "local", at: importedAt)
    }
}
