import Foundation
import GRDB
import PlacesCore

/// Inserts into the index inside the one transaction ``PlaceIndexStore/write(_:)`` opened.
/// Only valid inside that closure.
public final class PlaceIndexWriter {
    let db: Database
    private let now = Date().timeIntervalSince1970

    init(db: Database) { self.db = db }

    /// Removes everything an earlier import of `source` added, so a re-import replaces rather than duplicates.
    public func removeSource(_ source: String) throws {
        for sql in [
            "DELETE FROM place_fts WHERE rowid IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM place_rtree WHERE id IN (SELECT rowid FROM place WHERE source = ?)",
            "DELETE FROM place WHERE source = ?",
            "DELETE FROM city_rtree WHERE id IN (SELECT geonameid FROM city WHERE source = ?)",
            "DELETE FROM city WHERE source = ?",
            "DELETE FROM source WHERE name = ?",
        ] {
            try db.execute(sql: sql, arguments: [source])
        }
    }

    /// Ends an import of `source`: builds the R*Tree and full-text entries of every row it inserted,
    /// and records the import. Bulk `INSERT … SELECT` here costs half of what maintaining both
    /// indexes row by row did. Call it last, inside the same ``PlaceIndexStore/write(_:)``.
    public func finishSource(_ source: String, kind: String, places: Int, cities: Int) throws {
        try db.execute(sql: """
            INSERT INTO place_rtree (id, min_lat, max_lat, min_lon, max_lon)
            SELECT rowid, lat, lat, lon, lon FROM place WHERE source = ?
            """, arguments: [source])
        // OR REPLACE: a city another source had is now this source's row, at its new position.
        try db.execute(sql: """
            INSERT OR REPLACE INTO city_rtree (id, min_lat, max_lat, min_lon, max_lon)
            SELECT geonameid, lat, lat, lon, lon FROM city WHERE source = ?
            """, arguments: [source])
        try db.execute(sql: """
            INSERT INTO place_fts (rowid, name, brand, keywords)
            SELECT rowid, name, brand, keywords FROM place WHERE source = ? AND kind != 'address'
            """, arguments: [source])
        try db.execute(sql: "INSERT OR REPLACE INTO source (name, kind, imported_at, places, cities) VALUES (?, ?, ?, ?, ?)",
                       arguments: [source, kind, now, places, cities])
    }

    /// Adds or replaces one place. `keywords` are extra searchable words (category values, ASCII names).
    /// It becomes findable when ``finishSource(_:kind:places:cities:)`` runs.
    public func insert(_ place: Place, kind: IndexedPlaceKind, source: String, keywords: [String] = []) throws {
        let id = place.id.description
        let a = place.address
        let arguments: StatementArguments = [
            id, source, kind.rawValue, place.name, TextFolding.fold(place.name),
            place.coordinate.latitude, place.coordinate.longitude, place.category,
            place.categories.joined(separator: "\n"), place.brand, place.brand.map(TextFolding.fold),
            place.phone, place.website, place.openingHoursText, place.timeZone,
            a?.houseNumber, a?.street, a?.unit, a?.postcode, a?.city, a?.district, a?.region, a?.countryCode,
            place.attribution, now, keywords.joined(separator: " "),
        ]
        let insert = try db.cachedStatement(sql: """
            INSERT INTO place (id, source, kind, name, folded_name, lat, lon, category, categories, brand, folded_brand,
                phone, website, opening_hours, time_zone, house_number, street, unit, postcode, city, district, region,
                country_code, attribution, imported_at, keywords)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO NOTHING
            """)
        try insert.execute(arguments: arguments)
        if db.changesCount == 0 {
            // Another file had this object: the newer import wins.
            if let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT rowid FROM place WHERE id = ?"), arguments: [id]) {
                try deletePlace(rowid: existing)
            }
            try insert.execute(arguments: arguments)
        }
    }

    /// Adds or replaces one GeoNames city in the reverse-geocoding table; it is found by position once
    /// ``finishSource(_:kind:places:cities:)`` runs. Its searchable ``Place`` (id `geonames:N`, kind
    /// `.city`) is inserted separately.
    public func insert(_ city: IndexedCity, source: String) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO city (geonameid, source, name, ascii_name, lat, lon, feature_code, country_code, admin1,
                population, time_zone)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                city.geonameID, source, city.name, city.asciiName, city.coordinate.latitude, city.coordinate.longitude,
                city.featureCode, city.countryCode, city.admin1, city.population, city.timeZone,
            ])
    }

    /// The city reverse geocoding would name for `coordinate`, from what is already in the index
    /// (including this transaction's inserts).
    public func city(near coordinate: Coordinate) throws -> IndexedCity? {
        try CityLookup.best(near: coordinate, in: db)
    }

    private func deletePlace(rowid: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM place_fts WHERE rowid = ?").execute(arguments: [rowid])
        try db.cachedStatement(sql: "DELETE FROM place_rtree WHERE id = ?").execute(arguments: [rowid])
        try db.cachedStatement(sql: "DELETE FROM place WHERE rowid = ?").execute(arguments: [rowid])
    }
}
