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
        return try rankedMatches(FullTextQuery.all(tokens, prefixLast: true), near: near, radius: nil, category: nil,
                                 limit: limit)
    }

    /// Places within `radius` metres of `center`, nearest first.
    /// - Parameters:
    ///   - category: a normalised category (`cafe`) or a provider label (`amenity=cafe`, `coffee shop`).
    ///   - brand: matches the `brand` tag or the name, ignoring case and accents ("starbucks").
    public func nearby(center: Coordinate, radius: Double, category: String? = nil, brand: String? = nil,
                       limit: Int = 20) throws -> [Place] {
        guard radius > 0, limit > 0 else { return [] }
        let box = GeoMath.boundingBox(around: center, radius: radius)
        var sql = """
            SELECT p.* FROM place_rtree r JOIN place p ON p.rowid = r.id
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
        let candidates = try database.read { db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(PlaceRow.place) }
        return candidates
            .map { (place: $0, distance: GeoMath.distance(center, $0.coordinate)) }
            .filter { $0.distance <= radius }
            .sorted { $0.distance < $1.distance }
            .prefix(limit)
            .map(\.place)
    }

    /// The place with this id (POI, address point or city), or `nil`.
    public func place(id: PlaceID) throws -> Place? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM place WHERE id = ?", arguments: [id.description]).map(PlaceRow.place)
        }
    }

    /// The nearest POI or address point within `radius` metres, and the city the point is in.
    public func reverse(_ coordinate: Coordinate, radius: Double = 100) throws -> IndexedReverse {
        try database.read { db in
            let box = GeoMath.boundingBox(around: coordinate, radius: radius)
            let rows = try Row.fetchAll(db, sql: """
                SELECT p.* FROM place_rtree r JOIN place p ON p.rowid = r.id
                WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ? AND p.kind != 'city'
                """, arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude])
            let nearest = rows.map(PlaceRow.place)
                .map { (place: $0, distance: GeoMath.distance(coordinate, $0.coordinate)) }
                .filter { $0.distance <= radius }
                .min { $0.distance < $1.distance }
            return IndexedReverse(nearest: nearest?.place, nearestDistance: nearest?.distance,
                                  city: try CityLookup.best(near: coordinate, in: db))
        }
    }

    private func rankedMatches(_ match: String, near: Coordinate?, radius: Double?, category: String?,
                               limit: Int) throws -> [Place] {
        var sql = """
            SELECT p.*, bm25(place_fts, 10.0, 4.0, 1.0) AS rank
            FROM place_fts JOIN place p ON p.rowid = place_fts.rowid
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
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { (place: PlaceRow.place($0), rank: $0["rank"] as Double) }
        }
        guard let near else { return rows.map(\.place) }
        // bm25 is negative, lower is better; relevance 1 is the best match of this query.
        let best = rows.map { -$0.rank }.max() ?? 1
        var scored: [(place: Place, distance: Double, score: Double)] = []
        for row in rows {
            let distance = GeoMath.distance(near, row.place.coordinate)
            if let radius, distance > radius { continue }
            let relevance: Double = best > 0 ? -row.rank / best : 1
            let proximity: Double = 1 / (1 + distance / 1_000)
            scored.append((row.place, distance, 0.6 * relevance + 0.4 * proximity))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.distance < $1.distance }
        return scored.prefix(limit)
            .map(\.place)
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
        for radius in [30_000.0, 300_000.0] {
            let box = GeoMath.boundingBox(around: coordinate, radius: radius)
            let cities = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT c.* FROM city_rtree r JOIN city c ON c.geonameid = r.id
                WHERE r.max_lat >= ? AND r.min_lat <= ? AND r.max_lon >= ? AND r.min_lon <= ?
                """), arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]).map(city)
            let scored = cities.map { city -> (city: IndexedCity, distance: Double) in
                (city, GeoMath.distance(coordinate, city.coordinate))
            }.filter { $0.distance <= radius }
            guard !scored.isEmpty else { continue }
            if radius > 30_000 { return scored.min { $0.distance < $1.distance }?.city }
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
enum PlaceRow {
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
